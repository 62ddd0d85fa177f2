/**
 * Persistence of a vendor's self-service over its event endpoints (docs/events.md
 * "Self-service"): every statement is scoped to the calling vendor org, so another vendor's
 * endpoint or delivery reads as absent. SQL through MikroORM's connection; every method takes an
 * optional `Tx` (db/tx.ts), last.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, type Tx } from '../db/tx';

/** One delivery as the vendor lists it: ids, type, outcome; never the payload. */
export interface DeliveryListRow {
  id: string;
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastAttemptAt: Date | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  createdAt: Date;
}

type Row = Record<string, unknown>;

export type SelfServiceStore = ReturnType<typeof createSelfServiceStore>;

/** Builds the self-service store over `orm`. */
export function createSelfServiceStore(orm: MikroORM) {
  const sql = (q: string, params: unknown[] = [], tx?: Tx): Promise<Row[]> => execute<Row>(orm, q, params, tx);
  return {
    /** Whether `endpointId` is an active endpoint of `orgId`. */
    async ownsEndpoint(orgId: number, endpointId: string, tx?: Tx): Promise<boolean> {
      const rows = await sql(`select 1 from event_endpoints where id = ?::uuid and org_id = ? and removed_at is null`, [endpointId, orgId], tx);
      return rows.length > 0;
    },

    /**
     * Replaces the secret of active endpoint `endpointId` of `orgId` by `secretEnc`; the old one
     * is kept to sign too until `now() + overlapMs`. Returns that instant, or null when the org
     * has no such active endpoint.
     */
    async rotateSecret(orgId: number, endpointId: string, secretEnc: string, overlapMs: number, tx?: Tx): Promise<Date | null> {
      const [row] = await sql(
        `update event_endpoints set previous_secret_enc = secret_enc, previous_secret_until = now() + (? * interval '1 millisecond'), secret_enc = ?
          where id = ?::uuid and org_id = ? and removed_at is null returning previous_secret_until`,
        [overlapMs, secretEnc, endpointId, orgId],
        tx,
      );
      return row ? new Date(row.previous_secret_until as string) : null;
    },

    /** One page of the endpoint's deliveries, newest first, with the total count. */
    async listDeliveries(endpointId: string, page: { limit: number; offset: number }, tx?: Tx): Promise<{ total: number; rows: DeliveryListRow[] }> {
      const [count] = await sql(`select count(*)::int as n from event_deliveries where endpoint_id = ?::uuid`, [endpointId], tx);
      const rows = await sql(
        `select d.id, d.event_id, e.type, d.status, d.attempts, d.created_at, a.at as last_at, a.http_status, a.error
           from event_deliveries d join events e on e.id = d.event_id
           left join lateral (select at, http_status, error from event_attempts x where x.delivery_id = d.id order by x.attempt desc limit 1) a on true
          where d.endpoint_id = ?::uuid
          order by d.created_at desc, d.id desc limit ? offset ?`,
        [endpointId, page.limit, page.offset],
        tx,
      );
      return {
        total: (count?.n as number) ?? 0,
        rows: rows.map((r) => ({
          id: r.id as string,
          eventId: r.event_id as string,
          type: r.type as string,
          status: r.status as string,
          attempts: r.attempts as number,
          lastAttemptAt: r.last_at ? new Date(r.last_at as string) : null,
          lastHttpStatus: (r.http_status as number | null) ?? null,
          lastError: (r.error as string | null) ?? null,
          createdAt: new Date(r.created_at as string),
        })),
      };
    },

    /**
     * Makes delivery `deliveryId` pending again when it belongs to an active endpoint of
     * `orgId`: an ended one starts the retry schedule anew (`replay_base`), a pending one is
     * left as it is. Returns `{eventId, endpointId}`, or null when the org has no such delivery.
     */
    async replay(orgId: number, deliveryId: string, tx?: Tx): Promise<{ eventId: string; endpointId: string } | null> {
      const [row] = await sql(
        `update event_deliveries d set
            replay_base = case when d.status = 'pending' then d.replay_base else d.attempts end,
            next_attempt_at = case when d.status = 'pending' then d.next_attempt_at else now() end,
            finished_at = null, enqueued_at = null, status = 'pending'
           from event_endpoints ep
          where d.id = ?::uuid and ep.id = d.endpoint_id and ep.org_id = ? and ep.removed_at is null
          returning d.event_id, d.endpoint_id`,
        [deliveryId, orgId],
        tx,
      );
      return row ? { eventId: row.event_id as string, endpointId: row.endpoint_id as string } : null;
    },
  };
}
