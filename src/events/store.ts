/**
 * Persistence of events to vendors (docs/events.md "Outbox"): endpoints, the outbox (events and their
 * deliveries), delivery attempts and the consent-expiry scan. SQL through MikroORM's connection;
 * every method takes an optional `Tx` (db/tx.ts), last, to run in a caller's transaction.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { notWithdrawnSince, pgTextArray } from '../db/sql';
import { EVERY_DATA_POINT, type DataPoints } from '../domain/data-points';
import { execute, transactionOf, type Tx } from '../db/tx';
import type { Audience, EventType, OutboxEventType } from './types';

/** An endpoint as stored; the secret stays encrypted here. */
export interface EndpointRow {
  id: string;
  orgId: number;
  url: string;
  eventTypes: EventType[];
  createdAt: Date;
}

/** A resolved receiver of an event: one endpoint of one vendor org. */
export interface RecipientRow {
  endpointId: string;
  vendorOrgId: number;
  vendorOrgUuid: string;
  clientOrgUuid: string | null;
  sharedDataPoints: DataPoints;
}

/** An event row to insert; `payload` is the exact JSON body. */
export interface NewEvent {
  id: string;
  type: OutboxEventType;
  vendorOrgId: number;
  clientOrgId: number | null;
  connectionId: string | null;
  payload: string;
  createdAt: Date;
}

/** What one delivery attempt needs, loaded fresh before each attempt. */
export interface DeliveryWork {
  id: string;
  status: string;
  attempts: number;
  eventId: string;
  type: OutboxEventType;
  body: string;
  endpointId: string;
  url: string;
  secretEnc: string;
  /** The secret before the last rotation while it still signs too (docs/events.md "Self-service"), else null. */
  previousSecretEnc: string | null;
  endpointRemoved: boolean;
  /** False when the vendor may no longer hear of it (see `ENTITLED_SQL`). */
  entitled: boolean;
}

/** The outcome of one attempt as recorded. */
export interface AttemptRecord {
  deliveryId: string;
  at: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  statusText: string | null;
  ok: boolean;
  maxAttempts: number;
  /** Delays (ms) between attempts; the delay after attempt n is `scheduleMs[n-1]`. */
  scheduleMs: number[];
}

/** An expired consent the scan found and recorded as announced. */
export interface ExpiredConsent {
  id: string;
  vendorOrgId: number;
  clientOrgId: number;
  employeeId: string;
  expiry: Date;
}

/**
 * Whether a delivery may still go out. `connection.terminated` always may; other connection
 * events while their connection is not terminated; events about a client org only while the
 * vendor has an approved connection to it. So a terminated (or rejected) connection's vendor
 * hears nothing more of that client org, even from deliveries queued earlier.
 */
const ENTITLED_SQL = `case
    when e.type = 'connection.terminated' then true
    when e.connection_id is not null then exists (select 1 from connections c where c.id = e.connection_id and c.status <> 'terminated')
    when e.client_org_id is not null then exists (select 1 from connections c
      where c.vendor_org_id = e.vendor_org_id and c.client_org_id = e.client_org_id and c.status = 'approved')
    else true end`;

type Row = Record<string, unknown>;

export type EventStore = ReturnType<typeof createEventStore>;

/** Builds the events store over `orm`. */
export function createEventStore(orm: MikroORM) {
  const sql = (q: string, params: unknown[] = [], tx?: Tx): Promise<Row[]> => execute<Row>(orm, q, params, tx);
  const endpointOf = (r: Row): EndpointRow => ({
    id: r.id as string,
    orgId: r.org_id as number,
    url: r.url as string,
    eventTypes: r.event_types as EventType[],
    createdAt: new Date(r.created_at as string),
  });

  return {
    async insertEndpoint(e: { id: string; orgId: number; url: string; eventTypes: EventType[]; secretEnc: string }, tx?: Tx): Promise<EndpointRow> {
      const [row] = await sql(
        `insert into event_endpoints (id, org_id, url, event_types, secret_enc) values (?, ?, ?, ?::text[], ?) returning *`,
        [e.id, e.orgId, e.url, pgTextArray(e.eventTypes), e.secretEnc],
        tx,
      );
      return endpointOf(row!);
    },

    /** The org's endpoints that are not removed, oldest first. */
    async listEndpoints(orgId: number, tx?: Tx): Promise<EndpointRow[]> {
      const rows = await sql(`select * from event_endpoints where org_id = ? and removed_at is null order by created_at, id`, [orgId], tx);
      return rows.map(endpointOf);
    },

    /**
     * Removes an endpoint and cancels its pending deliveries in one transaction (in `tx` when
     * given); returns the cancelled delivery ids, or null when no such endpoint is active.
     */
    async removeEndpoint(id: string, tx?: Tx): Promise<string[] | null> {
      return transactionOf(orm, tx, async (em) => {
        const [gone] = await sql(`update event_endpoints set removed_at = now() where id = ?::uuid and removed_at is null returning id`, [id], em);
        if (!gone) return null;
        const cancelled = await sql(
          `update event_deliveries set status = 'cancelled', finished_at = now() where endpoint_id = ?::uuid and status = 'pending' returning id`,
          [id],
          em,
        );
        return cancelled.map((r) => r.id as string);
      });
    },

    /** Endpoints subscribed to `type` of the vendor orgs of `audience` (see `Audience`). */
    async recipients(type: EventType, audience: Audience, clientOrgId: number | null, tx?: Tx): Promise<RecipientRow[]> {
      let rows: Row[];
      if ('vendorOrgId' in audience) {
        rows = await sql(
          `select ep.id as endpoint_id, vo.id as vendor_org_id, vo.uuid as vendor_uuid,
                  (select co.uuid from orgs co where co.id = ?) as client_uuid, null::text[] as shared
             from event_endpoints ep join orgs vo on vo.id = ep.org_id
            where ep.org_id = ? and ep.removed_at is null and ? = any(ep.event_types)
            order by ep.created_at, ep.id`,
          [clientOrgId, audience.vendorOrgId, type],
          tx,
        );
      } else {
        if (clientOrgId === null) return [];
        rows = await sql(
          `select ep.id as endpoint_id, vo.id as vendor_org_id, vo.uuid as vendor_uuid, co.uuid as client_uuid, c.shared_data_points as shared
             from connections c
             join orgs co on co.id = c.client_org_id
             join orgs vo on vo.id = c.vendor_org_id
             join event_endpoints ep on ep.org_id = c.vendor_org_id and ep.removed_at is null and ? = any(ep.event_types)
            where c.client_org_id = ? and c.status = 'approved' and (?::int is null or c.vendor_org_id = ?::int)
            order by vo.id, ep.created_at, ep.id`,
          [type, clientOrgId, audience.onlyVendorOrgId ?? null, audience.onlyVendorOrgId ?? null],
          tx,
        );
      }
      return rows.map((r) => ({
        endpointId: r.endpoint_id as string,
        vendorOrgId: r.vendor_org_id as number,
        vendorOrgUuid: r.vendor_uuid as string,
        clientOrgUuid: (r.client_uuid as string | null) ?? null,
        sharedDataPoints: (r.shared as string[] | null) ?? EVERY_DATA_POINT,
      }));
    },

    /** Inserts events and their deliveries (`{id, eventId, endpointId}`), two statements. */
    async insertOutbox(events: NewEvent[], deliveries: { id: string; eventId: string; endpointId: string }[], tx?: Tx): Promise<void> {
      if (events.length === 0) return;
      await sql(
        `insert into events (id, type, vendor_org_id, client_org_id, connection_id, payload, created_at)
         select r.id, r.type, r.vendor_org_id, r.client_org_id, r.connection_id, r.payload::json, r.created_at
           from jsonb_to_recordset(?::jsonb) as r(id text, type text, vendor_org_id int, client_org_id int, connection_id uuid, payload text, created_at timestamptz)`,
        [
          JSON.stringify(
            events.map((e) => ({
              id: e.id,
              type: e.type,
              vendor_org_id: e.vendorOrgId,
              client_org_id: e.clientOrgId,
              connection_id: e.connectionId,
              payload: e.payload,
              created_at: e.createdAt.toISOString(),
            })),
          ),
        ],
        tx,
      );
      await sql(
        `insert into event_deliveries (id, event_id, endpoint_id)
         select r.id, r.event_id, r.endpoint_id from jsonb_to_recordset(?::jsonb) as r(id uuid, event_id text, endpoint_id uuid)`,
        [JSON.stringify(deliveries.map((d) => ({ id: d.id, event_id: d.eventId, endpoint_id: d.endpointId })))],
        tx,
      );
    },

    /** Notes that these deliveries' jobs were queued (the relay skips them until they are overdue). */
    async markEnqueued(ids: string[], tx?: Tx): Promise<void> {
      if (ids.length === 0) return;
      await sql(`update event_deliveries set enqueued_at = now() where id in (?) and enqueued_at is null`, [ids], tx);
    },

    /**
     * Pending deliveries the relay should (re)queue: never queued and older than a moment (their
     * producer's dispatch failed or its process died), or overdue by more than `graceMs`.
     */
    async relayCandidates(graceMs: number, limit: number, tx?: Tx): Promise<string[]> {
      const rows = await sql(
        `(select id from event_deliveries where status = 'pending' and enqueued_at is null and created_at < now() - interval '2 seconds' limit ?)
         union
         (select id from event_deliveries where status = 'pending' and next_attempt_at < now() - (? * interval '1 millisecond') limit ?)`,
        [limit, graceMs, limit],
        tx,
      );
      return rows.map((r) => r.id as string);
    },

    /** The delivery with its event and endpoint, or null. */
    async loadDelivery(id: string, tx?: Tx): Promise<DeliveryWork | null> {
      const [r] = await sql(
        `select d.id, d.status, d.attempts, e.id as event_id, e.type, e.payload::text as body, ep.id as endpoint_id, ep.url,
                ep.secret_enc, case when ep.previous_secret_until > now() then ep.previous_secret_enc end as previous_secret_enc, ep.removed_at is not null as endpoint_removed, ${ENTITLED_SQL} as entitled
           from event_deliveries d join events e on e.id = d.event_id join event_endpoints ep on ep.id = d.endpoint_id
          where d.id = ?::uuid`,
        [id],
        tx,
      );
      if (!r) return null;
      return {
        id: r.id as string,
        status: r.status as string,
        attempts: r.attempts as number,
        eventId: r.event_id as string,
        type: r.type as OutboxEventType,
        body: r.body as string,
        endpointId: r.endpoint_id as string,
        url: r.url as string,
        secretEnc: r.secret_enc as string,
        previousSecretEnc: (r.previous_secret_enc as string | null) ?? null,
        endpointRemoved: r.endpoint_removed === true,
        entitled: r.entitled === true,
      };
    },

    /** Ends a pending delivery as `cancelled` (endpoint removed, vendor no longer entitled). */
    async cancel(id: string, tx?: Tx): Promise<void> {
      await sql(`update event_deliveries set status = 'cancelled', finished_at = now() where id = ?::uuid and status = 'pending'`, [id], tx);
    },

    /**
     * Records one attempt and moves the delivery on in one statement: `delivered` on success,
     * `failed` once `maxAttempts` were made since the delivery was queued or last replayed
     * (`replay_base`), else still `pending` with its next attempt time. A delivery already ended
     * (e.g. cancelled meanwhile) keeps its status; the attempt is recorded anyway. Returns the
     * attempt number (counting every attempt ever made), `nth` (counting since the last replay)
     * and the delivery's status after it.
     */
    async recordAttempt(a: AttemptRecord, tx?: Tx): Promise<{ attempt: number; nth: number; status: string }> {
      const [r] = await sql(
        `with d as (
           update event_deliveries set
             attempts = attempts + 1,
             status = case when status <> 'pending' then status when ?::bool then 'delivered'
                           when attempts + 1 - replay_base >= ? then 'failed' else 'pending' end,
             next_attempt_at = now() + (coalesce((?::int[])[attempts + 1 - replay_base], 0) * interval '1 millisecond'),
             finished_at = case when status = 'pending' and (?::bool or attempts + 1 - replay_base >= ?) then now() else finished_at end
           where id = ?::uuid returning attempts, status, replay_base)
         insert into event_attempts (delivery_id, attempt, at, http_status, error, status_text, duration_ms)
         select ?::uuid, d.attempts, ?, ?, ?, ?, ? from d
         on conflict (delivery_id, attempt) do nothing
         returning attempt, (select attempts - replay_base from d) as nth, (select status from d) as status`,
        [
          a.ok,
          a.maxAttempts,
          `{${a.scheduleMs.join(',')}}`,
          a.ok,
          a.maxAttempts,
          a.deliveryId,
          a.deliveryId,
          a.at.toISOString(),
          a.httpStatus,
          a.error,
          a.statusText,
          Math.round(a.durationMs),
        ],
        tx,
      );
      return { attempt: (r?.attempt as number) ?? 0, nth: (r?.nth as number) ?? 0, status: (r?.status as string) ?? 'unknown' };
    },

    /**
     * Finds consents that expired since the last scan (and up to now), are not superseded by a
     * later-expiring consent of the same vendor, client org and employee, are not revoked, were
     * not announced yet and whose employee is still held (not erased or purged); records them as announced and moves the cursor, in `tx` (which
     * holds the cursor row locked, so concurrent scans take turns).
     */
    async claimExpiredConsents(tx: Tx, limit: number): Promise<ExpiredConsent[]> {
      const [cursor] = await sql(`select at from event_cursors where name = 'consent.expired' for update`, [], tx);
      if (!cursor) return [];
      const rows = await sql(
        `select k.id, k.vendor_org_id, k.client_org_id, k.employee_id, k.consent_expiry, now() as now
           from consents k
          where k.consent_expiry >= ? and k.consent_expiry <= now() and k.revoked_at is null and ${notWithdrawnSince('k')}
            and not exists (select 1 from consent_expiry_announcements a where a.consent_id = k.id)
            -- Erased (or purged): its id is not written to the outbox again (docs/erasure-and-retention.md "Every copy").
            and exists (select 1 from employees e where e.org_id = k.client_org_id and e.employee_id = k.employee_id)
            and not exists (select 1 from consents n
                  where n.vendor_org_id = k.vendor_org_id and n.client_org_id = k.client_org_id and n.employee_id = k.employee_id
                    and n.revoked_at is null and n.id <> k.id
                    and (n.consent_expiry > k.consent_expiry or (n.consent_expiry = k.consent_expiry and n.id > k.id)))
          order by k.consent_expiry, k.id limit ?`,
        [cursor.at, limit],
        tx,
      );
      if (rows.length) {
        await sql(
          `insert into consent_expiry_announcements (consent_id) select unnest(?::uuid[]) on conflict do nothing`,
          [`{${rows.map((r) => r.id as string).join(',')}}`],
          tx,
        );
      }
      // A full batch may leave more at the same instant: the cursor stops at the last one seen
      // (inclusive bound), and the announcement records keep those already done from repeating.
      const next = rows.length === limit ? rows.at(-1)!.consent_expiry : null;
      await sql(`update event_cursors set at = coalesce(?::timestamptz, now()) where name = 'consent.expired'`, [next], tx);
      return rows.map((r) => ({
        id: r.id as string,
        vendorOrgId: r.vendor_org_id as number,
        clientOrgId: r.client_org_id as number,
        employeeId: r.employee_id as string,
        expiry: new Date(r.consent_expiry as string),
      }));
    },
  };
}
