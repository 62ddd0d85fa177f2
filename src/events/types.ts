/**
 * Shapes shared by the events module (docs/events.md "Outbox"): event types, what a producer hands the
 * outbox (in the caller's `Tx`, db/tx.ts).
 */
import type { Tx } from '../db/tx';
import type { DataPoints } from '../domain/data-points';

export type { Tx };

/** Every event type a vendor can subscribe to (docs/events.md). */
export const EVENT_TYPES = [
  'connection.approved',
  'connection.rejected',
  'connection.terminated',
  'sync.completed',
  'sync.failed',
  'employee.updated',
  'employee.removed',
  'consent.expired',
  'consent.revoked',
  'sync.degraded',
  'connection.needs_reauth',
  'connection.failing',
  'connection.healthy',
  'employee.pay_recorded',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The type of the test event a vendor sends itself (docs/events.md "Self-service"): delivered
 * to the one endpoint it names, never subscribable, not in `EVENT_TYPES`.
 */
export const TEST_EVENT_TYPE = 'endpoint.test';

/** Any type an outbox row may carry: a catalogue type or the test event's. */
export type OutboxEventType = EventType | typeof TEST_EVENT_TYPE;

/** True when `t` is one of `EVENT_TYPES`. */
export const isEventType = (t: string): t is EventType => (EVENT_TYPES as readonly string[]).includes(t);

/** One vendor org about to receive an event, as the outbox resolved it. */
export interface Recipient {
  vendorOrgId: number;
  vendorOrgUuid: string;
  /** The client org's UUID, null for events not about a client org. */
  clientOrgUuid: string | null;
  /** Data points the vendor's approved connection shares (`EVERY_DATA_POINT` for `vendor` audiences too). */
  sharedDataPoints: DataPoints;
}

/**
 * Who receives an event:
 * - `{ vendorOrgId }`: that vendor org only (connection events);
 * - `{ approvedVendorsOf: true, onlyVendorOrgId? }`: every vendor org with an approved connection
 *   to the event's `clientOrgId` (optionally only one of them, e.g. a consent's vendor).
 */
export type Audience = { vendorOrgId: number } | { approvedVendorsOf: true; onlyVendorOrgId?: number };

/**
 * An event as its producer describes it. `data` builds the payload's `data` for one recipient
 * (ids and data point names only, never employee values); returning null skips that recipient.
 */
export interface EventInput {
  type: EventType;
  audience: Audience;
  /** Client org (numeric id) the event is about; null for none. */
  clientOrgId: number | null;
  /** Connection the event is about (connection events only). */
  connectionId?: string | null;
  data: (r: Recipient) => Record<string, unknown> | null;
  /** When the event happened; default now. */
  occurredAt?: Date;
}

/** Standard Webhooks payload: `{type, timestamp, data}` (timestamp ISO 8601). */
export interface EventPayload {
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/** What writing events produced: event ids (`msg_...`) and delivery ids to dispatch. */
export interface Written {
  eventIds: string[];
  deliveryIds: string[];
}

/**
 * Events prepared for a caller's transaction: `write(tx)` inside it (call at most once), then
 * `dispatch()` after it committed, which queues their deliveries (a no-op when nothing was
 * written; anything it misses the relay job picks up). Both are closures (`this: void`): `write`
 * is handed to a store on its own.
 */
export interface Staged {
  write(this: void, tx: Tx): Promise<void>;
  dispatch(this: void): Promise<void>;
}
