/**
 * Counters of the work the workers do (docs/operations.md "Metrics: `GET /metrics`": sync runs by outcome and duration,
 * employees synced, event deliveries by outcome), kept in Redis beside the queues, so the API's
 * `/metrics` reads every worker's counts in one command at scrape time.
 *
 * Why here and not elsewhere: the API cannot see a worker's memory, and a metrics port per worker
 * means a scrape target per worker and counts lost with each restart; aggregating `sync_runs` and
 * `event_deliveries` at scrape time reads every row ever kept (at 1,000 orgs with a year of daily
 * syncs, 365,000 runs: past the 1.5 s statement limit on a busy 2-core machine). An increment here
 * is O(1) to write and the read is one `HGETALL` whatever the history. Written best effort, after
 * the run's or delivery's end is committed: a Redis that does not answer loses that increment
 * (logged at debug), never the work. A Redis that restarts empty starts the counters at zero,
 * which Prometheus reads as a counter reset.
 *
 * Key: `<HRX_REDIS_PREFIX>:metrics:work`, one hash. Fields: `sync:<outcome>:runs`,
 * `sync:<outcome>:seconds`, `sync:<outcome>:bucket:<i>` (runs whose duration falls in bucket i
 * alone, made cumulative at read), `sync:employees`, `sync:removed`, `deliveries:<outcome>`.
 */
import type { RedisClient } from '../redis';
import type { Logger } from '../logger';

/**
 * Upper bounds (seconds) of the sync-run duration histogram: a small org syncs in seconds, a
 * 10,000-employee org in about a minute (README "Benchmarks", full_sync), a slow HRMS in hours.
 */
export const SYNC_DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 10_800] as const;

/** Outcomes of a finished sync run (`sync_runs.status`). */
export const SYNC_OUTCOMES = ['succeeded', 'failed'] as const;
export type SyncRunOutcome = (typeof SYNC_OUTCOMES)[number];

/** How finished deliveries ended (`event_deliveries.status` other than `pending`). */
export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'cancelled'] as const;
export type DeliveryEnd = (typeof DELIVERY_OUTCOMES)[number];

/** One finished sync run as counted. */
export interface SyncRunRecord {
  outcome: SyncRunOutcome;
  /** From the run's start to its end, seconds. */
  seconds: number;
  /** Employees the run wrote (all pages stored, also of a run that failed later). */
  employees: number;
  /** Employees it marked removed (0 unless it succeeded). */
  removed: number;
}

/** The finished sync runs of one outcome. */
export interface SyncRunTotals {
  outcome: SyncRunOutcome;
  runs: number;
  /** Runs whose duration is ≤ each of SYNC_DURATION_BUCKETS, cumulative. */
  buckets: number[];
  /** Sum of their durations, seconds. */
  seconds: number;
}

/** Everything counted so far, by every worker. */
export interface WorkTotals {
  syncRuns: SyncRunTotals[];
  employeesSynced: number;
  employeesRemoved: number;
  deliveries: Record<DeliveryEnd, number>;
}

/**
 * Index in SYNC_DURATION_BUCKETS of the smallest bound ≥ `seconds` (a duration equal to a bound
 * is in that bound's bucket: Prometheus's `le`, "less or equal"); the length of the list when it
 * is above every bound.
 */
export function bucketIndex(seconds: number): number {
  const i = SYNC_DURATION_BUCKETS.findIndex((b) => seconds <= b);
  return i === -1 ? SYNC_DURATION_BUCKETS.length : i;
}

/** Builds the counters over `redis` (the request-path client: a command is sent now or fails now). */
export function createWorkCounters(redis: RedisClient, prefix: string, log: Logger) {
  const key = `${prefix}:metrics:work`;
  const lost = (what: string) => (err: unknown) => log.debug({ what, err }, 'work counter not recorded');
  return {
    /** Counts a finished sync run. Never throws, never waits. */
    syncRun(r: SyncRunRecord): void {
      const o = r.outcome;
      redis
        .multi()
        .hincrby(key, `sync:${o}:runs`, 1)
        .hincrbyfloat(key, `sync:${o}:seconds`, r.seconds)
        .hincrby(key, `sync:${o}:bucket:${bucketIndex(r.seconds)}`, 1)
        .hincrby(key, 'sync:employees', r.employees)
        .hincrby(key, 'sync:removed', r.removed)
        .exec()
        .catch(lost('sync run'));
    },
    /** Counts `n` deliveries that ended `outcome`. Never throws, never waits. */
    deliveries(outcome: DeliveryEnd, n = 1): void {
      if (n > 0) redis.hincrby(key, `deliveries:${outcome}`, n).catch(lost('deliveries'));
    },
    /** Everything counted so far; throws Redis errors (command timeout 1.5 s). */
    async read(): Promise<WorkTotals> {
      const h = await redis.hgetall(key);
      const num = (field: string): number => Number(h[field] ?? 0);
      return {
        syncRuns: SYNC_OUTCOMES.map((outcome) => {
          let cumulative = 0;
          const buckets = SYNC_DURATION_BUCKETS.map((_, i) => (cumulative += num(`sync:${outcome}:bucket:${i}`)));
          return { outcome, runs: num(`sync:${outcome}:runs`), buckets, seconds: num(`sync:${outcome}:seconds`) };
        }),
        employeesSynced: num('sync:employees'),
        employeesRemoved: num('sync:removed'),
        deliveries: { delivered: num('deliveries:delivered'), failed: num('deliveries:failed'), cancelled: num('deliveries:cancelled') },
      };
    },
  };
}

/** The work counters. */
export type WorkCounters = ReturnType<typeof createWorkCounters>;
