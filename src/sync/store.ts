/**
 * Persistence of sync runs (decisions §5) and the org-level facts a sync needs.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SyncRun } from '../db/entities';

export interface SyncRunStore {
  start(orgId: number, trigger: string): Promise<SyncRun>;
  progress(id: string, pages: number, employeesSeen: number): Promise<void>;
  finish(id: string, outcome: { status: 'succeeded' | 'failed'; employeesRemoved?: number; error?: string }): Promise<void>;
  latest(orgId: number): Promise<SyncRun | null>;
  /** Number of live (pending or approved) connections of a client org. */
  liveConnections(orgId: number): Promise<number>;
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
    async finish(id, o) {
      await orm.em.fork().nativeUpdate(SyncRun, { id }, {
        status: o.status, finishedAt: new Date(), employeesRemoved: o.employeesRemoved ?? 0, error: o.error ?? null,
      });
    },
    latest: (orgId) => orm.em.fork().findOne(SyncRun, { orgId }, { orderBy: { startedAt: 'desc' } }),
    async liveConnections(orgId) {
      const [row] = (await orm.em.getConnection().execute(
        `select count(*)::int as n from connections where client_org_id = ? and status in ('pending','approved')`, [orgId],
      )) as [{ n: number }];
      return row.n;
    },
  };
}
