/**
 * Persistence of sync runs (decisions §5) and the org-level facts a sync needs.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { SyncRun } from '../db/entities';

/** An employee a full sync no longer saw: store id and HRMS `employeeId`. */
export interface RemovedEmployee {
  id: string;
  employeeId: string;
}

export interface SyncRunStore {
  start(orgId: number, trigger: string): Promise<SyncRun>;
  progress(id: string, pages: number, employeesSeen: number): Promise<void>;
  /** Ends a run; `within` runs in the same transaction (e.g. writing its events to the outbox). */
  finish(id: string, outcome: { status: 'succeeded' | 'failed'; employeesRemoved?: number; error?: string }, within?: (tx: EntityManager, finishedAt: Date) => Promise<void>): Promise<void>;
  /**
   * Ends run `runId` of `orgId` as succeeded and marks the org's employees it did not see as
   * removed, in one transaction with `within` (which gets the removed employees), so the
   * removal and its `employee.removed` events commit together. Returns the removed employees.
   */
  succeed(orgId: number, runId: string, within?: (tx: EntityManager, removed: RemovedEmployee[], finishedAt: Date) => Promise<void>): Promise<RemovedEmployee[]>;
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
    async finish(id, o, within) {
      const finishedAt = new Date();
      await orm.em.fork().transactional(async (tx) => {
        await tx.nativeUpdate(SyncRun, { id }, {
          status: o.status, finishedAt, employeesRemoved: o.employeesRemoved ?? 0, error: o.error ?? null,
        });
        if (within) await within(tx, finishedAt);
      });
    },
    async succeed(orgId, runId, within) {
      const finishedAt = new Date();
      return orm.em.fork().transactional(async (tx) => {
        // The rule of EmployeeStore.removeUnseen, with the rows it removed.
        const rows = (await tx.getConnection().execute(
          `update employees set removed_at = now(), updated_at = now()
            where org_id = ? and removed_at is null and last_sync_run_id is distinct from ?::uuid
          returning id, employee_id`,
          [orgId, runId], 'all', tx.getTransactionContext(),
        )) as { id: string; employee_id: string }[];
        const removed = rows.map((r) => ({ id: r.id, employeeId: r.employee_id })).sort((a, b) => (a.employeeId < b.employeeId ? -1 : a.employeeId > b.employeeId ? 1 : 0));
        await tx.nativeUpdate(SyncRun, { id: runId }, { status: 'succeeded', finishedAt, employeesRemoved: removed.length, error: null });
        if (within) await within(tx, removed, finishedAt);
        return removed;
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
