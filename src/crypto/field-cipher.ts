/**
 * Encryption at rest of every personal value hrx stores (employee records, users' names and
 * e-mails, consent statements) and of HRMS credentials and signing secrets (docs/data-points.md, docs/privacy.md;
 * docs/at-rest.md) with AES-256-GCM (NIST SP 800-38D) under a key derived from `HRX_MASTER_KEY`.
 *
 * Envelope (text): `v1.<kid>.<iv b64url>.<ciphertext||tag b64url>`, 96-bit random IV, 128-bit
 * tag. `kid` = first 8 hex chars of SHA-256 of the key, so a retired key still decrypts after
 * rotation. `aad` binds a ciphertext to its row (e.g. `employee-record:<org>:<employeeId>`), so a value
 * copied onto another row fails to decrypt instead of leaking.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** Thrown when an envelope is malformed, its key unknown, or authentication fails. */
export class DecryptionError extends Error {}

/** Encrypts and decrypts field values. */
export interface FieldCipher {
  /** Key id of the key used for new encryptions. */
  readonly currentKid: string;
  /** Encrypts UTF-8 `plaintext`, bound to `aad`; returns the text envelope. */
  encrypt(plaintext: string, aad: string): string;
  /** Decrypts an envelope made with `aad` by the current or a retired key; throws `DecryptionError`. */
  decrypt(envelope: string, aad: string): string;
  /** True when `envelope` was made with a key other than the current one (needs re-encryption). */
  isStale(envelope: string): boolean;
}

/** IVs drawn per call to the CSPRNG (a few KiB): one `randomBytes` serves a page's encryptions. */
const IV_BATCH = 256;

/**
 * Fresh random 96-bit IVs, taken in turn from one `randomBytes` draw of {@link IV_BATCH} IVs; each
 * byte of a draw is handed out once (never reused), then a new draw is made. As random as one
 * `randomBytes(12)` per encryption (the same CSPRNG), for one call per batch instead of one per
 * field: a full sync encrypts two envelopes per employee (docs/sync.md "Memory and throughput").
 */
function createIvSource(): { next(): Buffer } {
  let pool = randomBytes(12 * IV_BATCH);
  let at = 0;
  return {
    next() {
      if (at === pool.length) {
        pool = randomBytes(12 * IV_BATCH);
        at = 0;
      }
      // A view of its own 12 bytes of the draw: the draw is never written to, only replaced.
      const iv = pool.subarray(at, at + 12);
      at += 12;
      return iv;
    },
  };
}

/** Key id of a 32-byte key: first 8 hex chars of its SHA-256. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Builds a cipher from the current key and any retired keys (each 32 bytes).
 * Throws when a key is not 32 bytes.
 */
export function createFieldCipher(current: Buffer, retired: Buffer[] = []): FieldCipher {
  for (const k of [current, ...retired]) if (k.length !== 32) throw new Error('field cipher keys must be 32 bytes');
  // KeyObjects, made once: Node validates a raw Buffer key on every cipher it creates.
  const keys = new Map<string, KeyObject>();
  for (const k of retired) keys.set(keyId(k), createSecretKey(k));
  const currentKid = keyId(current);
  const currentKey = createSecretKey(current);
  keys.set(currentKid, currentKey);
  const ivs = createIvSource();
  return {
    currentKid,
    encrypt(plaintext, aad) {
      const iv = ivs.next();
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `v1.${currentKid}.${iv.toString('base64url')}.${ct.toString('base64url')}`;
    },
    decrypt(envelope, aad) {
      const parts = envelope.split('.');
      if (parts.length !== 4 || parts[0] !== 'v1') throw new DecryptionError('malformed envelope');
      const key = keys.get(parts[1]!);
      if (!key) throw new DecryptionError('unknown key id');
      const iv = Buffer.from(parts[2]!, 'base64url');
      const body = Buffer.from(parts[3]!, 'base64url');
      if (iv.length !== 12 || body.length < 16) throw new DecryptionError('malformed envelope');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(body.subarray(body.length - 16));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        throw new DecryptionError('authentication failed');
      }
    },
    isStale(envelope) {
      return envelope.split('.')[1] !== currentKid;
    },
  };
}
