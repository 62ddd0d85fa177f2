/**
 * Routes of a connection's freshness (docs/api.md "Connection status", "Sync on demand"): the
 * vendor reads its connection's health and asks for a sync.
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import { HEALTHS, type FreshnessService } from './freshness';

const clientOrgParams = z.object({ client_org: z.string().min(1) });
const isoTime = z.string().datetime();

const statusSchema = z
  .strictObject({
    health: z.enum(HEALTHS),
    last_successful_sync: isoTime.nullable(),
    last_sync_attempt: isoTime.nullable(),
    last_sync_id: z.string().uuid().nullable(),
    last_sync_status: z.string().nullable(),
    next_sync_at: isoTime.nullable(),
    employees: z.number().int().min(0),
    coverage: z.record(z.string(), z.number().min(0).max(1)).nullable(),
  })
  .meta({ id: 'ConnectionStatus' });

const syncBody = z.strictObject({ full: z.boolean().optional() }).meta({ id: 'SyncRequest' });

const queuedSchema = z.strictObject({ sync_id: z.string().uuid(), kind: z.enum(['full', 'incremental']), queued_at: isoTime }).meta({ id: 'QueuedSync' });

/** Builds the freshness routes over the service. */
export function freshnessRoutes(freshness: FreshnessService): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: '/api/vendor/connections/:client_org/status/',
      credential: 'apiKey',
      role: 'vendor',
      params: clientOrgParams,
      response: statusSchema,
      doc: {
        operationId: 'getConnectionStatus',
        tag: 'connections',
        summary: "How fresh the calling vendor's data of a client org is: the connection's HRMS health, its syncs, employees served, coverage.",
        description:
          '`health`: `not_configured`, `syncing`, `healthy`, `needs_reauth` (the HRMS refused the stored credentials: the employer must post them again), `failing` (the last three syncs failed for other reasons). Times are ISO 8601 UTC, null when none. `coverage` maps each data point the connection shares to the share (0..1) of employees with a value in the last full sync (null until one recorded it). A client org the vendor has no approved connection with (none, pending, rejected, terminated) is `404 Not found.`, the same bytes as an unknown org.',
        errors: ['NOT_FOUND'],
      },
      async handler({ params, principal }) {
        return { data: await freshness.status(principal.orgId, params.client_org) };
      },
    }),
    route({
      method: 'POST',
      path: '/api/vendor/connections/:client_org/sync/',
      idempotent: true,
      credential: 'apiKey',
      role: 'vendor',
      bodyType: 'optionalJson',
      params: clientOrgParams,
      body: syncBody.optional(),
      response: queuedSchema,
      doc: {
        operationId: 'syncConnection',
        tag: 'connections',
        status: 202,
        body: syncBody,
        summary: 'Queues a sync of the client org for the calling vendor (approved connection), within the HRMS budget.',
        description:
          'Answers `202` with the run id the sync runs as (`sync_id`; the status endpoint\'s `last_sync_id` follows it), its `kind` and `queued_at`. Incremental where the HRMS lists changes, else full; `{"full": true}` asks for a full one; the body may be left out. A sync already queued or running is answered instead of a second one. At most one an hour per connection: `429` with `Retry-After` (seconds). A client org without an approved connection of the vendor (none, pending, rejected, terminated) is `404 Not found.`.',
        errors: ['NOT_FOUND'],
      },
      async handler({ params, body, principal }) {
        return { status: 202, data: await freshness.syncNow(principal.orgId, params.client_org, body?.full === true) };
      },
    }),
  ];
}
