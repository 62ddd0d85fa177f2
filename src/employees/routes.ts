/**
 * Routes of employee data (docs/api.md "Employee details", "Employee update webhook";
 * docs/erasure-and-retention.md "Erasing an employee": the employer's access log and erasure).
 */
import { z } from 'zod';
import { AppError } from '../errors';
import { route, type RouteDef } from '../http/router';
import { pageInfoSchema, pageQueryFields } from '../paging';
import type { AccessLogService } from './access-log-service';
import type { EraseService } from './erase-service';
import { employeeIdSchema } from './employee-id';
import { employeeRecordSchema, employeeUpdateSchema, payHistorySchema } from './schema';
import { PAY_MONTHS_KEPT } from './pay-months';
import type { EmployeeService } from './service';
import type { EmployeeUpdate, EmployeeUpdateService } from './update-service';

const query = z.object({
  org: z.string().min(1),
  vendor_org: z.string().min(1),
  source: z.enum(['db', 'hrms']).default('db'),
});

/** Most employee records one webhook request may carry (docs/api.md "Employee update webhook", docs/limits.md). */
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

const accessLogEntry = z.strictObject({
  vendor_org: z.string().uuid(),
  vendor_org_name: z.string(),
  data_points: z.array(z.string()),
  source: z.enum(['db', 'hrms']),
  read_at: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  request_id: z.string().uuid(),
});

/** The erasure webhook's body (docs/erasure-and-retention.md "Erasing an employee"): the HRMS `employee_id`, nothing else. */
const eraseBody = z.strictObject({ employee_id: employeeIdSchema });
const eraseResult = z.strictObject({ employee_id: z.string(), erased_at: z.string().datetime() });

/** Builds the employee routes over the services. */
export function employeeRoutes(employees: EmployeeService, updates: EmployeeUpdateService, accessLog: AccessLogService, erasure: EraseService): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: '/api/employee_details/:id',
      credential: 'apiKeyUsername',
      role: 'vendor',
      params: z.object({ id: z.string().min(1).max(128) }),
      query,
      response: employeeRecordSchema,
      doc: {
        operationId: 'getEmployeeDetails',
        tag: 'employees',
        summary: 'One employee of a client org, masked and filtered to what the connection shares.',
        description: [
          "`{id}` is the employee's `employeeId` (or hrx's `id`). The key must be the vendor org's and `vendor_org` that org's UUID",
          '(else `401 Invalid token.`); `org` must have an approved connection with it (else `404 Invalid Organisation ID`). Where the',
          'connection requires consent, the employee needs a consent in force (else `403 Consent not found or expired`).',
          '`source=hrms` reads the employee live from the HRMS, where the connection allows it (else `403 Source Permission denied`),',
          "within the HRMS's request budget shared with the employer's syncs (no room within `HRX_HRMS_LIVE_WAIT_MS`: `503 Service temporarily unavailable` with `Retry-After`).",
          'PAN, Aadhaar, UAN, mobile numbers, account number and IFSC are masked; every read is audited.',
        ].join(' '),
        errors: ['INVALID_ORGANISATION', 'CONNECTION_TERMINATED', 'EMPLOYEE_NOT_FOUND', 'CONSENT_MISSING', 'SOURCE_PERMISSION_DENIED'],
      },
      async handler({ params, query: q, principal, requestId }) {
        // The key is a vendor org's (the route's role), and that org must be `vendor_org` (docs/api.md "Credentials", docs/api.md "Employee details").
        if (principal.orgUuid !== q.vendor_org.toLowerCase()) throw new AppError('AUTH_INVALID');
        const dataJson = await employees.readMaskedJson({
          vendorOrgId: principal.orgId,
          clientOrgUuid: q.org.toLowerCase(),
          employeeRef: params.id,
          source: q.source,
          requestId,
        });
        return { dataJson };
      },
    }),
    route({
      method: 'GET',
      path: '/api/employee_details/:id/pay_history/',
      credential: 'apiKeyUsername',
      role: 'vendor',
      params: z.object({ id: z.string().min(1).max(128) }),
      query: z.object({
        org: z.string().min(1),
        vendor_org: z.string().min(1),
        months: z.coerce.number().int().min(1).max(PAY_MONTHS_KEPT).default(12),
      }),
      response: payHistorySchema,
      doc: {
        operationId: 'getPayHistory',
        tag: 'employees',
        summary: "One employee's pay months, newest first: `month`, `year` and the `monthly_*` data points the connection shares.",
        description: [
          '`months` is 1 to 36 (default 12). The credential, the errors, the consent rule and the audit are those of the plain read',
          "(`GET /api/employee_details/{id}`): `401 Invalid token.` when `vendor_org` is not the key's org, `404 Invalid Organisation ID`",
          'without an approved connection, `404` for an unknown employee, `403 Consent not found or expired` where consent is required.',
          'A connection sharing no `monthly_*` point (but month and year) gets `months: []`. `as_of` is the last successful sync.',
        ].join(' '),
        errors: ['INVALID_ORGANISATION', 'EMPLOYEE_NOT_FOUND', 'CONSENT_MISSING'],
      },
      async handler({ params, query: q, principal, requestId }) {
        // As the plain read: the key's org must be `vendor_org` (docs/api.md "Employee details").
        if (principal.orgUuid !== q.vendor_org.toLowerCase()) throw new AppError('AUTH_INVALID');
        const dataJson = await employees.payHistoryJson(
          { vendorOrgId: principal.orgId, clientOrgUuid: q.org.toLowerCase(), employeeRef: params.id, requestId },
          q.months,
        );
        return { dataJson };
      },
    }),
    route({
      method: 'POST',
      path: '/api/webhook/v1/employee/update/',
      idempotent: true,
      // The client org's app_key:app_secret (docs/api.md "Credentials"); it reaches only that org's employees.
      credential: 'clientBasic',
      role: 'client',
      bodyType: 'json',
      body: updateBodySchema,
      response: z.union([updateResult, z.array(updateResult)]),
      doc: {
        operationId: 'updateEmployees',
        tag: 'employees',
        summary: 'The employer pushes one employee record, or an array of up to 1,000 (partial records: employeeId required).',
        description: [
          'Present fields overwrite, nested objects merge field by field, arrays are replaced; absent fields, `null` and blank text',
          'leave the stored value; `NOT AVAILABLE` clears a text field. An unknown `employeeId` creates the employee. The answer lists',
          'the data points that changed (`updated_fields`, `[]` when nothing did): one result, or an array in request order.',
          'Validated whole before anything is written.',
        ].join(' '),
        body: z.union([employeeUpdateSchema, z.array(employeeUpdateSchema).min(1).max(MAX_UPDATE_BATCH)]),
      },
      async handler({ body, principal, requestId }) {
        const results = await updates.apply({ clientOrgId: principal.orgId, requestId, updates: body.updates });
        if (body.many) return { data: results };
        // One update in, one result out (the service answers one result per update, in order).
        const [one] = results;
        if (!one) throw new Error('update webhook: no result for the update');
        return { data: one };
      },
    }),
    route({
      method: 'GET',
      path: '/api/webhook/v1/employee/access-log/',
      // The client org's app_key:app_secret (docs/api.md "Credentials", docs/privacy.md); it sees only its own employees' reads.
      credential: 'clientBasic',
      role: 'client',
      query: z.object({ employee_id: employeeIdSchema, ...pageQueryFields }),
      response: z.array(accessLogEntry),
      doc: {
        operationId: 'getAccessLog',
        tag: 'employees',
        extra: { pageInfo: pageInfoSchema },
        summary: "The employer's record of every read of one employee's data: vendor, data points, source, time, request id; newest first.",
        description:
          "Client app credentials (Basic). An employee the caller has no reads of (or another employer's) gives an empty page 1. Paged as the vendor connections list.",
        errors: ['INVALID_PAGE'],
      },
      async handler({ query: q, principal }) {
        const { pageInfo, data } = await accessLog.list(principal.orgId, q.employee_id, { page: q.page, pageSize: q.page_size });
        return { data, extra: { pageInfo } };
      },
    }),
    route({
      method: 'POST',
      path: '/api/webhook/v1/employee/erase/',
      idempotent: true,
      // The employer's app credentials, as for the update webhook: it erases only its own employees.
      credential: 'clientBasic',
      role: 'client',
      bodyType: 'json',
      body: eraseBody,
      response: eraseResult,
      doc: {
        operationId: 'eraseEmployee',
        tag: 'employees',
        summary: 'Erases one employee: the record and every copy of its values; consent and audit records are kept without values.',
        description: [
          'Client app credentials (Basic). Vendors get `employee.removed`; a tombstone (a keyed hash of the id) makes later syncs skip the',
          'employee until the employer posts it again through the update webhook. Erasing again answers the same `erased_at`.',
        ].join(' '),
        errors: ['EMPLOYEE_NOT_FOUND'],
      },
      async handler({ body, principal, requestId }) {
        return { data: await erasure.erase({ clientOrgId: principal.orgId, employeeId: body.employee_id, requestId }) };
      },
    }),
  ];
}
