/**
 * Keeps every BullMQ job scheduler in line with PostgreSQL (docs/operations.md "Job schedulers at
 * scale", "Redis or PostgreSQL down; shutdown"): the per-client-org sync schedulers (src/sync/schedules.ts:
 * approved connections' frequencies and a valid HRMS configuration), the housekeeping schedulers
 * (outbox relay, consent-expiry scan; `installHousekeeping`) and the retention purge's
 * (docs/erasure-and-retention.md "Retention"). Redis may lose them (restarted empty, flushed,
 * failed over); PostgreSQL and the configuration are the truth.
 *
 * Each change (approval, termination, frequency, HRMS configuration) refreshes its org's scheduler
 * when it commits, and keeps the stored fingerprint of the set up to date. So the periodic check
 * (every `everyMs`, default 30 s) costs one PostgreSQL aggregate and one Redis round trip whatever
 * the number of orgs, plus upserting the few housekeeping and retention schedulers: it compares
 * the expected set's fingerprint with the stored one and the queue's scheduler count. A full pass
 * (every scheduler, one listing, only the differences written) runs at start, when Redis becomes
 * ready again, and when they differ: a Redis restarted empty has no fingerprint, so its
 * schedulers are back within one period, well within the 60 s the contract allows. Every step is
 * an idempotent upsert or removal.
 */
import type { RedisClient } from '../src/redis';
import type { Logger } from '../src/logger';
import type { RetentionQueue } from '../src/retention/queue';
import type { SyncQueue } from '../src/sync/queue';
import { fingerprintOf, type ScheduleStore } from '../src/sync/schedules';

export interface ScheduleReconcilerDeps {
  /** The expected sync schedulers and their fingerprint, from PostgreSQL (src/sync/schedules.ts). */
  schedules: Pick<ScheduleStore, 'expected' | 'fingerprint'>;
  /** The Redis client the queues use: its 'ready' after an outage triggers a full pass. */
  redis: RedisClient;
  syncQueue: Pick<SyncQueue, 'applySchedules' | 'schedulerState'>;
  /** Installs every housekeeping job scheduler (jobs/deps.ts `installHousekeeping`); idempotent. */
  installHousekeeping(): Promise<void>;
  retentionQueue: Pick<RetentionQueue, 'installScheduler'>;
  /** Period of the retention purge's job scheduler (ms, `HRX_RETENTION_PURGE_MS`). */
  retentionPurgeMs: number;
  log: Logger;
  everyMs?: number;
}

export interface ScheduleReconciler {
  /** One full pass; resolves with the org ids whose sync scheduler changed. Throws Redis/PG errors. */
  reconcile(): Promise<number[]>;
  /**
   * The periodic check: true when Redis holds the expected set (fingerprint and count agree);
   * otherwise runs a full pass and resolves false. Throws Redis/PG errors.
   */
  check(): Promise<boolean>;
  /** Stops the periodic and on-reconnect passes and waits for a running one. */
  stop(): Promise<void>;
}

/** Starts the reconciler: a full pass now and on every Redis 'ready', the check every `everyMs`. */
export function startScheduleReconciler(deps: ScheduleReconcilerDeps): ScheduleReconciler {
  let running: Promise<unknown> | null = null;
  let again: 'full' | 'periodic' | null = null;
  let stopped = false;

  async function reconcile(): Promise<number[]> {
    await deps.installHousekeeping();
    await deps.retentionQueue.installScheduler(deps.retentionPurgeMs);
    const expected = await deps.schedules.expected();
    return deps.syncQueue.applySchedules(expected, fingerprintOf(expected));
  }

  async function check(): Promise<boolean> {
    // The housekeeping and retention schedulers are a fixed few: upserted every time, as before.
    await deps.installHousekeeping();
    await deps.retentionQueue.installScheduler(deps.retentionPurgeMs);
    const [want, { stored, count }] = await Promise.all([deps.schedules.fingerprint(), deps.syncQueue.schedulerState()]);
    if (stored && stored.count === want.count && stored.sum === want.sum && count === want.count) return true;
    deps.log.info({ expected: want.count, stored: stored?.count ?? null, actual: count }, 'job schedulers differ from PostgreSQL; full pass');
    await reconcile();
    return false;
  }

  /**
   * Starts a pass (or marks one to follow the running one). Never rejects: a pass that fails (a
   * Redis command timing out under load, PostgreSQL refusing) is logged and tried again at the
   * next period or 'ready'; the error goes through the logger's `err` serializer, which keeps
   * names and codes, never a driver's message that may quote values (docs/privacy.md).
   */
  function kick(why: string): void {
    if (stopped) return;
    if (running) {
      // Run once more after it; a full pass asked for is never downgraded to a check.
      if (again !== 'full') again = why === 'periodic' ? 'periodic' : 'full';
      return;
    }
    const pass = why === 'periodic' ? check().then((same) => ({ full: !same, orgs: null })) : reconcile().then((orgs) => ({ full: true, orgs: orgs.length }));
    running = pass
      .then((r) => r.full && deps.log.debug({ why, changed: r.orgs }, 'job schedulers reconciled'))
      .catch((err: unknown) => deps.log.warn({ why, err }, 'job schedulers not reconciled; retried later'))
      .finally(() => {
        running = null;
        const next = again;
        again = null;
        if (next) kick(next === 'full' ? 'again' : 'periodic');
      });
  }

  const onReady = (): void => kick('redis ready');
  deps.redis.on('ready', onReady);
  const timer = setInterval(() => kick('periodic'), deps.everyMs ?? 30_000);
  timer.unref();
  kick('start');
  return {
    reconcile,
    check,
    async stop() {
      stopped = true;
      clearInterval(timer);
      deps.redis.off('ready', onReady);
      await running;
    },
  };
}
