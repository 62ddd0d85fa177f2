/**
 * Blind indexes (docs/at-rest.md): where hrx must find a row by a value it keeps only
 * encrypted (a user's e-mail), it stores beside the envelope a keyed hash of the value,
 * HMAC-SHA256 (RFC 2104) under a key derived from the master key for this purpose alone
 * (`derivedKeys('blind-index')`, src/infra.ts), and looks the row up by equality on that hash.
 * Without the key, the hash cannot be tested against guessed values (e-mail addresses are easy to
 * guess, so a plain hash would name the person); with it, hrx can answer "which row holds this
 * value?" and nothing else: no ordering, no prefix, no range.
 *
 * Each hash is scoped: the purpose (which column) and the org are hashed with the value, with a
 * NUL between the parts, so the same e-mail in two orgs (or in two columns) never shares a hash,
 * and rows of one org cannot be linked to another's by their index.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** What a blind index indexes; part of the hashed text, so two purposes never share a hash. */
export type BlindIndexPurpose = 'user-email';

/**
 * Blind index keys, current first then retired (master-key rotation), from 32-byte derived keys.
 * Throws when `derived` is empty.
 */
export function blindIndexKeys(derived: readonly Buffer[]): KeyObject[] {
  if (derived.length === 0) throw new Error('blind index: no key');
  return derived.map((k) => createSecretKey(k));
}

/**
 * The blind index (64 hex characters) of `value` for `purpose` in org `orgId` under `key`. The
 * caller normalizes `value` first (an e-mail lower-cased), since equal hashes need equal text.
 * `value` may not hold NUL (ids and e-mails with NUL are refused at the edge).
 */
export function blindIndex(key: KeyObject, purpose: BlindIndexPurpose, orgId: number, value: string): string {
  return createHmac('sha256', key).update(`hrx-blind-index\0${purpose}\0${orgId}\0`, 'utf8').update(value, 'utf8').digest('hex');
}

/**
 * Every blind index of `value` (one per key: the current key's first), for lookups that must
 * still find rows written before a master-key rotation.
 */
export function blindIndexes(keys: readonly KeyObject[], purpose: BlindIndexPurpose, orgId: number, value: string): string[] {
  return keys.map((k) => blindIndex(k, purpose, orgId, value));
}
