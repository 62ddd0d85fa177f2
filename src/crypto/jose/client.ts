/**
 * Vendor-side helper for the V2 encrypted employee-details endpoint (docs/api.md "Encrypted employee
 * details (V2)", docs/v2.md). What a vendor (or our demo, SDK and tests) runs:
 *
 * - {@link buildEncryptedRequest}: claims → JWS RS256 `typ: JWT` (RFC 7515, RFC 7518 §3.3) signed
 *   with the vendor key → JWE RSA-OAEP-256 / A256GCM `cty: JWT` (RFC 7516, RFC 7518 §4.3, §5.3)
 *   to the service's `enc` key, its `kid` in the JWE header.
 * - {@link openEncryptedResponse}: response `data` → decrypt with the vendor key → verify the
 *   service's RS256 signature against its published JWKS → `{ employee, iat, jti }`.
 */
import { randomUUID } from 'node:crypto';
import { CompactEncrypt, CompactSign, compactDecrypt, compactVerify, createLocalJWKSet, importJWK } from 'jose';
import type { CryptoKey, JSONWebKeySet, JWK, KeyObject } from 'jose';
import { importRsaPublicJwk } from './keys';
import { InvalidEncryptedPayload } from './request';

/** A private key given as a CryptoKey/KeyObject for the right algorithm, or as a private JWK. */
export type VendorPrivateKeyInput = CryptoKey | KeyObject | JWK;

/** Input of {@link buildEncryptedRequest}. */
export interface BuildRequestInput {
  connectionId: string;
  employeeId: string;
  source?: 'db' | 'hrms';
  /** `pay_history` asks for the pay months instead of the record (docs/v2.md "Pay history"). */
  resource?: 'pay_history';
  /** With `resource`: how many months, 1..36 (the service's default is 12). */
  months?: number;
  /** Vendor private key; a CryptoKey/KeyObject must be usable for RS256. */
  vendorPrivateKey: VendorPrivateKeyInput;
  /** kid of the vendor's registered key, put in the JWS header when given. */
  vendorKid?: string;
  /** The service's `enc` public JWK (from its JWKS); kid = its `kid` or RFC 7638 thumbprint. */
  servicePublicJwk: JWK;
  /** Issue time, unix seconds (default: now). */
  now?: number;
  /** exp − iat in seconds, 1..300 (default 120). */
  ttlSec?: number;
  /** Token id (default: random UUID). */
  jti?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

async function asKey(key: VendorPrivateKeyInput, alg: 'RS256' | 'RSA-OAEP-256'): Promise<CryptoKey | KeyObject> {
  const tag = (key as { [Symbol.toStringTag]?: string })[Symbol.toStringTag];
  if (tag === 'CryptoKey' || tag === 'KeyObject') return key as CryptoKey | KeyObject;
  const { alg: _a, use: _u, key_ops: _k, ...material } = key as JWK;
  return (await importJWK(material, alg)) as CryptoKey;
}

/**
 * Builds the `encrypted_payload` string of a V2 request.
 * Claims: `{ connection_id, employee_id, source?, resource?, months?, iat, exp, jti }` (each
 * optional claim omitted when absent).
 * Returns the JWE compact string. Throws RangeError for ttlSec outside 1..300, InvalidKeyError
 * (keys.ts) for an unusable service JWK, jose errors for an unusable vendor key.
 */
export async function buildEncryptedRequest(input: BuildRequestInput): Promise<string> {
  const iat = input.now ?? Math.floor(Date.now() / 1000);
  const ttl = input.ttlSec ?? 120;
  if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > 300) throw new RangeError('ttlSec must be an integer in 1..300');
  const claims: Record<string, unknown> = { connection_id: input.connectionId, employee_id: input.employeeId };
  if (input.source !== undefined) claims.source = input.source;
  if (input.resource !== undefined) claims.resource = input.resource;
  if (input.months !== undefined) claims.months = input.months;
  Object.assign(claims, { iat, exp: iat + ttl, jti: input.jti ?? randomUUID() });
  const signingKey = await asKey(input.vendorPrivateKey, 'RS256');
  const jwsHeader = input.vendorKid === undefined ? { alg: 'RS256', typ: 'JWT' } : { alg: 'RS256', typ: 'JWT', kid: input.vendorKid };
  const jws = await new CompactSign(encoder.encode(JSON.stringify(claims))).setProtectedHeader(jwsHeader).sign(signingKey);
  const service = await importRsaPublicJwk(input.servicePublicJwk, 'RSA-OAEP-256');
  return new CompactEncrypt(encoder.encode(jws)).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: service.kid }).encrypt(service.key);
}

/** Input of {@link openEncryptedResponse}. */
export interface OpenResponseInput {
  /** The response envelope's `data` string. */
  data: string;
  /** Vendor private key; a CryptoKey/KeyObject must be usable for RSA-OAEP-256. */
  vendorPrivateKey: VendorPrivateKeyInput;
  /** The service's JWKS (`GET /.well-known/jwks.json`); only RS256-capable keys are used. */
  serviceSigningJwks: JSONWebKeySet;
}

/**
 * Opens a V2 response: JWE (alg RSA-OAEP-256, enc A256GCM, cty JWT, pinned) → JWS RS256 with
 * `typ: JWT`, verified against `serviceSigningJwks` (selected by kid, RFC 7517 §4.5) → payload
 * `{ employee, iat, jti }`, or `{ pay_history, iat, jti }` for a pay history request (then
 * `employee` is undefined). Throws InvalidEncryptedPayload (reason for diagnostics) on failure.
 */
export async function openEncryptedResponse(input: OpenResponseInput): Promise<{ employee: unknown; pay_history?: unknown; iat: number; jti: string }> {
  let decryptKey: CryptoKey | KeyObject;
  try {
    decryptKey = await asKey(input.vendorPrivateKey, 'RSA-OAEP-256');
  } catch {
    throw new InvalidEncryptedPayload('response: vendor private key unusable');
  }
  let jws: string;
  try {
    const { plaintext, protectedHeader } = await compactDecrypt(input.data, decryptKey, {
      keyManagementAlgorithms: ['RSA-OAEP-256'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    if (protectedHeader.cty !== 'JWT' || 'zip' in protectedHeader || 'crit' in protectedHeader) throw new Error('header');
    jws = decoder.decode(plaintext);
  } catch {
    throw new InvalidEncryptedPayload('response: decryption failed');
  }
  let payload: Uint8Array;
  try {
    const jwks = createLocalJWKSet(input.serviceSigningJwks);
    const res = await compactVerify(jws, jwks, { algorithms: ['RS256'] });
    if (res.protectedHeader.typ !== 'JWT' || 'crit' in res.protectedHeader) throw new Error('header');
    payload = res.payload;
  } catch {
    throw new InvalidEncryptedPayload('response: signature verification failed');
  }
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(payload));
  } catch {
    throw new InvalidEncryptedPayload('response: payload is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidEncryptedPayload('response: payload is not an object');
  const { employee, pay_history, iat, jti } = body as Record<string, unknown>;
  if (!('employee' in body || 'pay_history' in body) || !Number.isSafeInteger(iat) || typeof jti !== 'string') {
    throw new InvalidEncryptedPayload('response: payload shape');
  }
  return 'pay_history' in body ? { employee: undefined, pay_history, iat: iat as number, jti } : { employee, iat: iat as number, jti };
}
