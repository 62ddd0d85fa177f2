/**
 * Routes of the encrypted employee details (V2): docs/api.md "Encrypted employee
 * details (V2)" and the service JWKS of docs/v2.md "JWKS".
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import { serviceJwkSchema } from './schema';
import type { ExternalService } from './service';

const isoMs = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** A vendor key as listed (`hrx keys list` prints the same rows). */
const vendorKeySchema = z.strictObject({
  kid: z.string(),
  bits: z.number().int(),
  use: z.string().nullable(),
  alg: z.string().nullable(),
  status: z.enum(['active', 'revoked']),
  created_at: isoMs,
  revoked_at: isoMs.nullable(),
});

/** Builds the V2 routes over the service. */
export function externalRoutes(external: ExternalService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: '/api/external/employee/',
      credential: 'vendorBasic',
      role: 'vendor',
      bodyType: 'json',
      body: z.strictObject({ encrypted_payload: z.string() }),
      response: z
        .string()
        .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){4}$/)
        .meta({
          description:
            'A JWE (RSA-OAEP-256, A256GCM) to the vendor\'s newest key, holding a JWS (RS256) by the service of `{employee, iat, jti}` (or `{pay_history, iat, jti}` for `resource: "pay_history"`).',
        }),
      doc: {
        operationId: 'getEmployeeEncrypted',
        tag: 'external',
        extra: { status_code: z.literal('success'), status: z.literal(200) },
        summary: 'V2: one employee, unmasked and filtered to what the connection shares, signed and encrypted both ways.',
        description: [
          "`encrypted_payload` is a JWE (`RSA-OAEP-256`/`A256GCM`, `cty: JWT`) to the service's `enc` key (`/.well-known/jwks.json`)",
          'of a JWS (`RS256`, `typ: JWT`) signed with a key registered for the vendor, with claims `connection_id`, `employee_id`,',
          '`source` (`db` or `hrms`), `iat`, `exp` (at most 300 s after `iat`) and a unique `jti`; optionally `resource: "pay_history"`',
          'with `months` (1 to 36, default 12) for the pay history of `GET /api/employee_details/{id}/pay_history/`. Anything that fails to decrypt,',
          "verify or validate, or a replayed `jti`, is `400 Invalid encrypted payload`; a connection that is not the caller's",
          'approved one is `404 Invalid Connection ID`. `hrx client employee` builds the request and opens the answer.',
        ].join(' '),
        errors: ['INVALID_ENCRYPTED_PAYLOAD', 'INVALID_CONNECTION', 'EMPLOYEE_NOT_FOUND', 'CONSENT_MISSING', 'SOURCE_PERMISSION_DENIED'],
      },
      async handler({ body, principal, requestId, log }) {
        const data = await external.employee({ principal: principal, encryptedPayload: body.encrypted_payload, requestId, log });
        // Body order: requestId, message, status_code, status, data (the router spreads `extra` before `data`).
        return { data, extra: { status_code: 'success', status: 200 } };
      },
    }),
    ...vendorKeyRoutes(external),
    route({
      method: 'GET',
      path: '/.well-known/jwks.json',
      credential: 'none',
      response: z.strictObject({ keys: z.array(serviceJwkSchema).min(3) }),
      doc: {
        operationId: 'getJwks',
        tag: 'external',
        answer: 'raw',
        summary:
          "The service's public keys (JWKS): `enc` to encrypt V2 requests to, `sig` RS256 to verify V2 answers and SDK tokens, `sig` ES256 to verify credentials and status lists.",
        description: 'Current keys first, then keys still in their grace period after a rotation.',
      },
      handler: async () => ({ raw: await external.jwks() }),
    }),
  ];
}

/**
 * The vendor's own keys (docs/api.md "Vendor self-service", docs/v2.md "Vendor keys"): the
 * operator's `hrx keys add|list|revoke` over the vendor's API key, only its own keys.
 */
function vendorKeyRoutes(external: ExternalService): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: '/api/vendor/keys/',
      credential: 'apiKey',
      role: 'vendor',
      response: z.array(vendorKeySchema),
      doc: {
        operationId: 'listVendorKeys',
        tag: 'external',
        summary: "Lists the calling vendor's public keys (V2 and the credential), revoked ones included, newest first.",
      },
      handler: async ({ principal }) => ({ data: await external.listVendorKeys(principal.orgUuid) }),
    }),
    route({
      method: 'POST',
      path: '/api/vendor/keys/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      bodyType: 'json',
      body: z.strictObject({ jwk: z.record(z.string(), z.unknown()) }),
      response: vendorKeySchema,
      doc: {
        operationId: 'addVendorKey',
        tag: 'external',
        status: 201,
        summary: 'Registers a public RSA key of the calling vendor (2048 to 8192 bits); answers `201` with the key as listed.',
        description: [
          '`jwk` is the PUBLIC JWK (no private members); its `kid`, else its RFC 7638 thumbprint, names it and must be new for the vendor',
          '(revoked keys included). `use`/`alg` (`sig`/`RS256`, `enc`/`RSA-OAEP-256`) limit what it serves; V2 answers are encrypted to',
          'the newest active key that can encrypt.',
        ].join(' '),
      },
      handler: async ({ principal, body }) => ({ status: 201, data: await external.addOwnVendorKey(principal.orgUuid, body.jwk) }),
    }),
    route({
      method: 'DELETE',
      path: '/api/vendor/keys/:kid/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      params: z.object({ kid: z.string() }),
      response: z.strictObject({ kid: z.string(), revoked: z.literal(true) }),
      doc: {
        operationId: 'revokeVendorKey',
        tag: 'external',
        summary: "Revokes one of the calling vendor's keys: V2 requests it signed are refused in every API process within 5 seconds.",
        description: "Another vendor's key, a revoked one and an unknown `kid` are `404 Not found.` alike.",
        errors: ['NOT_FOUND'],
      },
      async handler({ principal, params }) {
        await external.revokeVendorKey(principal.orgUuid, params.kid);
        return { data: { kid: params.kid, revoked: true as const } };
      },
    }),
  ];
}
