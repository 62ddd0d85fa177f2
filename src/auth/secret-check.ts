/**
 * The check of a presented `app_secret` or V2 Basic password against its stored hashes
 * (docs/api.md "Credentials"), shared by the update webhook, setup-config and V2 Basic.
 *
 * These secrets are 256-bit random strings hrx generated, so a keyed hash (HMAC-SHA256 under a
 * key derived from the master key, crypto/secrets `keyedSecretHash`) decides as surely as scrypt:
 * - a row with a keyed hash: a wrong secret is refused without scrypt, and a right one accepted
 *   without it (the scrypt hash stays stored);
 * - an unknown id: the same keyed-hash work against a decoy, so known and unknown ids cost the
 *   same few microseconds (no timing oracle either way, and no decoy scrypt to force);
 * - a row made before keyed hashes existed: scrypt, as before, behind the failure limit (counted
 *   up front through auth/slow-hash-permit.ts, so concurrency cannot exceed it); on success the caller stores the keyed hash returned, so the row takes
 *   the fast path from then on.
 * Without peppers (a caller that has none) every check is scrypt, with a decoy for unknown ids.
 */
import type { KeyObject } from 'node:crypto';
import { DECOY_SECRET_HASH, keyedSecretHash, keyedSecretMatches, verifySecret } from '../crypto/secrets';
import { beforeSlowHash } from './slow-hash-permit';

/** The stored hashes of one secret. */
export interface StoredSecret {
  /** scrypt hash (`hashSecret`). */
  slowHash: string;
  /** `keyedSecretHash` of the secret, or null (made before keyed hashes existed). */
  keyedHash: string | null;
}

/** Outcome: whether the secret matched, and a keyed hash to store when a legacy row matched. */
export interface SecretCheck {
  ok: boolean;
  keyedHashToStore?: string;
}

/**
 * Checks `secret` against `stored` (null: the id is unknown, answered false). `peppers`: the
 * keyed-hash keys, current first (context.ts `secretPeppers`).
 */
export async function checkSecret(secret: string, stored: StoredSecret | null, peppers: readonly KeyObject[]): Promise<SecretCheck> {
  if (peppers.length && (!stored || stored.keyedHash)) {
    return { ok: keyedSecretMatches(secret, stored?.keyedHash ?? null, peppers) && stored !== null };
  }
  // Counted against the failure limit before it runs, even when concurrent (slow-hash-permit.ts).
  await beforeSlowHash();
  const ok = await verifySecret(secret, stored?.slowHash ?? DECOY_SECRET_HASH);
  if (!ok || !stored) return { ok: false };
  return peppers.length ? { ok: true, keyedHashToStore: keyedSecretHash(secret, peppers[0]!) } : { ok: true };
}
