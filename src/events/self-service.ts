/**
 * A vendor's self-service over its event endpoints (docs/events.md "Self-service"; docs/api.md
 * "Vendor self-service"): the operator's rules (endpoints.ts: https, the SSRF guard, event
 * types) through the same code, every call scoped to the caller's org. Another vendor's endpoint
 * or delivery, a removed endpoint and a malformed id are all 404 `Not found.`.
 */
import { randomUUID } from 'node:crypto';
import type { FieldCipher } from '../crypto/field-cipher';
import type { Transactor } from '../db/tx';
import { isUuid } from '../domain/ids';
import { AppError } from '../errors';
import { offsetOf, pageInfoOf, type PageInfo, type PageRequest } from '../paging';
import type { EndpointService, EndpointView } from './endpoints';
import type { EventsQueue } from './queue';
import type { SelfServiceStore } from './self-service-store';
import { newEventId, type EventService } from './service';
import { endpointSecretAad, newSigningSecret } from './signing';
import type { EventStore } from './store';
import { TEST_EVENT_TYPE, type EventType } from './types';

/** How long the secret before a rotation keeps signing beside the new one (docs/events.md "Self-service"). */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/** The calling vendor org: numeric id and UUID (from its principal). */
export interface VendorOrg {
  orgId: number;
  orgUuid: string;
}

/** One delivery as listed (docs/events.md "Self-service"): never its payload. */
export interface DeliveryView {
  id: string;
  event_id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  last_attempt_at: string | null;
  last_http_status: number | null;
  last_error: string | null;
  created_at: string;
}

export interface SelfServiceDeps {
  endpoints: EndpointService;
  store: SelfServiceStore;
  outbox: Pick<EventStore, 'insertOutbox' | 'markEnqueued'>;
  events: Pick<EventService, 'dispatch'>;
  queue: Pick<EventsQueue, 'requeue'>;
  transactor: Transactor;
  cipher: FieldCipher;
}

export type SelfService = ReturnType<typeof createSelfService>;

/** Builds the vendor self-service over endpoints and deliveries. */
export function createSelfService(deps: SelfServiceDeps) {
  const { store } = deps;
  /** Throws NOT_FOUND unless `id` is an active endpoint of the org. */
  const owned = async (org: VendorOrg, id: string): Promise<string> => {
    if (!isUuid(id) || !(await store.ownsEndpoint(org.orgId, id.toLowerCase()))) throw new AppError('NOT_FOUND');
    return id.toLowerCase();
  };
  return {
    /** The org's active endpoints, oldest first (never a secret). */
    list: (org: VendorOrg): Promise<EndpointView[]> => deps.endpoints.list(org.orgUuid),

    /** Registers an endpoint (the operator's rules); the secret is in this answer only. Throws VALIDATION. */
    add: (org: VendorOrg, input: { url: string; events?: EventType[] | undefined }) =>
      deps.endpoints.add({ orgUuid: org.orgUuid, url: input.url, ...(input.events ? { events: input.events } : {}) }),

    /** Removes an endpoint of the org and cancels its pending deliveries. Throws NOT_FOUND. */
    async remove(org: VendorOrg, id: string) {
      return deps.endpoints.remove(await owned(org, id));
    },

    /**
     * A new signing secret for the endpoint, shown this once; the previous one signs beside it
     * (a second `v1,` signature) until `previous_secret_expires_at`. Throws NOT_FOUND.
     */
    async rotateSecret(org: VendorOrg, id: string): Promise<{ id: string; secret: string; previous_secret_expires_at: string }> {
      const endpointId = await owned(org, id);
      const secret = newSigningSecret();
      const until = await store.rotateSecret(org.orgId, endpointId, deps.cipher.encrypt(secret, endpointSecretAad(endpointId)), SECRET_OVERLAP_MS);
      if (!until) throw new AppError('NOT_FOUND');
      return { id: endpointId, secret, previous_secret_expires_at: until.toISOString() };
    },

    /**
     * Writes an `endpoint.test` event for this endpoint alone to the outbox and queues its
     * delivery (retried and recorded like any other). Throws NOT_FOUND.
     */
    async sendTest(org: VendorOrg, id: string): Promise<{ event_id: string; delivery_id: string; type: typeof TEST_EVENT_TYPE }> {
      const endpointId = await owned(org, id);
      const eventId = newEventId();
      const deliveryId = randomUUID();
      const at = new Date();
      // The shape of every event (`{type, timestamp, data}`), naming only the endpoint and the org.
      const payload = { type: TEST_EVENT_TYPE, timestamp: at.toISOString(), data: { endpoint_id: endpointId, vendor_org_id: org.orgUuid } };
      await deps.transactor.transaction((tx) =>
        deps.outbox.insertOutbox(
          [
            {
              id: eventId,
              type: TEST_EVENT_TYPE,
              vendorOrgId: org.orgId,
              clientOrgId: null,
              connectionId: null,
              payload: JSON.stringify(payload),
              createdAt: at,
            },
          ],
          [{ id: deliveryId, eventId, endpointId }],
          tx,
        ),
      );
      await deps.events.dispatch({ eventIds: [eventId], deliveryIds: [deliveryId] });
      return { event_id: eventId, delivery_id: deliveryId, type: TEST_EVENT_TYPE };
    },

    /** One page of the endpoint's deliveries, newest first. Throws NOT_FOUND, INVALID_PAGE. */
    async deliveries(org: VendorOrg, id: string, page: PageRequest): Promise<{ pageInfo: PageInfo; data: DeliveryView[] }> {
      const endpointId = await owned(org, id);
      const { total, rows } = await store.listDeliveries(endpointId, { limit: page.pageSize, offset: offsetOf(page) });
      const pageInfo = pageInfoOf(page, total, rows.length);
      return {
        pageInfo,
        data: rows.map((r) => ({
          id: r.id,
          event_id: r.eventId,
          type: r.type,
          // The table's check constraint allows these four only.
          status: r.status as DeliveryView['status'],
          attempts: r.attempts,
          last_attempt_at: r.lastAttemptAt?.toISOString() ?? null,
          last_http_status: r.lastHttpStatus,
          last_error: r.lastError,
          created_at: r.createdAt.toISOString(),
        })),
      };
    },

    /**
     * Sends a delivery of the org again: the same event (same `webhook-id`, body and type) to
     * the same endpoint, with the whole retry schedule; one still pending is just queued. Its
     * endpoint must be active. Throws NOT_FOUND.
     */
    async replay(org: VendorOrg, deliveryId: string): Promise<{ id: string; event_id: string; status: 'pending' }> {
      const hit = isUuid(deliveryId) ? await store.replay(org.orgId, deliveryId.toLowerCase()) : null;
      if (!hit) throw new AppError('NOT_FOUND');
      const id = deliveryId.toLowerCase();
      // Queued now; should Redis be down, the relay job picks the pending row up.
      await deps.queue.requeue([id]).then(
        () => deps.outbox.markEnqueued([id]),
        () => undefined,
      );
      return { id, event_id: hit.eventId, status: 'pending' };
    },
  };
}
