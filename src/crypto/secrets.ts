/**
 * Credential secrets (docs/api.md "Credentials"): API keys `hrx_<random>` (256 bits) stored as an HMAC-SHA256
 * keyed hash; `app_secret`s and Basic passwords stored as scrypt hashes (RFC 7914).
 */
import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, keylen: number, opts: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

// scrypt cost N=2^14, r=8, p=1. These secrets are 256-bit random strings, not passwords a person
// chose, so brute force is hopeless at any cost; a modest N keeps each check near 20 ms.
const SCRYPT = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

let scryptCount = 0;

/** How many scrypt runs (hash or verify) this process has made: a counter for tests and bench/auth-failures.ts. */
export function scryptRuns(): number {
  return scryptCount;
}

/** A new random secret: `prefix` + 43 base64url chars (256 bits), never starting with `-`. */
export function newSecret(prefix = ''): string {
  // Never starting with '-': a secret passed as a command-line value (`--password -x…`) would
  // read as an option (about 1 in 64 secrets did). Costs under 0.03 bits of the 256.
  for (;;) {
    const s = randomBytes(32).toString('base64url');
    if (s[0] !== '-') return prefix + s;
  }
}

/**
 * Keyed hash of an API key (hex), with `pepper` derived from the master key. Pass the pepper as a
 * `KeyObject` (crypto.createSecretKey) on hot paths: Node checks a raw Buffer key on every call.
 */
export function hashApiKey(apiKey: string, pepper: Buffer | KeyObject): string {
  return createHmac('sha256', pepper).update(apiKey, 'utf8').digest('hex');
}

/**
 * A well-formed hash with the same scrypt cost as real ones that matches no secret: a credential
 * whose id is unknown is checked against it, so it costs the same slow hash as a known one and
 * the response time does not tell whether the id (an app_key, a Basic username) exists.
 */
export const DECOY_SECRET_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** scrypt hash of `secret`: `scrypt$N$r$p$<salt b64url>$<hash b64url>`. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  scryptCount++;
  const hash = await scrypt(secret, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Checks `secret` against a `hashSecret` result in constant time; false for malformed hashes. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashB64, 'base64url');
  scryptCount++;
  const actual = await scrypt(secret, Buffer.from(saltB64, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Keyed hash (HMAC-SHA256, hex) of an `app_secret` or V2 Basic password, with `pepper` derived
 * from the master key (context.ts `secretPeppers`). These secrets are 256-bit random strings hrx
 * generated, so a keyed hash is as hard to invert as any slow hash and lets a wrong secret be
 * refused in microseconds (docs/behaviour.md "Failed authentications": failed authentications are limited before any slow hash
 * runs). Stored beside the scrypt hash, written at creation.
 */
export function keyedSecretHash(secret: string, pepper: Buffer | KeyObject): string {
  return createHmac('sha256', pepper).update('hrx-secret\0', 'utf8').update(secret, 'utf8').digest('hex');
}

// Compared against when the id (app_key, username) is unknown, so that costs the same HMACs and
// comparison as a known id with a wrong secret. Matches no secret (64 hex chars ≠ any HMAC with
// overwhelming probability, and the caller refuses unknown ids whatever the comparison says).
const DECOY_KEYED_HASH = Buffer.alloc(32);

/**
 * Whether `secret` matches `stored` (a `keyedSecretHash` made with any of `peppers`: the current
 * one first, then retired ones after a master-key rotation), in constant time per pepper. With
 * `stored` null (unknown id) it does the same work against a decoy and answers false.
 */
export function keyedSecretMatches(secret: string, stored: string | null, peppers: readonly (Buffer | KeyObject)[]): boolean {
  const expected = stored && /^[0-9a-f]{64}$/.test(stored) ? Buffer.from(stored, 'hex') : DECOY_KEYED_HASH;
  let ok = false;
  for (const pepper of peppers) {
    const actual = Buffer.from(keyedSecretHash(secret, pepper), 'hex');
    // No early exit: every pepper is tried, so the time does not tell which one matched.
    ok = timingSafeEqual(actual, expected) || ok;
  }
  return ok && stored !== null;
}

/** Masks a secret for display: asterisks, last 4 characters visible (docs/api.md "Credentials"). */
export function maskSecret(last4: string, length = 47): string {
  return '*'.repeat(Math.max(0, length - last4.length)) + last4;
}
