/**
 * Opening a V2 encrypted employee-details request (docs/api.md "Encrypted employee details
 * (V2)", docs/v2.md): JWE compact (RFC 7516 §7.1) with `alg` RSA-OAEP-256 and `enc` A256GCM
 * (RFC 7518 §4.3, §5.3), `cty: JWT` (RFC 7519 §5.2), wrapping a JWS compact (RFC 7515 §7.1) with
 * `alg` RS256 (RFC 7518 §3.3), `typ: JWT` (RFC 7519 §5.1), whose payload is the
 * EmployeeEncryptedPayload claims set.
 *
 * Every header is parsed and checked by hand BEFORE any cryptographic operation, then `jose`
 * performs the decryption / verification with the same algorithms pinned. Every failure is an
 * {@link InvalidEncryptedPayload}; its `reason` is fixed text for logs (no key material, no header
 * or claim values) and must never reach the client, who only sees `400 Invalid encrypted payload`.
 *
 * Replay protection (`jti`) is the caller's job: keep the jti until the returned `exp`.
 */
import { compactDecrypt, compactVerify } from 'jose';
import type { CryptoKey, KeyObject } from 'jose';
import { MIN_RSA_BITS } from './keys';
import { isUuid } from '../../domain/ids';

/** Client-facing message for any failure (docs/api.md "Conventions"). */
export const INVALID_ENCRYPTED_PAYLOAD = 'Invalid encrypted payload';
/** Upper bound on the whole JWE compact string (characters). */
export const MAX_JWE_CHARS = 64 * 1024;
/** Upper bound on the inner JWS compact string (characters). */
export const MAX_JWS_CHARS = 48 * 1024;
/** Upper bound on an encoded protected header (characters). */
export const MAX_HEADER_CHARS = 2048;
/** Largest accepted clock tolerance, seconds (docs/v2.md). */
export const MAX_CLOCK_TOLERANCE_SEC = 30;
/** Largest accepted `exp - iat`, seconds (docs/v2.md). */
export const MAX_LIFETIME_SEC = 300;

/** A service decryption key (current or recently retired `enc` key). */
export interface DecryptKey {
  kid: string;
  privateKey: CryptoKey | KeyObject;
}

/** A public key registered for the calling vendor org; `bits` is its modulus length. */
export interface VendorVerifyKey {
  kid: string;
  publicKey: CryptoKey | KeyObject;
  bits: number;
}

/** Validated EmployeeEncryptedPayload claims (docs/v2.md); `source` defaulted to `db`. */
export interface V2Claims {
  connection_id: string;
  employee_id: string;
  source: 'db' | 'hrms';
  iat: number;
  exp: number;
  jti: string;
  /** What is read (docs/v2.md "Pay history"): `employee` (no claim) or `pay_history`. */
  resource: V2Resource;
  /** With `resource: pay_history`: how many months, 1..{@link V2_MAX_MONTHS} (default 12). */
  months: number;
}

/** The readable resources of a V2 request (docs/v2.md "Pay history"). */
export type V2Resource = 'employee' | 'pay_history';
/** Largest `months` claim: the pay months kept (docs/pay-history.md "What is kept"). */
export const V2_MAX_MONTHS = 36;
/** `months` when a pay history request names none (docs/pay-history.md "Read"). */
export const V2_DEFAULT_MONTHS = 12;

/** Time options for {@link verifyRequestJws}. */
export interface VerifyOptions {
  /** Current time, unix seconds (default: now). */
  now?: number;
  /** Allowed clock skew in seconds; clamped to [0, 30]; default 30. */
  clockToleranceSec?: number;
  /** Largest `exp - iat`; clamped to [1, 300]; default 300. */
  maxLifetimeSec?: number;
}

/** Options for {@link decryptRequestJwe}. */
export interface DecryptOptions {
  /**
   * Require `cty: JWT` (default true, and always true in {@link openEncryptedRequest}).
   * Only known-answer tests against third-party vectors that carry no `cty` turn it off; even
   * then a present `cty` must be `JWT`.
   */
  requireCty?: boolean;
}

/**
 * The only error this module raises for bad input. `message` is the client-facing text
 * (`Invalid encrypted payload`); `reason` says which check failed, for logs only.
 */
export class InvalidEncryptedPayload extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(INVALID_ENCRYPTED_PAYLOAD);
    this.name = 'InvalidEncryptedPayload';
    this.reason = reason;
  }
}

function fail(reason: string): never {
  throw new InvalidEncryptedPayload(reason);
}

const B64URL_PART = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Header parameters that carry or point at keys or belong to other algorithms: never honoured. */
const FORBIDDEN_JWE_PARAMS = ['zip', 'crit', 'jku', 'jwk', 'x5u', 'x5c', 'epk', 'apu', 'apv', 'p2s', 'p2c', 'iv', 'tag', 'b64'];
const FORBIDDEN_JWS_PARAMS = ['crit', 'b64', 'jku', 'jwk', 'x5u', 'x5c', 'zip'];
const ALLOWED_CLAIMS = new Set(['connection_id', 'employee_id', 'source', 'resource', 'months', 'iat', 'exp', 'jti']);
const REQUIRED_CLAIMS = ['connection_id', 'employee_id', 'iat', 'exp', 'jti'] as const;

/**
 * Splits a compact serialization into exactly `count` non-empty, canonical, unpadded base64url
 * parts (RFC 7515 §2 "Base64url Encoding", RFC 7516 §7.1). `what` names the structure in reasons.
 */
function splitCompact(token: unknown, count: number, maxChars: number, what: string): string[] {
  if (typeof token !== 'string') fail(`${what}: not a string`);
  const s = token;
  if (s.length === 0) fail(`${what}: empty`);
  if (s.length > maxChars) fail(`${what}: too large`);
  const parts = s.split('.');
  if (parts.length !== count) fail(`${what}: expected ${count} compact parts`);
  parts.forEach((p, i) => {
    if (!B64URL_PART.test(p)) fail(`${what}: part ${i} is empty or not base64url`);
    // Canonical form only: rejects lengths ≡ 1 (mod 4) and non-zero trailing bits.
    if (Buffer.from(p, 'base64url').toString('base64url') !== p) fail(`${what}: part ${i} is not canonical base64url`);
  });
  return parts;
}

/** Decodes a base64url protected header to a JSON object (RFC 7515 §5.2 steps 2–4). */
function parseHeader(b64: string, what: string): Record<string, unknown> {
  if (b64.length > MAX_HEADER_CHARS) fail(`${what}: protected header too large`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(Buffer.from(b64, 'base64url')));
  } catch {
    return fail(`${what}: protected header is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) fail(`${what}: protected header is not an object`);
  return parsed as Record<string, unknown>;
}

function checkKid(kid: unknown, what: string): string | undefined {
  if (kid === undefined) return undefined;
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 200) return fail(`${what}: kid malformed`);
  return kid;
}

/**
 * Decrypts a request JWE with one of the service's `enc` keys.
 *
 * Checks, in order, before decrypting: string of 1..64 KiB, exactly 5 canonical base64url parts
 * (RFC 7516 §7.1; JSON serialization is refused), protected header a JSON object with
 * `alg` === RSA-OAEP-256, `enc` === A256GCM, `cty` === JWT (see {@link DecryptOptions}), no `zip`
 * (RFC 7516 §4.1.3), no `crit` at all (§4.1.13: we understand no extension), no key-carrying or
 * foreign-algorithm parameters, `kid` (if any) one of `keys`' kids. With a kid only that key is
 * tried, otherwise each key in turn. jose's `compactDecrypt` runs with the same algorithms pinned;
 * AES-GCM authenticates header (as AAD, RFC 7516 §5.1 step 14), IV, ciphertext and tag.
 *
 * Returns the plaintext and the kid of the key that decrypted it.
 * Throws InvalidEncryptedPayload on any failure; Error when `keys` is empty (misconfiguration).
 */
export async function decryptRequestJwe(jwe: string, keys: DecryptKey[], opts: DecryptOptions = {}): Promise<{ plaintext: Uint8Array; kid?: string }> {
  if (keys.length === 0) throw new Error('no service decryption keys configured');
  const parts = splitCompact(jwe, 5, MAX_JWE_CHARS, 'jwe');
  const header = parseHeader(parts[0] as string, 'jwe');
  if (header.alg !== 'RSA-OAEP-256') fail('jwe: alg not allowed');
  if (header.enc !== 'A256GCM') fail('jwe: enc not allowed');
  if (header.cty !== undefined ? header.cty !== 'JWT' : opts.requireCty !== false) fail('jwe: cty must be JWT');
  for (const p of FORBIDDEN_JWE_PARAMS) if (p in header) fail(`jwe: header parameter ${p} not allowed`);
  const kid = checkKid(header.kid, 'jwe');
  let candidates = keys;
  if (kid !== undefined) {
    candidates = keys.filter((k) => k.kid === kid);
    if (candidates.length === 0) fail('jwe: unknown kid');
  }
  for (const key of candidates) {
    try {
      const { plaintext } = await compactDecrypt(jwe, key.privateKey, {
        keyManagementAlgorithms: ['RSA-OAEP-256'],
        contentEncryptionAlgorithms: ['A256GCM'],
      });
      return { plaintext, kid: key.kid };
    } catch {
      // Try the next key; all failures look the same from outside.
    }
  }
  return fail('jwe: decryption failed');
}

function rsaBits(key: CryptoKey | KeyObject): number | undefined {
  const alg = (key as { algorithm?: { modulusLength?: unknown } }).algorithm;
  if (alg && typeof alg.modulusLength === 'number') return alg.modulusLength;
  const details = (key as { asymmetricKeyDetails?: { modulusLength?: unknown } }).asymmetricKeyDetails;
  if (details && typeof details.modulusLength === 'number') return details.modulusLength;
  return undefined;
}

function clamp(v: number | undefined, lo: number, hi: number, dflt: number): number {
  if (v === undefined || !Number.isFinite(v)) return dflt;
  return Math.min(hi, Math.max(lo, Math.floor(v)));
}

/**
 * Validates the EmployeeEncryptedPayload claims (docs/v2.md): exactly
 * {connection_id, employee_id, source?, iat, exp, jti}; connection_id a UUID (returned lowercase),
 * employee_id 1..128 chars, source `db` (default) or `hrms`, resource absent (the employee) or
 * `pay_history`, months (only with `resource`) an integer 1..36 (default 12), iat/exp integers (RFC 7519 §2
 * NumericDate, integral here), `iat ≤ now + tol`, `exp > now - tol` (RFC 7519 §4.1.4),
 * `0 < exp - iat ≤ maxLifetime`, jti 1..200 chars. Throws InvalidEncryptedPayload.
 */
export function validateClaims(payload: unknown, opts: VerifyOptions = {}): V2Claims {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return fail('claims: not an object');
  const c = payload as Record<string, unknown>;
  for (const k of Object.keys(c)) if (!ALLOWED_CLAIMS.has(k)) fail('claims: unexpected claim');
  for (const k of REQUIRED_CLAIMS) if (!(k in c)) fail(`claims: missing ${k}`);
  const { connection_id, employee_id, source, resource, months, iat, exp, jti } = c;
  if (typeof connection_id !== 'string' || !isUuid(connection_id)) fail('claims: connection_id must be a UUID');
  if (typeof employee_id !== 'string' || employee_id.trim().length === 0 || employee_id.length > 128) {
    fail('claims: employee_id must be a non-empty string of at most 128 characters');
  }
  if (source !== undefined && source !== 'db' && source !== 'hrms') fail('claims: source must be db or hrms');
  if (resource !== undefined && resource !== 'pay_history') fail('claims: unknown resource');
  if (months !== undefined && resource === undefined) fail('claims: months without resource');
  if (months !== undefined && (!Number.isSafeInteger(months) || (months as number) < 1 || (months as number) > V2_MAX_MONTHS)) {
    fail('claims: months must be an integer in 1..36');
  }
  if (!Number.isSafeInteger(iat) || (iat as number) < 0) fail('claims: iat must be a non-negative integer');
  if (!Number.isSafeInteger(exp) || (exp as number) < 0) fail('claims: exp must be a non-negative integer');
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 200) fail('claims: jti must be a non-empty string of at most 200 characters');
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tol = clamp(opts.clockToleranceSec, 0, MAX_CLOCK_TOLERANCE_SEC, MAX_CLOCK_TOLERANCE_SEC);
  const maxLife = clamp(opts.maxLifetimeSec, 1, MAX_LIFETIME_SEC, MAX_LIFETIME_SEC);
  const iatN = iat as number;
  const expN = exp as number;
  if (iatN > now + tol) fail('claims: iat in the future');
  if (expN <= now - tol) fail('claims: expired');
  if (expN - iatN <= 0) fail('claims: exp not after iat');
  if (expN - iatN > maxLife) fail('claims: lifetime too long');
  return {
    connection_id: connection_id.toLowerCase(),
    employee_id: employee_id,
    source: source ?? 'db',
    resource: resource ?? 'employee',
    months: (months as number | undefined) ?? V2_DEFAULT_MONTHS,
    iat: iatN,
    exp: expN,
    jti: jti,
  };
}

/**
 * Verifies the inner JWS and validates its claims.
 *
 * Checks: exactly 3 canonical non-empty base64url parts (RFC 7515 §7.1), header a JSON object with
 * `alg` === RS256 (so `none`, HS256, PS256… are refused, RFC 7518 §3.1), `typ` === JWT (RFC 7519
 * §5.1, required here), no `crit` (RFC 7515 §4.1.11) nor `b64`, no embedded/remote keys, `kid` (if
 * any) naming a registered vendor key; keys under 2048 bits are never used (RFC 7518 §3.3).
 * jose's `compactVerify` runs with `algorithms: ['RS256']`. Then {@link validateClaims}.
 *
 * Returns V2Claims; throws InvalidEncryptedPayload on any failure.
 */
export async function verifyRequestJws(jws: string, vendorKeys: VendorVerifyKey[], opts: VerifyOptions = {}): Promise<V2Claims> {
  const parts = splitCompact(jws, 3, MAX_JWS_CHARS, 'jws');
  const header = parseHeader(parts[0] as string, 'jws');
  if (header.alg !== 'RS256') fail('jws: alg not allowed');
  if (header.typ !== 'JWT') fail('jws: typ must be JWT');
  for (const p of FORBIDDEN_JWS_PARAMS) if (p in header) fail(`jws: header parameter ${p} not allowed`);
  const kid = checkKid(header.kid, 'jws');
  let candidates = vendorKeys;
  if (kid !== undefined) {
    candidates = vendorKeys.filter((k) => k.kid === kid);
    if (candidates.length === 0) fail('jws: unknown kid');
  }
  candidates = candidates.filter((k) => k.bits >= MIN_RSA_BITS && (rsaBits(k.publicKey) ?? 0) >= MIN_RSA_BITS);
  if (candidates.length === 0) fail('jws: no usable vendor key (missing or under 2048 bits)');
  let payload: Uint8Array | undefined;
  for (const key of candidates) {
    try {
      payload = (await compactVerify(jws, key.publicKey, { algorithms: ['RS256'] })).payload;
      break;
    } catch {
      // Try the next registered key.
    }
  }
  if (payload === undefined) return fail('jws: signature verification failed');
  let claims: unknown;
  try {
    claims = JSON.parse(utf8.decode(payload));
  } catch {
    return fail('jws: payload is not JSON');
  }
  return validateClaims(claims, opts);
}

/**
 * Full V2 request path: {@link decryptRequestJwe} (cty required) → plaintext must be UTF-8 →
 * {@link verifyRequestJws}. Returns V2Claims (keep `jti` until `exp` for replay refusal);
 * throws InvalidEncryptedPayload on any failure.
 */
export async function openEncryptedRequest(jwe: string, decryptKeys: DecryptKey[], vendorKeys: VendorVerifyKey[], opts: VerifyOptions = {}): Promise<V2Claims> {
  const { plaintext } = await decryptRequestJwe(jwe, decryptKeys);
  let jws: string;
  try {
    jws = utf8.decode(plaintext);
  } catch {
    return fail('jwe: plaintext is not UTF-8');
  }
  return verifyRequestJws(jws, vendorKeys, opts);
}
