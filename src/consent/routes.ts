/**
 * Routes of consent (docs/api.md "Consent"; docs/consent.md "How consent works": withdrawal by the
 * vendor and by the employer, the vendor's consent history).
 */
import { z } from 'zod';
import { employeeIdSchema } from '../employees/employee-id';
import { employeeRecordSchema } from '../employees/schema';
import { route, type RouteDef } from '../http/router';
import { pageInfoSchema, pageQueryFields } from '../paging';
import type { ConsentService } from './service';

/**
 * ISO 8601 date-time with `Z` or an offset (`+05:30`), parsed to a Date: the instant is what
 * counts, stored and answered in UTC; one with neither is ambiguous and refused (docs/consent.md
 * "How consent works").
 */
const utcDateTime = z
  .string()
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with Z or an offset (2026-12-01T10:00:00+05:30)' })
  .transform((s) => new Date(s));

/**
 * An org's UUID in a request: missing or blank is a 400 validation failure naming the field; any
 * other text that is not a UUID names no org and is answered as an unknown org (docs/api.md
 * "Conventions": one answer for a malformed id).
 */
const orgUuid = z
  .string()
  .trim()
  .min(1, 'required')
  .transform((s) => s.toLowerCase());

/** An ISO 8601 UTC timestamp with milliseconds, as hrx writes them. */
const isoMs = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

const body = z.strictObject({
  org: z.string().min(1, 'required'),
  employee_id: employeeIdSchema,
  consent_language: z.string().trim().min(1, 'required').max(10_000),
  consent_timestamp: utcDateTime,
  consent_expiry: utcDateTime,
});

const historyEntry = z.strictObject({
  consent_language: z.string(),
  consent_timestamp: isoMs,
  consent_expiry: isoMs,
  created_at: isoMs,
  revoked_at: isoMs.nullable(),
  status: z.enum(['active', 'expired', 'revoked', 'superseded']),
});

/** Builds the consent routes over the service. */
export function consentRoutes(consents: ConsentService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: '/api/v1/employee/consent-data/',
      credential: 'apiKey',
      role: 'vendor',
      bodyType: 'json',
      idempotent: true,
      body,
      response: employeeRecordSchema,
      doc: {
        operationId: 'submitConsent',
        tag: 'consent',
        summary: "Records an employee's consent for the calling vendor; answers the employee record as the plain read does.",
        description: [
          'All five fields are required. `consent_timestamp` and `consent_expiry` are UTC ISO 8601 date-times; the timestamp may be at',
          'most 5 minutes in the future, the expiry after it, not already past, and at most 10 years after it. `org` must have an',
          'approved connection with the vendor and hold the employee. The latest unexpired consent is the one in force.',
        ].join(' '),
        errors: ['INVALID_ORGANISATION', 'EMPLOYEE_NOT_FOUND'],
      },
      handler: async ({ body: b, principal, requestId }) => ({ data: await consents.submit(principal.orgId, b, requestId) }),
    }),
    route({
      method: 'GET',
      path: '/api/v1/employee/consent-data/',
      credential: 'apiKey',
      role: 'vendor',
      query: z.object({ org: orgUuid, employee_id: employeeIdSchema, ...pageQueryFields }),
      response: z.array(historyEntry),
      doc: {
        operationId: 'listConsents',
        tag: 'consent',
        extra: { pageInfo: pageInfoSchema },
        summary: "Lists the calling vendor's consents for one employee of an org, newest first, each with its status.",
        description: [
          '`status` is `revoked` (withdrawn), `expired` (past `consent_expiry`), `active` (the latest one in force) or `superseded`',
          "(in force but a later one is). Only the calling vendor's own records; an org or employee it has none for gives an empty page 1.",
          'Paged: `page` (default 1), `page_size` (default 20, at most 100).',
        ].join(' '),
        errors: ['INVALID_PAGE'],
      },
      async handler({ query: q, principal }) {
        const { pageInfo, data } = await consents.history(principal.orgId, {
          org: q.org,
          employee_id: q.employee_id,
          page: q.page,
          pageSize: q.page_size,
        });
        return { data, extra: { pageInfo } };
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/employee/consent-data/revoke/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      bodyType: 'json',
      body: z.strictObject({ org: orgUuid, employee_id: employeeIdSchema }),
      response: z.strictObject({ org: z.string().uuid(), employee_id: z.string(), revoked_at: isoMs }),
      doc: {
        operationId: 'revokeConsent',
        tag: 'consent',
        summary: 'Withdraws every consent of the calling vendor still in force for the employee; the next read is refused in every API process.',
        description: 'Writes `consent.revoked` to the vendor. A new consent allows reads again.',
        errors: ['CONSENT_NOT_IN_FORCE'],
      },
      handler: async ({ body: b, principal, requestId }) => ({ data: await consents.revoke(principal.orgId, b, requestId) }),
    }),
    route({
      method: 'POST',
      path: '/api/webhook/v1/employee/consent/revoke/',
      idempotent: true,
      // The client org's app_key:app_secret (docs/api.md "Credentials", docs/consent.md "How consent works"); it reaches only its own employees' consents.
      credential: 'clientBasic',
      role: 'client',
      bodyType: 'json',
      body: z.strictObject({ employee_id: employeeIdSchema, vendor_org: orgUuid.optional() }),
      response: z.strictObject({
        employee_id: z.string(),
        revoked: z.array(z.strictObject({ vendor_org: z.string().uuid(), revoked_at: isoMs })),
      }),
      doc: {
        operationId: 'revokeEmployeeConsent',
        tag: 'consent',
        summary: "The employer withdraws, on the employee's behalf, the consents in force for one vendor (`vendor_org`) or for every vendor.",
        description:
          'Client app credentials (Basic). Answers the vendors whose consents were withdrawn; none in force gives `revoked: []`. Each vendor gets `consent.revoked`.',
      },
      handler: async ({ body: b, principal, requestId }) => ({
        data: await consents.revokeForEmployee(principal.orgId, b, requestId),
      }),
    }),
  ];
}
