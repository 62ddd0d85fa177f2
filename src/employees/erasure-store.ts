/**
 * Persistence of erasure (docs/erasure-and-retention.md "Erasing an employee"): deleting an employee's row (every stored copy
 * of its values: the record envelope and the masked envelope) and the tombstones
 * that make later syncs skip it. A tombstone holds the org, a keyed hash of the `employeeId`
 * (src/crypto/tombstone.ts) and when the employee was erased: nothing else. Every id is taken in
 * its canonical form (`canonicalEmployeeId`) before it is hashed or compared, whoever calls.
 *
 * **Erasure against a running sync.** A sync fetches a page from the HRMS, then writes it; an
 * erasure committing between the two must not be undone by that write. Each page is written in a
 * transaction that first takes the org's erasure lock SHARED (`lockForSync`), then filters the
 * page against the tombstones (`erasedAmong`), then upserts; an erasure takes the same lock
 * EXCLUSIVE (`lockForErasure`) before it deletes the row and writes the tombstone. So an erasure
 * waits for a page write in progress, and a page write that starts after an erasure waits for it
 * to commit and then, its statements taking their snapshots after the lock was granted, sees the
 * tombstone. The lock is a transaction-scoped PostgreSQL advisory lock keyed by the schema and the
 * org (`hashtext(current_schema() || ':hrx:employee-erasure')`, org id): syncs of one org never
 * wait on each other (shared), and nothing outside a transaction can hold it.
 */
import type { KeyObject } from 'node:crypto';
import type pg from 'pg';
import { consentStatementAad } from '../consent/store';
import type { FieldCipher } from '../crypto/field-cipher';
import { ERASED_STATEMENT_PREFIX, statementDigest, tombstoneHash } from '../crypto/tombstone';
import { queryableOf, type Tx } from '../db/tx';
import { scrubEmployeeEvents } from '../events/outbox-retention';
import { canonicalEmployeeId } from './employee-id';

/** The deleted row of an erased employee: store id and `employeeId` (for `employee.removed`). */
export interface ErasedRow {
  id: string;
  employeeId: string;
}

export interface ErasureStore {
  /** Takes org `orgId`'s erasure lock shared until `tx` ends (a sync's page write). */
  lockForSync(orgId: number, tx: Tx): Promise<void>;
  /** Takes org `orgId`'s erasure lock exclusive until `tx` ends (an erasure). */
  lockForErasure(orgId: number, tx: Tx): Promise<void>;
  /** Those of `employeeIds` of `orgId` that have a tombstone (under any current or retired key). */
  erasedAmong(orgId: number, employeeIds: readonly string[], tx?: Tx): Promise<Set<string>>;
  /** When `employeeId` of `orgId` was erased (its tombstone), or null. */
  erasedAt(orgId: number, employeeId: string, tx?: Tx): Promise<Date | null>;
  /** Deletes the employee's row (removed or not); null when there is none. */
  deleteEmployee(orgId: number, employeeId: string, tx: Tx): Promise<ErasedRow | null>;
  /**
   * Replaces the statement (`consent_language_enc`, an envelope) of every consent record of
   * `employeeId` of client org `orgId` by the keyed digest of the statement in clear
   * (`statementDigest`), keeping the rest of each record (vendor, times, revocation): the proof
   * of consent without the words, which may name the employee, and without an envelope that the
   * master key would open.
   * Returns how many records it rewrote.
   */
  digestConsentStatements(orgId: number, employeeId: string, tx: Tx): Promise<number>;
  /**
   * Deletes or rewrites every outbox event of org `orgId` that names `employeeId` (events/outbox-retention.ts
   * `scrubEmployeeEvents`: their deliveries and attempts go with them); returns how many.
   */
  scrubEvents(orgId: number, employeeId: string, tx: Tx): Promise<number>;
  /**
   * Revokes every credential issued about `employeeId` of client org `orgId` (reason
   * `employee_erased`, an earlier revocation kept) and blanks its `employee_id`: the row keeps
   * its vendor, status list place and revocation, so the status list still shows the bit, and
   * nothing of the employee (docs/erasure-and-retention.md "What erasure keeps, and why").
   * Returns how many rows it rewrote.
   */
  forgetCredentials(orgId: number, employeeId: string, tx: Tx): Promise<number>;
  /** Writes the tombstone of `employeeId` (current key); returns its `erased_at` (the database's now). */
  addTombstone(orgId: number, employeeId: string, tx: Tx): Promise<Date>;
  /** Removes the tombstones of `employeeIds` (under every key): the employer posted them again. */
  clearTombstones(orgId: number, employeeIds: readonly string[], tx?: Tx): Promise<void>;
}

const LOCK_KEY = `hashtext(current_schema() || ':hrx:employee-erasure')`;

/**
 * A timestamp as whole epoch milliseconds (float8, a JS number on every connection: MikroORM's
 * connection returns timestamps as text, a bare pool as `Date`).
 */
const epochMs = (expr: string): string => `round(1000 * extract(epoch from ${expr}))::float8`;

/**
 * The tombstones among some hashes of an org's employee ids: `$1` the org id, `$2` the hashes
 * (text[]); rows `{ id_hash }` of those erased. One primary-key probe per hash (a lateral
 * subquery per hash, kept apart by its `limit 1`, exact for a key), for the reason the employee
 * store's `EMPLOYEE_IDS_SQL` gives: an org's tombstones would otherwise be read in full on every
 * page of a sync (a plain join was planned as a hash join over all of them).
 */
export const TOMBSTONE_HASHES_SQL = `select t.id_hash from unnest($2::text[]) as k(id_hash)
  cross join lateral (select id_hash from employee_tombstones
                       where org_id = $1 and id_hash = k.id_hash limit 1) as t`;

/**
 * Builds the store over `pool` (calls given a `Tx` run on its connection). `keys`: the tombstone
 * keys, current first (new tombstones), then retired ones (still matched after a master-key
 * rotation); `cipher` opens consent statements to digest them. Throws when `keys` is empty.
 */
export function createErasureStore(pool: pg.Pool, keys: readonly KeyObject[], cipher: FieldCipher): ErasureStore {
  const current = keys[0];
  if (!current) throw new Error('erasure store: no tombstone key');
  /** Every hash of each id (one per key), and which id each hash names. */
  const hashesOf = (orgId: number, employeeIds: readonly string[]): Map<string, string> => {
    const out = new Map<string, string>();
    for (const id of employeeIds) for (const k of keys) out.set(tombstoneHash(k, orgId, canonicalEmployeeId(id)), id);
    return out;
  };
  const lock = async (fn: string, orgId: number, tx: Tx): Promise<void> => {
    await (await queryableOf(pool, tx)).query(`select ${fn}(${LOCK_KEY}, $1)`, [orgId]);
  };
  return {
    lockForSync: (orgId, tx) => lock('pg_advisory_xact_lock_shared', orgId, tx),
    lockForErasure: (orgId, tx) => lock('pg_advisory_xact_lock', orgId, tx),
    async erasedAmong(orgId, employeeIds, tx) {
      if (employeeIds.length === 0) return new Set();
      const hashes = hashesOf(orgId, employeeIds);
      const res = await (
        await queryableOf(pool, tx)
      ).query({
        text: TOMBSTONE_HASHES_SQL,
        values: [orgId, [...hashes.keys()]],
      });
      return new Set((res.rows as { id_hash: string }[]).map((r) => hashes.get(r.id_hash)!));
    },
    async erasedAt(orgId, employeeId, tx) {
      const res = await (
        await queryableOf(pool, tx)
      ).query(`select ${epochMs('max(erased_at)')} as at from employee_tombstones where org_id = $1 and id_hash = any($2::text[])`, [
        orgId,
        [...hashesOf(orgId, [employeeId]).keys()],
      ]);
      const at = (res.rows[0] as { at: number | null } | undefined)?.at;
      return at == null ? null : new Date(at);
    },
    async deleteEmployee(orgId, employeeId, tx) {
      const res = await (
        await queryableOf(pool, tx)
      ).query(`delete from employees where org_id = $1 and employee_id = $2 returning id, employee_id`, [orgId, canonicalEmployeeId(employeeId)]);
      const row = res.rows[0] as { id: string; employee_id: string } | undefined;
      return row ? { id: row.id, employeeId: row.employee_id } : null;
    },
    async digestConsentStatements(orgId, employeeId, tx) {
      const db = await queryableOf(pool, tx);
      const res = await db.query(
        `select id, consent_language_enc from consents where client_org_id = $1 and employee_id = $2 and left(consent_language_enc, $3) <> $4 for update`,
        [orgId, canonicalEmployeeId(employeeId), ERASED_STATEMENT_PREFIX.length, ERASED_STATEMENT_PREFIX],
      );
      const rows = res.rows as { id: string; consent_language_enc: string }[];
      if (rows.length === 0) return 0;
      await db.query(`update consents k set consent_language_enc = d.digest from unnest($1::uuid[], $2::text[]) as d(id, digest) where k.id = d.id`, [
        rows.map((r) => r.id),
        rows.map((r) => statementDigest(current, cipher.decrypt(r.consent_language_enc, consentStatementAad(r.id)))),
      ]);
      return rows.length;
    },
    async scrubEvents(orgId, employeeId, tx) {
      return scrubEmployeeEvents(await queryableOf(pool, tx), [{ orgId, employeeId: canonicalEmployeeId(employeeId) }]);
    },
    async forgetCredentials(orgId, employeeId, tx) {
      const res = await (
        await queryableOf(pool, tx)
      ).query(
        `update credentials set employee_id = '', revoked_at = coalesce(revoked_at, now()), revoked_reason = coalesce(revoked_reason, 'employee_erased')
          where client_org_id = $1 and employee_id = $2`,
        [orgId, canonicalEmployeeId(employeeId)],
      );
      return res.rowCount ?? 0;
    },
    async addTombstone(orgId, employeeId, tx) {
      const res = await (
        await queryableOf(pool, tx)
      ).query(
        `insert into employee_tombstones (org_id, id_hash, erased_at) values ($1, $2, now())
         on conflict (org_id, id_hash) do update set erased_at = excluded.erased_at
         returning ${epochMs('erased_at')} as at`,
        [orgId, tombstoneHash(current, orgId, canonicalEmployeeId(employeeId))],
      );
      return new Date((res.rows[0] as { at: number }).at);
    },
    async clearTombstones(orgId, employeeIds, tx) {
      if (employeeIds.length === 0) return;
      await (
        await queryableOf(pool, tx)
      ).query({
        text: `delete from employee_tombstones where org_id = $1 and id_hash = any($2::text[])`,
        values: [orgId, [...hashesOf(orgId, employeeIds).keys()]],
      });
    },
  };
}
