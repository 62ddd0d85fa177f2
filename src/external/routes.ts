/**
 * Routes of the encrypted employee details (V2): interface.md "Get employee details, encrypted
 * (V2)" and the service JWKS of decisions §9.
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import type { ExternalService } from './service';

const jwkSchema = z.strictObject({
  kty: z.literal('RSA'), n: z.string(), e: z.string(), kid: z.string(), use: z.enum(['enc', 'sig']), alg: z.enum(['RSA-OAEP-256', 'RS256']),
});

/** Builds the V2 routes over the service. */
export function externalRoutes(external: ExternalService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: '/api/external/employee/',
      credential: 'vendorBasic',
      bodyType: 'json',
      body: z.strictObject({ encrypted_payload: z.string() }),
      response: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){4}$/),
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
      response: z.strictObject({ keys: z.array(jwkSchema).min(2) }),
      handler: async () => ({ raw: await external.jwks() }),
    }),
  ];
}
