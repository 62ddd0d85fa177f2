/**
 * Persistence of sync runs (docs/behaviour.md "Sync") and the org-level facts a sync needs. Every method
 * takes an optional `Tx` (db/tx.ts), last, to run in a caller's transaction (e.g. a run's end
 * commits with the employees it removes and its events).
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SyncRun, type SyncCoverage, type SyncKind } from '../db/entities';
import { emOf, execute, type Tx } from '../db/tx';
import type { SyncTrigger } from './queue';

export type { RemovedEmployee } from '../employees/store';

/** How a run ended. */
export interface RunEnd {
  status: 'succeeded' | 'failed';
  finishedAt: Date;
  employeesRemoved?: number;
  error?: string;
  /** Per data point, how many of the run's employees have a value (src/domain/coverage.ts). */
  coverage?: SyncCoverage;
}

/** A client org as `hrx sync status` lists it. */
export interface OrgSyncSummary {
  orgId: number;
  orgUuid: string;
  orgName: string;
  /** Its HRMS configuration's `hrms_id` and validity; null without one. */
  hrms: { hrmsId: string; valid: boolean } | null;
  latest: SyncRun | null;
}

export interface SyncRunStore {
  /** Starts a run (id `id`, default a new UUID). */
  start(orgId: number, trigger: SyncTrigger, kind?: SyncKind, tx?: Tx, id?: string): Promise<SyncRun>;
  /**
   * Records run `id`, promised to a vendor (sync on demand), as one that ended before it started
   * (status `skipped`, `error` the reason, started and finished now), unless a run `id` exists.
   */
  recordSkipped(orgId: number, trigger: SyncTrigger, id: string, reason: string, tx?: Tx): Promise<void>;
  /**
   * Start times of the org's latest succeeded run of any kind (`any`) and of the latest
   * succeeded full run (`full`); null when there is none (docs/hrms/connectors.md "Full and incremental syncs").
   */
  lastSucceeded(orgId: number, tx?: Tx): Promise<{ any: Date | null; full: Date | null }>;
  progress(id: string, pages: number, employeesSeen: number, tx?: Tx): Promise<void>;
  /** Ends run `id` (in `tx` when given, e.g. with its removals and events). */
  finish(id: string, end: RunEnd, tx?: Tx): Promise<void>;
  latest(orgId: number, tx?: Tx): Promise<SyncRun | null>;
  /** Run `id`, or null. */
  get(id: string, tx?: Tx): Promise<SyncRun | null>;
  /** The org's last `limit` runs, newest first. */
  recent(orgId: number, limit: number, tx?: Tx): Promise<SyncRun[]>;
  /**
   * The org's latest full run that succeeded (its employee count estimates the next run's; its
   * coverage is what a full run's coverage is compared with), or null.
   */
  lastSucceededFull(orgId: number, tx?: Tx): Promise<SyncRun | null>;
  /**
   * Every client org with an HRMS configuration or a sync run (at most `limit`, by name), with
   * its configuration's state and its latest run.
   */
  clientOrgs(limit: number, tx?: Tx): Promise<OrgSyncSummary[]>;
  /** Number of active (pending or approved) connections of a client org. */
  activeConnections(orgId: number, tx?: Tx): Promise<number>;
}

/** Builds the sync-run store over `orm`. */
export function createSyncRunStore(orm: MikroORM): SyncRunStore {
  return {
    async start(orgId, trigger, kind = 'full', tx, id) {
      const em = emOf(orm, tx);
      const run = em.create(SyncRun, { ...new SyncRun(), id: id ?? randomUUID(), orgId, trigger, kind, startedAt: new Date() } as SyncRun);
      await em.persistAndFlush(run);
      return run;
    },
    async recordSkipped(orgId, trigger, id, reason, tx) {
      await execute(
        orm,
        `insert into sync_runs (id, org_id, trigger, kind, status, started_at, finished_at, pages, employees_seen, employees_removed, error)
         values (?, ?, ?, 'full', 'skipped', now(), now(), 0, 0, 0, ?) on conflict (id) do nothing`,
        [id, orgId, trigger, reason],
        tx,
      );
    },
    async progress(id, pages, employeesSeen, tx) {
      await emOf(orm, tx).nativeUpdate(SyncRun, { id }, { pages, employeesSeen });
    },
    async finish(id, end, tx) {
      await emOf(orm, tx).nativeUpdate(
        SyncRun,
        { id },
        {
          status: end.status,
          finishedAt: end.finishedAt,
          employeesRemoved: end.employeesRemoved ?? 0,
          error: end.error ?? null,
          coverage: end.coverage ?? null,
        },
      );
    },
    async lastSucceeded(orgId, tx) {
      const [row] = await execute<{ any: Date | null; full: Date | null }>(
        orm,
        `select max(started_at) as "any", max(started_at) filter (where kind = 'full') as "full"
           from sync_runs where org_id = ? and status = 'succeeded'`,
        [orgId],
        tx,
      );
      return { any: row!.any ? new Date(row!.any) : null, full: row!.full ? new Date(row!.full) : null };
    },
    latest: (orgId, tx) => emOf(orm, tx).findOne(SyncRun, { orgId }, { orderBy: { startedAt: 'desc' } }),
    get: (id, tx) => emOf(orm, tx).findOne(SyncRun, { id }),
    recent: (orgId, limit, tx) => emOf(orm, tx).find(SyncRun, { orgId }, { orderBy: { startedAt: 'desc' }, limit }),
    lastSucceededFull: (orgId, tx) => emOf(orm, tx).findOne(SyncRun, { orgId, status: 'succeeded', kind: 'full' }, { orderBy: { startedAt: 'desc' } }),
    async clientOrgs(limit, tx) {
      const rows = await execute<{ id: number; uuid: string; org_name: string; hrms_id: string | null; valid: boolean | null; run_id: string | null }>(
        orm,
        `select o.id, o.uuid, o.org_name, h.hrms_id, h.valid, r.id as run_id
           from orgs o
           left join hrms_configs h on h.org_id = o.id
           left join lateral (select s.id from sync_runs s where s.org_id = o.id order by s.started_at desc limit 1) r on true
          where o.is_client and (h.org_id is not null or r.id is not null)
          order by o.org_name, o.id
          limit ?`,
        [limit],
        tx,
      );
      const ids = rows.map((r) => r.run_id).filter((id): id is string => id !== null);
      const runs = new Map((ids.length ? await emOf(orm, tx).find(SyncRun, { id: { $in: ids } }) : []).map((r) => [r.id, r]));
      return rows.map((r) => ({
        orgId: r.id,
        orgUuid: r.uuid,
        orgName: r.org_name,
        hrms: r.hrms_id === null ? null : { hrmsId: r.hrms_id, valid: r.valid === true },
        latest: r.run_id === null ? null : (runs.get(r.run_id) ?? null),
      }));
    },
    async activeConnections(orgId, tx) {
      const [row] = await execute<{ n: number }>(
        orm,
        `select count(*)::int as n from connections where client_org_id = ? and status in ('pending','approved')`,
        [orgId],
        tx,
      );
      return row!.n;
    },
  };
}
