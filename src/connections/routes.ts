/**
 * Routes of vendor connections (docs/api.md "Vendor connections", "Terminate connection").
 */
import { z } from 'zod';
import { AppError } from '../errors';
import { route, type RouteDef } from '../http/router';
import { pageInfoSchema } from '../paging';
import { NOT_AVAILABLE } from '../domain/record';
import type { ConnectionService } from './service';

const entry = z
  .strictObject({
    org_name: z.string(),
    org_id: z.string().uuid(),
    shared_data_points: z.array(z.string()),
    not_shared_data_points: z.array(z.string()),
    not_requested_data_points: z.array(z.string()),
    last_successful_sync: z.string(),
    sync_frequency: z.string(),
    hrms_code: z.string(),
    csm_user: z.string(),
    created_by_user: z.string(),
    phone: z.string(),
    application_status_timestamp: z.string(),
    int_type: z.string(),
    email: z.union([z.email(), z.literal(NOT_AVAILABLE)]),
    is_international: z.boolean(),
    salary_details_flag: z.boolean(),
    application_connection_status: z.string(),
    connection_id: z.string().uuid().meta({ description: "The connection's id: what a V2 request's `connection_id` names." }),
  })
  .meta({ id: 'VendorConnection' });

/** Builds the connection routes over the service. */
export function connectionRoutes(connections: ConnectionService): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: '/api/vendor/connections/',
      credential: 'apiKey',
      role: 'vendor',
      query: z.object({
        status: z.enum(['pending', 'approved', 'rejected']).optional(),
        page: z.coerce.number().int().min(1).default(1),
        page_size: z.coerce.number().int().min(1).max(100).default(20),
      }),
      response: z.array(entry),
      doc: {
        operationId: 'listVendorConnections',
        tag: 'connections',
        extra: { pageInfo: pageInfoSchema },
        summary: "The calling vendor's connections, newest first, paged (terminated ones are not listed).",
        description:
          '`status` filters (absent: every status but terminated). `page` is 1-based; a page past the end is `404 Invalid page.`; a vendor without connections gets page 1 with `data: []`.',
        errors: ['INVALID_PAGE'],
      },
      async handler({ query, principal }) {
        const { pageInfo, data } = await connections.listForVendor(principal.orgId, {
          ...(query.status ? { status: query.status } : {}),
          page: query.page,
          pageSize: query.page_size,
        });
        return { data, extra: { pageInfo } };
      },
    }),
    route({
      method: 'POST',
      path: '/api/terminate_connection/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      bodyType: 'form',
      body: z.object({ client_org: z.string().trim().min(1, 'required') }),
      response: z.strictObject({ connection_id: z.string().uuid(), org_id: z.string().uuid(), application_connection_status: z.literal('Terminated') }),
      doc: {
        operationId: 'terminateConnection',
        tag: 'connections',
        message: 'Connection terminated successfully',
        summary: "The vendor ends its connection with a client org (form field `client_org`, the org's UUID). Final.",
        description: 'Refused while a sync of that client org runs (`423`); a second termination is `409`.',
        errors: ['CLIENT_ORG_NOT_FOUND', 'CONNECTION_ALREADY_TERMINATED', 'SYNC_IN_PROGRESS'],
      },
      async handler({ body, principal, requestId }) {
        const uuid = body.client_org.toLowerCase();
        if (!z.string().uuid().safeParse(uuid).success) throw new AppError('CLIENT_ORG_NOT_FOUND');
        const c = await connections.terminate(principal.orgId, uuid, requestId);
        return {
          message: 'Connection terminated successfully',
          data: { connection_id: c.id, org_id: uuid, application_connection_status: 'Terminated' as const },
        };
      },
    }),
  ];
}
