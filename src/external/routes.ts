/**
 * Routes of the encrypted employee details (V2): docs/api.md "Encrypted employee
 * details (V2)" and the service JWKS of docs/v2.md "JWKS".
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import { serviceJwkSchema } from './schema';
import type { ExternalService } from './service';

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
        .meta({ description: "A JWE (RSA-OAEP-256, A256GCM) to the vendor's newest key, holding a JWS (RS256) by the service of `{employee, iat, jti}`." }),
      doc: {
        operationId: 'getEmployeeEncrypted',
        tag: 'external',
        extra: { status_code: z.literal('success'), status: z.literal(200) },
        summary: 'V2: one employee, unmasked and filtered to what the connection shares, signed and encrypted both ways.',
        description: [
          "`encrypted_payload` is a JWE (`RSA-OAEP-256`/`A256GCM`, `cty: JWT`) to the service's `enc` key (`/.well-known/jwks.json`)",
          'of a JWS (`RS256`, `typ: JWT`) signed with a key registered for the vendor, with claims `connection_id`, `employee_id`,',
          '`source` (`db` or `hrms`), `iat`, `exp` (at most 300 s after `iat`) and a unique `jti`. Anything that fails to decrypt,',
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
