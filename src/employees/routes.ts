/**
 * Routes of employee data (interface.md "Get employee details", "Update employee details").
 */
import { z } from 'zod';
import { vendorPrincipal } from '../auth/principal';
import { AppError } from '../errors';
import { route, type RouteDef } from '../http/router';
import { employeeRecordSchema, employeeUpdateSchema } from './schema';
import type { EmployeeService } from './service';
import type { EmployeeUpdate, EmployeeUpdateService } from './update-service';

const query = z.object({
  org: z.string().min(1),
  vendor_org: z.string().min(1),
  source: z.enum(['db', 'hrms']).default('db'),
});

/** Most employee records one webhook request may carry (decisions §6, §11). */
export const MAX_UPDATE_BATCH = 1000;

const updateArray = z.array(employeeUpdateSchema);

/**
 * The webhook body: one partial record, or an array of 1..1,000. Dispatched on the JSON type
 * rather than a zod union, so an error names the bad field (`3.salaryDetails.ctc.basic`) instead
 * of "invalid input"; the count is checked before any record is.
 */
export const updateBodySchema = z.unknown().transform((body, ctx): { many: boolean; updates: EmployeeUpdate[] } => {
  if (Array.isArray(body) && (body.length === 0 || body.length > MAX_UPDATE_BATCH)) {
    ctx.addIssue({ code: 'custom', message: `must hold 1 to ${MAX_UPDATE_BATCH} employee records`, path: [] });
    return z.NEVER;
  }
  const r = Array.isArray(body) ? updateArray.safeParse(body) : employeeUpdateSchema.safeParse(body);
  if (!r.success) {
    for (const issue of r.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  }
  const data = r.data as EmployeeUpdate | EmployeeUpdate[];
  return Array.isArray(data) ? { many: true, updates: data } : { many: false, updates: [data] };
});

const updateResult = z.strictObject({ employeeId: z.string(), id: z.string().uuid(), updated_fields: z.array(z.string()) });

/** Builds the employee routes over the services. */
export function employeeRoutes(employees: EmployeeService, updates: EmployeeUpdateService): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: '/api/employee_details/:id',
      credential: 'apiKeyUsername',
      params: z.object({ id: z.string().min(1).max(128) }),
      query,
      response: employeeRecordSchema,
      async handler({ params, query: q, principal, requestId }) {
        // The key must be a vendor org's, and that org `vendor_org` (decisions §2, §7).
        const vendor = vendorPrincipal(principal);
        if (vendor.orgUuid !== q.vendor_org.toLowerCase()) throw new AppError('AUTH_INVALID');
        const dataJson = await employees.readMaskedJson({
          vendorOrgId: vendor.orgId, clientOrgUuid: q.org.toLowerCase(), employeeRef: params.id,
          source: q.source, requestId,
        });
        return { dataJson };
      },
    }),
    route({
      method: 'POST',
      path: '/api/webhook/v1/employee/update/',
      // The client org's app_key:app_secret (decisions §2); it reaches only that org's employees.
      credential: 'clientBasic',
      bodyType: 'json',
      body: updateBodySchema,
      response: z.union([updateResult, z.array(updateResult)]),
      async handler({ body, principal, requestId }) {
        if (!principal?.isClient) throw new AppError('AUTH_INVALID');
        const results = await updates.apply({ clientOrgId: principal.orgId, requestId, updates: body.updates });
        if (body.many) return { data: results };
        // One update in, one result out (the service answers one result per update, in order).
        const [one] = results;
        if (!one) throw new Error('update webhook: no result for the update');
        return { data: one };
      },
    }),
  ];
}
