/**
 * Routes of a vendor's self-service over its event endpoints (docs/api.md "Vendor self-service",
 * docs/events.md "Self-service"): the vendor's API key, only its own endpoints and deliveries;
 * another vendor's id is `404 Not found.` exactly as an unknown one.
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import { pageInfoSchema, pageQueryFields } from '../paging';
import type { SelfService } from './self-service';
import { EVENT_TYPES } from './types';

const isoMs = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const idParams = z.object({ id: z.string() });

const endpointSchema = z.strictObject({
  id: z.string().uuid(),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  created_at: isoMs,
});

const secretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
  .meta({ description: 'The Standard Webhooks signing secret; shown in this answer only.' });

const addBody = z.strictObject({
  url: z.string().min(1, 'required').max(2048),
  events: z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length).optional(),
});

const deliverySchema = z.strictObject({
  id: z.string().uuid(),
  event_id: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
  attempts: z.number().int(),
  last_attempt_at: isoMs.nullable(),
  last_http_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: isoMs,
});

/** The common fields of a route of this table: the vendor's API key. */
const vendorKey = { credential: 'apiKey', role: 'vendor' } as const;

/** Builds the self-service routes of event endpoints over the service. */
export function eventRoutes(self: SelfService): RouteDef[] {
  return [
    route({
      ...vendorKey,
      method: 'GET',
      path: '/api/vendor/endpoints/',
      response: z.array(endpointSchema),
      doc: {
        operationId: 'listEventEndpoints',
        tag: 'events',
        summary: "Lists the calling vendor's active event endpoints, oldest first (never a secret).",
      },
      handler: async ({ principal }) => ({ data: await self.list(principal) }),
    }),
    route({
      ...vendorKey,
      method: 'POST',
      path: '/api/vendor/endpoints/',
      idempotent: true,
      bodyType: 'json',
      body: addBody,
      response: endpointSchema.extend({ secret: secretSchema }),
      doc: {
        operationId: 'addEventEndpoint',
        tag: 'events',
        status: 201,
        summary: 'Registers an event endpoint of the calling vendor; answers `201` with its signing secret, shown this once.',
        description: [
          '`url` must use https (http only on a loopback host where the operator allows it), carry no user info or fragment, and its host',
          'must not be or resolve to a private, loopback, link-local or reserved address (checked now and again at every delivery).',
          '`events` (default: every type) subscribes to those types only.',
        ].join(' '),
      },
      handler: async ({ principal, body }) => ({ status: 201, data: await self.add(principal, body) }),
    }),
    route({
      ...vendorKey,
      method: 'DELETE',
      path: '/api/vendor/endpoints/:id/',
      idempotent: true,
      params: idParams,
      response: z.strictObject({ id: z.string().uuid(), removed: z.literal(true), cancelled_deliveries: z.number().int() }),
      doc: {
        operationId: 'removeEventEndpoint',
        tag: 'events',
        summary: "Removes one of the calling vendor's endpoints: no new deliveries, its pending ones cancelled.",
        description: "Another vendor's endpoint, a removed one and an unknown id are `404 Not found.` alike.",
        errors: ['NOT_FOUND'],
      },
      handler: async ({ principal, params }) => ({ data: await self.remove(principal, params.id) }),
    }),
    route({
      ...vendorKey,
      method: 'POST',
      path: '/api/vendor/endpoints/:id/rotate-secret/',
      idempotent: true,
      bodyType: 'none',
      params: idParams,
      response: z.strictObject({ id: z.string().uuid(), secret: secretSchema, previous_secret_expires_at: isoMs }),
      doc: {
        operationId: 'rotateEventEndpointSecret',
        tag: 'events',
        summary: "A new signing secret for one of the calling vendor's endpoints, shown this once.",
        description:
          'Until `previous_secret_expires_at` (24 hours) every delivery carries two signatures, `v1,<new> v1,<old>` (Standard Webhooks), so a receiver verifies with either secret while it switches.',
        errors: ['NOT_FOUND'],
      },
      handler: async ({ principal, params }) => ({ data: await self.rotateSecret(principal, params.id) }),
    }),
    route({
      ...vendorKey,
      method: 'POST',
      path: '/api/vendor/endpoints/:id/test/',
      idempotent: true,
      bodyType: 'none',
      params: idParams,
      response: z.strictObject({ event_id: z.string(), delivery_id: z.string().uuid(), type: z.literal('endpoint.test') }),
      doc: {
        operationId: 'testEventEndpoint',
        tag: 'events',
        status: 202,
        summary: "Sends an `endpoint.test` event to one of the calling vendor's endpoints through the outbox; answers `202`.",
        description: "Signed, retried and recorded like every event; its delivery shows in the endpoint's deliveries.",
        errors: ['NOT_FOUND'],
      },
      handler: async ({ principal, params }) => ({ status: 202, data: await self.sendTest(principal, params.id) }),
    }),
    route({
      ...vendorKey,
      method: 'GET',
      path: '/api/vendor/endpoints/:id/deliveries/',
      params: idParams,
      query: z.object({ ...pageQueryFields }),
      response: z.array(deliverySchema),
      doc: {
        operationId: 'listEventDeliveries',
        tag: 'events',
        extra: { pageInfo: pageInfoSchema },
        summary: "One endpoint's deliveries, newest first: event id, type, status, attempts and the last attempt's outcome (never the payload).",
        description: 'Paged: `page` (default 1), `page_size` (default 20, at most 100).',
        errors: ['NOT_FOUND', 'INVALID_PAGE'],
      },
      async handler({ principal, params, query }) {
        const { pageInfo, data } = await self.deliveries(principal, params.id, { page: query.page, pageSize: query.page_size });
        return { data, extra: { pageInfo } };
      },
    }),
    route({
      ...vendorKey,
      method: 'POST',
      path: '/api/vendor/deliveries/:id/replay/',
      idempotent: true,
      bodyType: 'none',
      params: idParams,
      response: z.strictObject({ id: z.string().uuid(), event_id: z.string(), status: z.literal('pending') }),
      doc: {
        operationId: 'replayEventDelivery',
        tag: 'events',
        status: 202,
        summary: "Sends one of the calling vendor's deliveries again: the same event (same `webhook-id`) to the same endpoint; answers `202`.",
        description:
          "An ended delivery gets the whole retry schedule again; a pending one is queued as it is. The endpoint must still be registered. Another vendor's delivery is `404 Not found.`.",
        errors: ['NOT_FOUND'],
      },
      handler: async ({ principal, params }) => ({ status: 202, data: await self.replay(principal, params.id) }),
    }),
  ];
}
