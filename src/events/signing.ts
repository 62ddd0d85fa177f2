/**
 * Standard Webhooks signing (symmetric scheme; https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md,
 * "Signature scheme" and "Webhook headers"): the content signed is `{webhook-id}.{webhook-timestamp}.{body}`,
 * HMAC-SHA256 keyed by the base64-decoded secret after `whsec_`, sent as `v1,<base64 signature>`.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of a serialized signing secret (Standard Webhooks "Secret serialization"). */
export const SECRET_PREFIX = 'whsec_';

/** Random bytes of a new secret: the spec asks for 24 to 64; 32 is HMAC-SHA256's block-safe key size. */
const SECRET_BYTES = 32;

/** Thrown for a secret that is not `whsec_` + base64 of 24 to 64 bytes. */
export class SecretFormatError extends Error {}

/** A new endpoint signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a `whsec_...` secret; throws `SecretFormatError`. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new SecretFormatError('secret must start with whsec_');
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new SecretFormatError('secret is not base64');
  const key = Buffer.from(b64, 'base64');
  if (key.length < 24 || key.length > 64) throw new SecretFormatError('secret must hold 24 to 64 bytes');
  return key;
}

/**
 * The `webhook-signature` value for one attempt: `v1,` + base64 HMAC-SHA256 over
 * `${msgId}.${timestampSec}.${body}` (body: the exact bytes sent). `timestampSec` is integer
 * seconds since the epoch. Throws `SecretFormatError` for a malformed secret.
 */
export function sign(secret: string, msgId: string, timestampSec: number, body: string): string {
  if (!Number.isInteger(timestampSec)) throw new RangeError('timestamp must be integer seconds');
  const mac = createHmac('sha256', secretKey(secret)).update(`${msgId}.${timestampSec}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers of one attempt (plus the JSON content type). Several
 * secrets (the current one first, then one still in its rotation overlap) give several
 * signatures, space-delimited (`v1,sig1 v1,sig2`: the spec's "Signature scheme" for key rotation);
 * a receiver accepts the message when any one verifies.
 */
export function webhookHeaders(secrets: string | readonly string[], msgId: string, timestampSec: number, body: string): Record<string, string> {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': list.map((s) => sign(s, msgId, timestampSec, body)).join(' '),
  };
}

/** Associated data binding an endpoint's encrypted secret to its row (see crypto/field-cipher). */
export const endpointSecretAad = (endpointId: string): string => `event-endpoint:${endpointId}`;
