/**
 * Routes of employee data (interface.md "Get employee details").
 */
import { z } from 'zod';
import { vendorPrincipal } from '../auth/principal';
import { AppError } from '../errors';
import { route, type RouteDef } from '../http/router';
import { employeeRecordSchema } from './schema';
import type { EmployeeService } from './service';

const query = z.object({
  org: z.string().min(1),
  vendor_org: z.string().min(1),
  source: z.enum(['db', 'hrms']).default('db'),
});

/** Builds the employee routes over the service. */
export function employeeRoutes(employees: EmployeeService): RouteDef[] {
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
  ];
}
