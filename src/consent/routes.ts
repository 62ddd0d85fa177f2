/**
 * Routes of consent (interface.md "Submit employee consent data").
 */
import { z } from 'zod';
import { vendorPrincipal } from '../auth/principal';
import { employeeIdSchema } from '../employees/employee-id';
import { employeeRecordSchema } from '../employees/schema';
import { route, type RouteDef } from '../http/router';
import type { ConsentService } from './service';

/** ISO 8601 UTC date-time (`Z` or `+00:00`), parsed to a Date. */
const utcDateTime = z.string().datetime({ offset: true }).refine((s) => /(Z|[+-]00:?00)$/i.test(s), 'must be a UTC date-time')
  .transform((s) => new Date(s));

const body = z.strictObject({
  org: z.string().min(1, 'required'),
  employee_id: employeeIdSchema,
  consent_language: z.string().trim().min(1, 'required').max(10_000),
  consent_timestamp: utcDateTime,
  consent_expiry: utcDateTime,
});

/** Builds the consent routes over the service. */
export function consentRoutes(consents: ConsentService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: '/api/v1/employee/consent-data/',
      credential: 'apiKey',
      bodyType: 'json',
      body,
      response: employeeRecordSchema,
      handler: async ({ body: b, principal, requestId }) => ({ data: await consents.submit(vendorPrincipal(principal).orgId, b, requestId) }),
    }),
  ];
}
