/**
 * Routes of the employment and income credential (docs/api.md "Credentials"; docs/credentials.md):
 * issuing, the issuing vendor's view and revocation, the status lists, the issuer metadata and the
 * type metadata.
 */
import { z } from 'zod';
import { employeeIdSchema } from '../employees/employee-id';
import { serviceJwkSchema } from '../external/schema';
import { route, type RouteDef } from '../http/router';
import type { CredentialService } from './service';

const isoMs = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

const issueBody = z.strictObject({
  org: z.string().min(1, 'required'),
  employee_id: employeeIdSchema,
  months: z.number().int().min(0).max(12).default(3),
});

const issued = z.strictObject({
  credential_id: z.string().uuid(),
  sd_jwt: z.string().meta({ description: 'The SD-JWT VC (`typ: dc+sd-jwt`, ES256): issuer-signed JWT, then every disclosure, each followed by `~`.' }),
  exp: isoMs,
});

const state = z.strictObject({
  status: z.enum(['valid', 'revoked', 'expired']),
  iat: isoMs,
  exp: isoMs,
  revoked_reason: z.enum(['vendor', 'consent_withdrawn', 'employee_erased', 'employee_not_active', 'connection_terminated', 'key_revoked']).nullable(),
});

const idParams = z.object({ credential_id: z.string().uuid() });

/** Builds the credential routes over the service. */
export function credentialRoutes(credentials: CredentialService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: '/api/credentials/employment/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      bodyType: 'json',
      body: issueBody,
      response: issued,
      doc: {
        operationId: 'issueEmploymentCredential',
        tag: 'credentials',
        status: 201,
        summary: "Issues an employment and income credential (SD-JWT VC) of one employee, bound to the vendor's registered key.",
        description: [
          'The checks, errors and consent rule of the plain read (`org` must have an approved connection with the vendor; consent in force',
          "where the connection requires it); the issuance is audited as a read and listed in the employer's access log. `months` (0..12,",
          'default 3) pay months go in `pay`. Each claim (`employer`, `employee`, `employment`, `pay`, `as_of`, `source`) is selectively',
          "disclosable and holds only data points the connection shares. `cnf.jwk` is the vendor's most recently registered active V2 key",
          '(none: `409 No registered key`). See docs/credentials.md.',
        ].join(' '),
        errors: ['NO_REGISTERED_KEY', 'INVALID_ORGANISATION', 'EMPLOYEE_NOT_FOUND', 'CONSENT_MISSING'],
      },
      async handler({ body, principal, requestId }) {
        const data = await credentials.issue({ vendorOrgId: principal.orgId, org: body.org, employeeId: body.employee_id, months: body.months, requestId });
        return { data, status: 201 };
      },
    }),
    route({
      method: 'GET',
      path: '/api/credentials/:credential_id/',
      credential: 'apiKey',
      role: 'vendor',
      params: idParams,
      response: state,
      doc: {
        operationId: 'getCredentialStatus',
        tag: 'credentials',
        summary: 'The state of a credential the calling vendor was issued: `{status, iat, exp, revoked_reason}`, never its claims.',
        description: "Another vendor's credential, like an unknown one, is `404 Not found.`.",
        errors: ['NOT_FOUND'],
      },
      handler: async ({ params, principal }) => ({ data: await credentials.state(principal.orgId, params.credential_id) }),
    }),
    route({
      method: 'DELETE',
      path: '/api/credentials/:credential_id/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      params: idParams,
      response: state,
      doc: {
        operationId: 'revokeCredential',
        tag: 'credentials',
        summary: 'Revokes a credential the calling vendor was issued: its status list bit turns 1 at once.',
        description: "Answers the credential's state (`revoked`; revoking again changes nothing). Another vendor's credential is `404 Not found.`.",
        errors: ['NOT_FOUND'],
      },
      handler: async ({ params, principal }) => ({ data: await credentials.revoke(principal.orgId, params.credential_id) }),
    }),
    route({
      method: 'GET',
      path: '/credentials/status/:list',
      credential: 'none',
      params: z.object({ list: z.coerce.number().int().min(0).max(1_000_000_000) }),
      doc: {
        operationId: 'getStatusList',
        tag: 'credentials',
        answer: 'text',
        summary: 'A status list token (`application/statuslist+jwt`): 1 bit per credential, 1 = revoked, `ttl` 300 s, signed ES256 by the issuer key.',
        description: 'A list not started yet is `404 Not found.`. Cacheable for 30 s, so a revocation shows within a minute.',
        errors: ['NOT_FOUND'],
      },
      handler: async ({ params }) => ({
        text: await credentials.statusListToken(params.list),
        contentType: 'application/statuslist+jwt',
        cacheControl: 'public, max-age=30',
      }),
    }),
    route({
      method: 'GET',
      path: '/.well-known/jwt-vc-issuer',
      credential: 'none',
      response: z.strictObject({ issuer: z.string(), jwks: z.strictObject({ keys: z.array(serviceJwkSchema) }) }),
      doc: {
        operationId: 'getJwtVcIssuer',
        tag: 'credentials',
        answer: 'raw',
        summary: "The credential issuer's metadata (SD-JWT VC): `{issuer, jwks}`, the JWKS holding the ES256 key credentials are signed with.",
      },
      handler: async () => ({ raw: await credentials.issuerMetadata() }),
    }),
    route({
      method: 'GET',
      path: '/vct/employment-income/v1',
      credential: 'none',
      response: z.looseObject({ vct: z.string(), name: z.string(), claims: z.array(z.looseObject({ path: z.array(z.string()) })) }),
      doc: {
        operationId: 'getCredentialType',
        tag: 'credentials',
        answer: 'raw',
        summary: 'The type metadata (SD-JWT VC) of the employment and income credential: its name, claims and how to show them.',
      },
      handler: () => Promise.resolve({ raw: credentials.typeMetadata() }),
    }),
  ];
}
