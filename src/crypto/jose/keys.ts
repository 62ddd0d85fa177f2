/**
 * RSA key helpers for the encrypted employee-details endpoint (docs/v2.md).
 *
 * - Vendor keys arrive as public JWKs (RFC 7517 §4, RFC 7518 §6.3.1). Only `kty: RSA` with a
 *   modulus of at least 2048 bits is accepted (RFC 7518 §3.3 / §4.3 require ≥ 2048 for RS256 and
 *   RSA-OAEP-256). A missing `kid` is replaced by the RFC 7638 thumbprint (SHA-256, base64url).
 * - Service keys are generated here: one `use: enc` pair (alg RSA-OAEP-256) that vendors encrypt
 *   requests to, one `use: sig` pair (alg RS256) that signs responses. Their public halves are
 *   published as JWKS entries with `kid`, `use` and `alg` (RFC 7517 §4.2, §4.4, §4.5, §5).
 *
 * All key handling goes through `jose`; keys are WebCrypto `CryptoKey`s.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { CryptoKey, JWK } from 'jose';

/** Smallest RSA modulus accepted anywhere in the V2 flow (RFC 7518 §3.3, §4.3). */
export const MIN_RSA_BITS = 2048;
/** Largest RSA modulus accepted from outside (bounds the cost of one RSA operation). */
export const MAX_RSA_BITS = 8192;

/** Raised when a JWK cannot be used; `reason` is fixed text, never key material. */
export class InvalidKeyError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`Invalid key: ${reason}`);
    this.name = 'InvalidKeyError';
    this.reason = reason;
  }
}

/** The public RSA members we keep from a JWK (RFC 7518 §6.3.1) plus kid/use/alg. */
export interface PublicRsaJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  use?: 'sig' | 'enc';
  alg?: string;
}

/**
 * A vendor's registered public key for the V2 flow: verifying the vendor's RS256 request
 * signatures and/or encrypting responses to it with RSA-OAEP-256 (docs/v2.md). A JWK without
 * `use`/`key_ops`/`alg` serves both; one that restricts itself (RFC 7517 §4.2–4.4) gets only the
 * matching half, the other is undefined.
 */
export interface VendorPublicKey {
  kid: string;
  bits: number;
  /** RSASSA-PKCS1-v1_5 / SHA-256 public key (RS256, RFC 7518 §3.3); undefined if not for `sig`. */
  verifyKey?: CryptoKey;
  /** RSA-OAEP / SHA-256 public key (RSA-OAEP-256, RFC 7518 §4.3); undefined if not for `enc`. */
  encryptKey?: CryptoKey;
  /** The normalised public JWK (kty, n, e, kid, plus use/alg when given) worth storing. */
  jwk: PublicRsaJwk;
}

/** The public half of a service key as published in the JWKS: `use` and `alg` always set (RFC 7517 §4.2, §4.4). */
export interface ServicePublicJwk extends PublicRsaJwk {
  use: ServiceKeyPair['use'];
  alg: ServiceKeyPair['alg'];
}

/** A service key pair; `use`/`alg` fixed per RFC 7517 §4.2 / §4.4. */
export interface ServiceKeyPair {
  kid: string;
  use: 'enc' | 'sig';
  alg: 'RSA-OAEP-256' | 'RS256';
  bits: 2048 | 3072;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

const B64URL = /^[A-Za-z0-9_-]+$/;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Bit length of a big-endian base64url integer (leading zero octets ignored). */
export function modulusBits(nB64u: string): number {
  const bytes = Buffer.from(nB64u, 'base64url');
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  const first = bytes[i] as number;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(first));
}

/**
 * Validates an RSA public JWK and returns its normalised public members with a `kid`.
 * Throws InvalidKeyError for: non-object, kty ≠ RSA, any private member present, n/e not
 * base64url, modulus < 2048 or > 8192 bits, even or tiny exponent, empty or over-long kid.
 * kid: `jwk.kid` when given, else the RFC 7638 §3 SHA-256 thumbprint of {e, kty, n}.
 */
export async function normalizeRsaPublicJwk(jwk: unknown): Promise<PublicRsaJwk & { bits: number }> {
  if (!isPlainObject(jwk)) throw new InvalidKeyError('JWK must be an object');
  if (jwk.kty !== 'RSA') throw new InvalidKeyError('kty must be RSA');
  for (const m of PRIVATE_MEMBERS) {
    if (m in jwk) throw new InvalidKeyError('private key members are not accepted');
  }
  const { n, e } = jwk;
  if (typeof n !== 'string' || !B64URL.test(n)) throw new InvalidKeyError('n must be base64url');
  if (typeof e !== 'string' || !B64URL.test(e)) throw new InvalidKeyError('e must be base64url');
  const bits = modulusBits(n);
  if (bits < MIN_RSA_BITS) throw new InvalidKeyError('RSA modulus under 2048 bits');
  if (bits > MAX_RSA_BITS) throw new InvalidKeyError('RSA modulus over 8192 bits');
  const eBytes = Buffer.from(e, 'base64url');
  const eLast = eBytes[eBytes.length - 1] ?? 0;
  if (eBytes.length > 8 || (eLast & 1) === 0 || (eBytes.length === 1 && eLast < 3)) {
    throw new InvalidKeyError('RSA public exponent not acceptable');
  }
  let kid: string;
  if (jwk.kid === undefined) {
    kid = await calculateJwkThumbprint({ kty: 'RSA', n, e }, 'sha256');
  } else if (typeof jwk.kid === 'string' && jwk.kid.length > 0 && jwk.kid.length <= 200) {
    kid = jwk.kid;
  } else {
    throw new InvalidKeyError('kid must be a non-empty string of at most 200 characters');
  }
  return { kty: 'RSA', n, e, kid, bits };
}

/**
 * Imports a vendor's public RSA JWK (registration, docs/v2.md).
 * Input: any JSON value. Restrictions the JWK carries are honoured (RFC 7517 §4.2 `use`, §4.3
 * `key_ops`, §4.4 `alg`): `use: sig`, `alg: RS256` or key_ops without encrypt/wrapKey → no
 * encryptKey; `use: enc`, `alg: RSA-OAEP-256` or key_ops without verify → no verifyKey.
 * Returns {@link VendorPublicKey}. Throws InvalidKeyError (see {@link normalizeRsaPublicJwk}), also
 * for another `alg`/`use`, malformed `key_ops`, or a JWK usable for neither purpose.
 */
export async function importVendorPublicJwk(jwk: unknown): Promise<VendorPublicKey> {
  const norm = await normalizeRsaPublicJwk(jwk);
  const { alg, use, key_ops: ops } = jwk as Record<string, unknown>;
  if (alg !== undefined && alg !== 'RS256' && alg !== 'RSA-OAEP-256') throw new InvalidKeyError('alg must be RS256 or RSA-OAEP-256');
  if (use !== undefined && use !== 'sig' && use !== 'enc') throw new InvalidKeyError('use must be sig or enc');
  if (ops !== undefined && (!Array.isArray(ops) || ops.some((o) => typeof o !== 'string'))) {
    throw new InvalidKeyError('key_ops must be an array of strings');
  }
  const opList = ops as string[] | undefined;
  const forSig = use !== 'enc' && alg !== 'RSA-OAEP-256' && (opList === undefined || opList.includes('verify'));
  const forEnc = use !== 'sig' && alg !== 'RS256' && (opList === undefined || opList.includes('encrypt') || opList.includes('wrapKey'));
  if (!forSig && !forEnc) throw new InvalidKeyError('key usable neither for sig nor for enc');
  const material = { kty: 'RSA', n: norm.n, e: norm.e };
  let verifyKey: CryptoKey | undefined;
  let encryptKey: CryptoKey | undefined;
  try {
    if (forSig) verifyKey = (await importJWK(material, 'RS256')) as CryptoKey;
    if (forEnc) encryptKey = (await importJWK(material, 'RSA-OAEP-256')) as CryptoKey;
  } catch {
    throw new InvalidKeyError('RSA public key could not be imported');
  }
  const stored: PublicRsaJwk = { kty: 'RSA', n: norm.n, e: norm.e, kid: norm.kid };
  if (use !== undefined) stored.use = use;
  if (alg !== undefined) stored.alg = alg;
  return { kid: norm.kid, bits: norm.bits, verifyKey, encryptKey, jwk: stored };
}

/**
 * Imports a public RSA JWK for one algorithm (e.g. the service's `enc` key on the vendor side).
 * Returns `{ kid, bits, key }`; throws InvalidKeyError like {@link normalizeRsaPublicJwk}.
 */
export async function importRsaPublicJwk(jwk: unknown, alg: 'RS256' | 'RSA-OAEP-256'): Promise<{ kid: string; bits: number; key: CryptoKey }> {
  const norm = await normalizeRsaPublicJwk(jwk);
  try {
    const key = await importJWK({ kty: 'RSA' as const, n: norm.n, e: norm.e }, alg);
    return { kid: norm.kid, bits: norm.bits, key };
  } catch {
    throw new InvalidKeyError('RSA public key could not be imported');
  }
}

/**
 * Generates a service RSA key pair (RFC 7518 §6.3). `use: 'enc'` → alg RSA-OAEP-256,
 * `use: 'sig'` → alg RS256. bits 2048 (default) or 3072. The private key is extractable so the
 * caller can persist it (see {@link exportServicePrivateJwk}). kid defaults to the RFC 7638
 * thumbprint of the public key.
 */
export async function generateServiceKeyPair(use: 'enc' | 'sig', opts: { bits?: 2048 | 3072; kid?: string } = {}): Promise<ServiceKeyPair> {
  const bits = opts.bits ?? 2048;
  if (bits !== 2048 && bits !== 3072) throw new RangeError('bits must be 2048 or 3072');
  const alg = use === 'enc' ? 'RSA-OAEP-256' : 'RS256';
  const { privateKey, publicKey } = await generateKeyPair(alg, { modulusLength: bits, extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = opts.kid ?? (await calculateJwkThumbprint({ kty: 'RSA', n: pub.n, e: pub.e }, 'sha256'));
  return { kid, use, alg, bits, privateKey, publicKey };
}

/** Generates both service key pairs: `{ enc: RSA-OAEP-256, sig: RS256 }`. */
export async function generateServiceKeys(opts: { bits?: 2048 | 3072 } = {}): Promise<{ enc: ServiceKeyPair; sig: ServiceKeyPair }> {
  const [enc, sig] = await Promise.all([generateServiceKeyPair('enc', opts), generateServiceKeyPair('sig', opts)]);
  return { enc, sig };
}

/**
 * Public JWK of a service key for `/.well-known/jwks.json`: exactly
 * `{ kty, n, e, kid, use, alg }` (RFC 7517 §4), never a private member.
 */
export async function exportPublicJwk(pair: Pick<ServiceKeyPair, 'kid' | 'use' | 'alg' | 'publicKey'>): Promise<ServicePublicJwk> {
  const jwk = await exportJWK(pair.publicKey);
  if (jwk.kty !== 'RSA' || typeof jwk.n !== 'string' || typeof jwk.e !== 'string') {
    throw new InvalidKeyError('service key is not an RSA public key');
  }
  return { kty: 'RSA', n: jwk.n, e: jwk.e, kid: pair.kid, use: pair.use, alg: pair.alg };
}

/** JWKS document (RFC 7517 §5) of the given service keys' public halves: `{ keys: [...] }`. */
export async function exportJwks(pairs: ReadonlyArray<Pick<ServiceKeyPair, 'kid' | 'use' | 'alg' | 'publicKey'>>): Promise<{ keys: ServicePublicJwk[] }> {
  return { keys: await Promise.all(pairs.map((p) => exportPublicJwk(p))) };
}

/** Private JWK of a service key for storage (keep it secret): includes kid, use, alg. */
export async function exportServicePrivateJwk(pair: ServiceKeyPair): Promise<JWK> {
  const jwk = await exportJWK(pair.privateKey);
  return { ...jwk, kid: pair.kid, use: pair.use, alg: pair.alg };
}

/**
 * Re-imports a stored service private JWK (as written by {@link exportServicePrivateJwk}).
 * Throws InvalidKeyError when the JWK is not an RSA private key of 2048+ bits or its `use`
 * disagrees with the requested one.
 */
export async function importServicePrivateJwk(jwk: JWK, use: 'enc' | 'sig'): Promise<ServiceKeyPair> {
  if (jwk.kty !== 'RSA' || typeof jwk.d !== 'string' || typeof jwk.n !== 'string' || typeof jwk.e !== 'string') {
    throw new InvalidKeyError('not an RSA private JWK');
  }
  if (jwk.use !== undefined && jwk.use !== use) throw new InvalidKeyError('use mismatch');
  const bits = modulusBits(jwk.n);
  if (bits !== 2048 && bits !== 3072) throw new InvalidKeyError('service keys are 2048 or 3072 bits');
  const alg = use === 'enc' ? 'RSA-OAEP-256' : 'RS256';
  const { kty, n, e, d, p, q, dp, dq, qi } = jwk;
  try {
    const privateKey = (await importJWK({ kty, n, e, d, p, q, dp, dq, qi }, alg, { extractable: true })) as CryptoKey;
    const publicKey = (await importJWK({ kty, n, e }, alg)) as CryptoKey;
    const kid = jwk.kid ?? (await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e }, 'sha256'));
    return { kid, use, alg, bits, privateKey, publicKey };
  } catch {
    throw new InvalidKeyError('RSA private key could not be imported');
  }
}
