/**
 * What the freshness of a connection is read from (docs/api.md "Connection status"): one SQL
 * round trip over the client org's HRMS configuration, health row, runs and served employees,
 * and the per-connection record of syncs on demand (at most one an hour). Every method takes an
 * optional `Tx` (db/tx.ts), last.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { OrgHealthState } from '../db/entities';
import { execute, type Tx } from '../db/tx';

/** Coverage of a sync run as recorded with it: employees synced, and per data point how many have a value. */
export interface RunCoverage {
  employees: number;
  points: Record<string, number>;
}

/** A client org's freshness facts. Times are Dates; null when there is none. */
export interface OrgFreshness {
  /** Its HRMS configuration's `hrms_id`, or null (none: `not_configured`). */
  hrmsId: string | null;
  /** False once the HRMS refused the stored credentials (the configuration is marked invalid); null without one. */
  configValid: boolean | null;
  /** The stored health (sync/health.ts), or null (no run ever started). */
  state: OrgHealthState | null;
  lastSuccessAt: Date | null;
  /** The latest run: id, start, status, kind; null when none. */
  lastRun: { id: string; startedAt: Date; status: string; kind: string } | null;
  /** Employees served now (not removed). */
  employees: number;
  /** Coverage of the latest succeeded full run, or null (none, or recorded without coverage). */
  coverage: RunCoverage | null;
}

const date = (d: Date | string | null): Date | null => (d === null ? null : new Date(d));

/** True when `v` (a jsonb value) has the recorded coverage shape `{"employees": int, "points": {name: int}}`. */
function isCoverage(v: unknown): v is RunCoverage {
  if (typeof v !== 'object' || v === null || !('employees' in v) || !('points' in v)) return false;
  const { employees, points } = v;
  return typeof employees === 'number' && typeof points === 'object' && points !== null && Object.values(points).every((n) => typeof n === 'number');
}

export type FreshnessStore = ReturnType<typeof createFreshnessStore>;

/** Builds the store over `orm`. */
export function createFreshnessStore(orm: MikroORM) {
  return {
    /** Client org `orgId`'s freshness facts. */
    async orgFreshness(orgId: number, tx?: Tx): Promise<OrgFreshness> {
      // `to_jsonb(r)->'coverage'`: null-safe whether or not sync_runs has its coverage column yet.
      const [r] = await execute<{
        hrms_id: string | null;
        valid: boolean | null;
        state: OrgHealthState | null;
        last_success_at: Date | null;
        run_id: string | null;
        run_started_at: Date | null;
        run_status: string | null;
        run_kind: string | null;
        employees: number;
        coverage: unknown;
      }>(
        orm,
        `select hc.hrms_id, hc.valid, h.state,
                greatest(h.last_success_at, (select max(s.finished_at) from sync_runs s where s.org_id = o.id and s.status = 'succeeded')) as last_success_at,
                lr.id as run_id, lr.started_at as run_started_at, lr.status as run_status, lr.kind as run_kind,
                (select count(*)::int from employees e where e.org_id = o.id and e.removed_at is null) as employees,
                (select to_jsonb(f)->'coverage' from sync_runs f where f.org_id = o.id and f.status = 'succeeded' and f.kind = 'full'
                  order by f.started_at desc limit 1) as coverage
           from orgs o
           left join hrms_configs hc on hc.org_id = o.id
           left join org_health h on h.org_id = o.id
           left join lateral (select s.id, s.started_at, s.status, s.kind from sync_runs s where s.org_id = o.id order by s.started_at desc limit 1) lr on true
          where o.id = ?`,
        [orgId],
        tx,
      );
      if (!r) throw new Error(`orgFreshness: no org ${orgId}`);
      return {
        hrmsId: r.hrms_id,
        configValid: r.valid,
        state: r.state,
        lastSuccessAt: date(r.last_success_at),
        lastRun: r.run_id ? { id: r.run_id, startedAt: date(r.run_started_at)!, status: r.run_status!, kind: r.run_kind! } : null,
        employees: r.employees,
        coverage: isCoverage(r.coverage) ? r.coverage : null,
      };
    },

    /**
     * Claims the hour's sync on demand of `connectionId` at `now` for run `runId`: true when the
     * connection had none within `windowMs` (the claim is stored), else false with when the next
     * one is allowed. One statement: two calls at once cannot both win.
     */
    async claimSyncRequest(
      connectionId: string,
      runId: string,
      now: Date,
      windowMs: number,
      tx?: Tx,
    ): Promise<{ ok: true } | { ok: false; availableAt: Date }> {
      const won = await execute<{ run_id: string }>(
        orm,
        `insert into sync_requests (connection_id, requested_at, run_id) values (?, ?, ?)
         on conflict (connection_id) do update set requested_at = excluded.requested_at, run_id = excluded.run_id
           where sync_requests.requested_at <= excluded.requested_at - (? * interval '1 millisecond')
         returning run_id`,
        [connectionId, now, runId, windowMs],
        tx,
      );
      if (won.length) return { ok: true };
      const [held] = await execute<{ requested_at: Date }>(orm, `select requested_at from sync_requests where connection_id = ?`, [connectionId], tx);
      return { ok: false, availableAt: new Date(new Date(held?.requested_at ?? now).getTime() + windowMs) };
    },

    /** The connections of client org `orgId` (terminated ones too), oldest first, with their vendor's uuid and name. */
    async connectionsOf(orgId: number, tx?: Tx): Promise<{ id: string; vendorUuid: string; vendorName: string; status: string }[]> {
      const rows = await execute<{ id: string; uuid: string; org_name: string; status: string }>(
        orm,
        `select c.id, v.uuid, v.org_name, c.status from connections c join orgs v on v.id = c.vendor_org_id
          where c.client_org_id = ? order by c.created_at, c.id`,
        [orgId],
        tx,
      );
      return rows.map((r) => ({ id: r.id, vendorUuid: r.uuid, vendorName: r.org_name, status: r.status }));
    },

    /** Gives back a claim that queued nothing (the queue refused it), so the vendor may ask again at once. */
    async releaseSyncRequest(connectionId: string, runId: string, tx?: Tx): Promise<void> {
      await execute(orm, `delete from sync_requests where connection_id = ? and run_id = ?`, [connectionId, runId], tx);
    },
  };
}
