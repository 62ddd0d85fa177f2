/**
 * The keyed-hash pre-check of app secrets and V2 Basic passwords (auth/secret-check.ts,
 * crypto/secrets.ts): right and wrong secrets, master-key rotation (a retired key's hash still
 * matches), unknown ids, and the scrypt fallback of credentials without a keyed hash.
 */
import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSecret } from '../../src/auth/secret-check';
import { hashSecret, keyedSecretHash, keyedSecretMatches, newSecret, scryptRuns } from '../../src/crypto/secrets';

const current = createSecretKey(randomBytes(32));
const retired = createSecretKey(randomBytes(32));

describe('keyedSecretMatches', () => {
  const secret = newSecret();
  it('matches the right secret under the current or a retired key, nothing else', () => {
    expect(keyedSecretMatches(secret, keyedSecretHash(secret, current), [current, retired])).toBe(true);
    expect(keyedSecretMatches(secret, keyedSecretHash(secret, retired), [current, retired])).toBe(true);
    expect(keyedSecretMatches(secret, keyedSecretHash(secret, retired), [current])).toBe(false);
    expect(keyedSecretMatches(newSecret(), keyedSecretHash(secret, current), [current, retired])).toBe(false);
    expect(keyedSecretMatches(secret, null, [current])).toBe(false);
    expect(keyedSecretMatches(secret, 'not-hex', [current])).toBe(false);
  });
});

describe('checkSecret', () => {
  it('with a keyed hash: no scrypt, right or wrong; an unknown id the same', async () => {
    const secret = newSecret();
    const stored = { slowHash: await hashSecret(secret), keyedHash: keyedSecretHash(secret, current) };
    const before = scryptRuns();
    expect(await checkSecret(secret, stored, [current])).toEqual({ ok: true });
    expect(await checkSecret(newSecret(), stored, [current])).toEqual({ ok: false });
    expect(await checkSecret(secret, null, [current])).toEqual({ ok: false });
    expect(scryptRuns() - before).toBe(0);
  });

  it('without one: scrypt, and the keyed hash to store after a success', async () => {
    const secret = newSecret();
    const stored = { slowHash: await hashSecret(secret), keyedHash: null };
    const before = scryptRuns();
    expect(await checkSecret(newSecret(), stored, [current])).toEqual({ ok: false });
    expect(await checkSecret(secret, stored, [current])).toEqual({ ok: true, keyedHashToStore: keyedSecretHash(secret, current) });
    expect(scryptRuns() - before).toBe(2);
  });

  it('without peppers: scrypt for everyone, a decoy for unknown ids', async () => {
    const before = scryptRuns();
    expect(await checkSecret(newSecret(), null, [])).toEqual({ ok: false });
    expect(scryptRuns() - before).toBe(1);
  });
});
