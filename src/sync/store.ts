/**
 * Persistence of sync runs (decisions §5) and the org-level facts a sync needs. Writes take an
 * optional `Tx` (db/tx.ts) so a run's end commits with the employees it removes and its events.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SyncRun } from '../db/entities';
import type { Tx } from '../db/tx';
import type { SyncTrigger } from './queue';

export type { RemovedEmployee } from '../employees/store';

/** How a run ended. */
export interface RunEnd {
  status: 'succeeded' | 'failed';
  finishedAt: Date;
  employeesRemoved?: number;
  error?: string;
}

export interface SyncRunStore {
  start(orgId: number, trigger: SyncTrigger): Promise<SyncRun>;
  progress(id: string, pages: number, employeesSeen: number): Promise<void>;
  /** Ends run `id` (in `tx` when given, e.g. with its removals and events). */
  finish(id: string, end: RunEnd, tx?: Tx): Promise<void>;
  latest(orgId: number): Promise<SyncRun | null>;
  /** Number of active (pending or approved) connections of a client org. */
  activeConnections(orgId: number): Promise<number>;
}

/** Builds the sync-run store over `orm`. */
export function createSyncRunStore(orm: MikroORM): SyncRunStore {
  return {
    async start(orgId, trigger) {
      const em = orm.em.fork();
      const run = em.create(SyncRun, { ...new SyncRun(), id: randomUUID(), orgId, trigger, startedAt: new Date() } as SyncRun);
      await em.persistAndFlush(run);
      return run;
    },
    async progress(id, pages, employeesSeen) {
      await orm.em.fork().nativeUpdate(SyncRun, { id }, { pages, employeesSeen });
    },
    async finish(id, end, tx) {
      await (tx ?? orm.em.fork()).nativeUpdate(SyncRun, { id }, {
        status: end.status, finishedAt: end.finishedAt, employeesRemoved: end.employeesRemoved ?? 0, error: end.error ?? null,
      });
    },
    latest: (orgId) => orm.em.fork().findOne(SyncRun, { orgId }, { orderBy: { startedAt: 'desc' } }),
    async activeConnections(orgId) {
      const [row] = (await orm.em.getConnection().execute(
        `select count(*)::int as n from connections where client_org_id = ? and status in ('pending','approved')`, [orgId],
      )) as [{ n: number }];
      return row.n;
    },
  };
}
