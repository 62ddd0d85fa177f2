/**
 * Schemas of the service JWKS shared by the routes that publish it: `/.well-known/jwks.json`
 * (docs/v2.md "JWKS") and `/.well-known/jwt-vc-issuer` (docs/credentials.md "Keys and metadata").
 */
import { z } from 'zod';

const rsaJwkSchema = z.strictObject({
  kty: z.literal('RSA'),
  n: z.string(),
  e: z.string(),
  kid: z.string(),
  use: z.enum(['enc', 'sig']),
  alg: z.enum(['RSA-OAEP-256', 'RS256']),
});

/** The ES256 key that signs credentials and status lists (docs/credentials.md "Keys and metadata"). */
const ecJwkSchema = z.strictObject({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  x: z.string(),
  y: z.string(),
  kid: z.string(),
  use: z.literal('sig'),
  alg: z.literal('ES256'),
});

/** One key of the service JWKS. */
export const serviceJwkSchema = z.union([rsaJwkSchema, ecJwkSchema]);
