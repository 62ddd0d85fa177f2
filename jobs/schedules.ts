/**
 * Keeps every BullMQ job scheduler in line with PostgreSQL (docs/operations.md "Redis or PostgreSQL down; shutdown"):
 * the per-client-org sync schedulers (from the approved connections' frequencies and a valid HRMS
 * configuration), the housekeeping schedulers (outbox relay, consent-expiry scan, on the
 * housekeeping queue; `installHousekeeping`) and the retention purge's (docs/erasure-and-retention.md "Retention", on the
 * retention queue). Redis may lose them (restarted empty, flushed, failed over); PostgreSQL and
 * the configuration are the truth, so a worker recreates them when its Redis connection becomes
 * ready again and every `everyMs` (default 30 s), well within the 60 s the contract allows.
 * Every step is an idempotent upsert or removal.
 */
import type { RedisClient } from '../src/redis';
import type { Logger } from '../src/logger';
import type { RetentionQueue } from '../src/retention/queue';
import { syncSchedulerOrg, type SyncQueue } from '../src/sync/queue';

export interface ScheduleReconcilerDeps {
  /** Ids of the client orgs with an approved connection (connection service). */
  approvedClientOrgs(): Promise<number[]>;
  /** The Redis client the queues use: its 'ready' after an outage triggers a reconcile. */
  redis: RedisClient;
  syncQueue: Pick<SyncQueue, 'queue'>;
  /** Installs every housekeeping job scheduler (jobs/deps.ts `installHousekeeping`); idempotent. */
  installHousekeeping(): Promise<void>;
  retentionQueue: Pick<RetentionQueue, 'installScheduler'>;
  /** Period of the retention purge's job scheduler (ms, `HRX_RETENTION_PURGE_MS`). */
  retentionPurgeMs: number;
  /** Recomputes and installs (or removes) the sync scheduler of one client org (sync service). */
  refreshSchedule(orgId: number): Promise<void>;
  log: Logger;
  everyMs?: number;
}

export interface ScheduleReconciler {
  /** One full pass; resolves with the org ids whose sync scheduler was refreshed. Throws Redis/PG errors. */
  reconcile(): Promise<number[]>;
  /** Stops the periodic and on-reconnect passes and waits for a running one. */
  stop(): Promise<void>;
}

/** Starts the reconciler: a pass now, on every Redis 'ready' and every `everyMs`. */
export function startScheduleReconciler(deps: ScheduleReconcilerDeps): ScheduleReconciler {
  let running: Promise<unknown> | null = null;
  let again = false;
  let stopped = false;

  async function reconcile(): Promise<number[]> {
    await deps.installHousekeeping();
    await deps.retentionQueue.installScheduler(deps.retentionPurgeMs);
    const orgs = new Set(await deps.approvedClientOrgs());
    // Schedulers of orgs no longer approved (their removal may have been missed while Redis was away).
    for (const s of await deps.syncQueue.queue.getJobSchedulers(0, -1)) {
      const orgId = syncSchedulerOrg(s.key) ?? syncSchedulerOrg(s.id);
      if (orgId !== null) orgs.add(orgId);
    }
    const refreshed: number[] = [];
    for (const orgId of orgs) {
      await deps.refreshSchedule(orgId);
      refreshed.push(orgId);
    }
    return refreshed;
  }

  function kick(why: string): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = reconcile()
      .then((orgs) => deps.log.debug({ why, orgs: orgs.length }, 'job schedulers reconciled'))
      .catch((err: unknown) => deps.log.warn({ why, err: err instanceof Error ? err.message : String(err) }, 'job schedulers not reconciled; retried later'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick('again');
        }
      });
  }

  const onReady = (): void => kick('redis ready');
  deps.redis.on('ready', onReady);
  const timer = setInterval(() => kick('periodic'), deps.everyMs ?? 30_000);
  timer.unref();
  kick('start');
  return {
    reconcile,
    async stop() {
      stopped = true;
      clearInterval(timer);
      deps.redis.off('ready', onReady);
      await running;
    },
  };
}
