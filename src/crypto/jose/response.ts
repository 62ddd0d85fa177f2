/**
 * Sealing a V2 encrypted employee-details response (docs/v2.md): a JWS compact (RFC 7515 §7.1)
 * signed RS256 (RFC 7518 §3.3) by the service's `sig` key, header `{alg: RS256, typ: JWT, kid}`,
 * over the JSON `{ employee, iat, jti }` (or `{ pay_history, iat, jti }`, docs/v2.md "Pay history"); then a JWE compact (RFC 7516 §7.1) with
 * `{alg: RSA-OAEP-256, enc: A256GCM, cty: JWT, kid}` (RFC 7518 §4.3, §5.3; RFC 7519 §5.2)
 * encrypted to the vendor's most recently registered active key.
 */
import { CompactEncrypt, CompactSign } from 'jose';
import type { CryptoKey, KeyObject } from 'jose';

/** Input of {@link sealResponse}. */
export interface SealResponseInput {
  /**
   * What is sealed beside `iat` and `jti`: `{employee}` (the unmasked, data-point-filtered
   * record) or `{pay_history}` (docs/v2.md "Pay history"). Must be JSON-serialisable.
   */
  body: { employee: unknown } | { pay_history: unknown };
  /** The request id of the call (docs/v2.md: `jti: <requestId>`). */
  jti: string;
  /** Issue time, unix seconds (default: now). */
  now?: number;
  /** Service RS256 signing key (`use: sig`). */
  signingKey: { kid: string; privateKey: CryptoKey | KeyObject };
  /** Vendor RSA-OAEP-256 public key (at least 2048 bits, jose enforces it). */
  vendorKey: { kid: string; publicKey: CryptoKey | KeyObject };
}

const encoder = new TextEncoder();

/**
 * Signs then encrypts `{ ...body, iat, jti }`. Returns the JWE compact string (5 parts).
 * Throws whatever jose throws for unusable keys (TypeError / JOSENotSupported) — a server fault.
 */
export async function sealResponse(input: SealResponseInput): Promise<string> {
  const { body, jti, signingKey, vendorKey } = input;
  if (typeof jti !== 'string' || jti.length === 0) throw new TypeError('jti must be a non-empty string');
  const iat = input.now ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(iat)) throw new TypeError('now must be an integer (unix seconds)');
  const payload = encoder.encode(JSON.stringify({ ...body, iat, jti }));
  const jws = await new CompactSign(payload).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signingKey.kid }).sign(signingKey.privateKey);
  return new CompactEncrypt(encoder.encode(jws))
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: vendorKey.kid })
    .encrypt(vendorKey.publicKey);
}
