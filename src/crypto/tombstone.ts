/**
 * The keyed hash an erased employee leaves behind (docs/erasure-and-retention.md "Erasing an employee"): HMAC-SHA256 (RFC
 * 2104) of the org id and the `employeeId`, under a key derived from the master key for this
 * purpose alone (`deriveKey(master, 'employee-tombstone')`, src/infra.ts). Without the key the
 * hash cannot be tested against guessed ids (employee codes like `EMP00042` are easy to guess,
 * so a plain hash would name the employee); with it, hrx can tell whether an id it meets again
 * was erased, and nothing else.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** Tombstone keys, current first then retired (master-key rotation): from 32-byte derived keys. */
export function tombstoneKeys(derived: readonly Buffer[]): KeyObject[] {
  return derived.map((k) => createSecretKey(k));
}

/**
 * The tombstone hash (64 hex characters) of `employeeId` in org `orgId` under `key`. The org id
 * is hashed too, with a NUL between the parts (neither can hold one: ids with NUL are refused,
 * src/employees/employee-id.ts), so equal employee codes of two employers never share a hash.
 */
export function tombstoneHash(key: KeyObject, orgId: number, employeeId: string): string {
  return createHmac('sha256', key).update(`hrx-tombstone\0${orgId}\0`, 'utf8').update(employeeId, 'utf8').digest('hex');
}

/** Prefix of a consent statement replaced by its digest at erasure (`statementDigest`). */
export const ERASED_STATEMENT_PREFIX = 'erased:hmac-sha256:';

/**
 * What an erased employee's consent record keeps of its statement (`consent_language`, which the
 * vendor wrote and which may name the employee): `erased:hmac-sha256:<64 hex>`, an HMAC-SHA256
 * under the same key as the tombstones (with its own prefix). A copy of the statement the vendor
 * kept can still be checked against it by hrx; the text itself, and any name in it, is gone,
 * and without the key it cannot be recovered by trying likely statements.
 */
export function statementDigest(key: KeyObject, statement: string): string {
  return ERASED_STATEMENT_PREFIX + createHmac('sha256', key).update('hrx-consent-statement\0', 'utf8').update(statement, 'utf8').digest('hex');
}
