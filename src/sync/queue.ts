/**
 * The BullMQ side of syncs that API processes need: queueing a sync now and keeping each client
 * org's job scheduler (BullMQ job schedulers) in line with its connections. The worker that
 * consumes the queue lives in `jobs/`.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { RedisClient } from '../redis';
import { bullPrefix, type JobSpec, type QueueOf } from '../queue/bull';
import { schedulerHash, type SchedulerFingerprint } from './schedules';

/** Name of the sync queue. */
export const SYNC_QUEUE = 'sync';

/**
 * What queued a sync (stored in `sync_runs.trigger`): `setup` is the first sync after
 * setup-config, `approval` the sync the org's first approved connection queues (docs/api.md "Setup config"),
 * `schedule` the org's job scheduler, `operator` `hrx sync run`, `vendor` a vendor's sync on
 * demand (docs/api.md "Sync on demand"), `test` and `bench` the test suite and the benchmarks.
 */
export const SYNC_TRIGGERS = ['setup', 'approval', 'schedule', 'operator', 'vendor', 'test', 'bench'] as const;
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];

/** The sync queue's jobs: job name → payload. */
export type SyncJobs = {
  /**
   * A sync of client org `orgId`. A vendor's sync on demand also names the run id it promised
   * (`runId`) and whether it asked for a full run (`full`).
   */
  sync: { orgId: number; trigger: SyncTrigger; runId?: string; full?: boolean };
};
export type SyncJobData = SyncJobs['sync'];

/** True when `data` (a payload read back from Redis, maybe written by an older hrx) is a sync payload. */
export function isSyncJobData(data: unknown): data is SyncJobData {
  if (typeof data !== 'object' || data === null || !('orgId' in data) || !('trigger' in data)) return false;
  const { orgId, trigger } = data;
  const runId = 'runId' in data ? data.runId : undefined;
  const full = 'full' in data ? data.full : undefined;
  if ((runId !== undefined && typeof runId !== 'string') || (full !== undefined && typeof full !== 'boolean')) return false;
  return Number.isInteger(orgId) && SYNC_TRIGGERS.some((t) => t === trigger);
}

/** The job scheduler id of client org `orgId`'s syncs. */
export const syncSchedulerId = (orgId: number): string => `sync-org-${orgId}`;

/** The org id of a sync job scheduler id (`sync-org-<id>`), or null for another id. */
export function syncSchedulerOrg(id: string | null | undefined): number | null {
  const m = /^sync-org-(\d+)$/.exec(id ?? '');
  return m ? Number(m[1]) : null;
}

const syncJob = (orgId: number, trigger: SyncTrigger): JobSpec<SyncJobs> => ({ name: 'sync', data: { orgId, trigger } });

export interface SyncQueue {
  readonly queue: QueueOf<SyncJobs>;
  /**
   * Queues a full sync of `orgId` now (retried with backoff when the org is locked or the HRMS
   * fails); resolves with the BullMQ job id.
   */
  syncNow(orgId: number, trigger: SyncTrigger): Promise<string>;
  /**
   * Installs (every `everyMs`) or removes (null) the job scheduler of `orgId`; an unchanged one is
   * left alone. A change is added to the stored fingerprint of the scheduler set.
   */
  setSchedule(orgId: number, everyMs: number | null): Promise<void>;
  /**
   * Makes the sync queue's schedulers exactly `expected` (org id → ms; the full pass of
   * docs/operations.md "Job schedulers at scale"): one listing, then only the differences are
   * upserted or removed (any other scheduler on this queue too), and `fingerprint` is stored as the
   * set's. Resolves with the org ids changed.
   */
  applySchedules(expected: ReadonlyMap<number, number>, fingerprint: SchedulerFingerprint): Promise<number[]>;
  /**
   * What the periodic check compares (one round trip): the fingerprint stored by the last full pass
   * and kept by `setSchedule` since (null: none, e.g. Redis restarted empty), and how many
   * schedulers the queue holds.
   */
  schedulerState(): Promise<{ stored: SchedulerFingerprint | null; count: number }>;
  /**
   * Deletes the queue with every job and scheduler (BullMQ's `obliterate`, forced) and the stored
   * fingerprint beside it, which `obliterate` does not know: nothing of the queue is left in Redis.
   */
  obliterate(): Promise<void>;
  /** When each client org's job scheduler runs next: org id → time (orgs without a scheduler absent). */
  nextRuns(): Promise<Map<number, Date>>;
  /** When client org `orgId`'s job scheduler runs next, or null (no scheduler). */
  nextRunOf(orgId: number): Promise<Date | null>;
  /**
   * Queues a vendor's sync on demand of `orgId` (trigger `vendor`) that will run as `runId`;
   * `full` forces a full run. Resolves with the BullMQ job id.
   */
  syncOnDemand(orgId: number, runId: string, full: boolean): Promise<string>;
  /**
   * A sync of `orgId` in the queue: taken by a worker (when its payload names its run), waiting,
   * prioritized or delayed for a retry (not the job scheduler's next run); the first
   * {@link PENDING_SCAN} jobs of each state are looked at, with the run id it will run as:
   * the one its payload names, else one given to it now. Null when none waits.
   */
  queuedFor(orgId: number): Promise<{ runId: string; queuedAt: Date; trigger: SyncTrigger; full: boolean } | null>;
  close(): Promise<void>;
}

/** Jobs of each waiting state `queuedFor` looks at (the queue is short: one job per org and trigger). */
export const PENDING_SCAN = 200;

/** Job schedulers read per call when all are listed (`applySchedules`, `nextRuns`). */
const SCHEDULER_PAGE = 500;

/** Job options shared by immediate and scheduled syncs. */
export const SYNC_JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
} as const;

/** Builds the producer side over `redis` (an ioredis client with `maxRetriesPerRequest: null`). */
export function createSyncQueue(redis: RedisClient, prefix: string): SyncQueue {
  const queue: QueueOf<SyncJobs> = new Queue(SYNC_QUEUE, { connection: redis, prefix: bullPrefix(prefix, SYNC_QUEUE) });
  const schedulerId = syncSchedulerId;
  // Beside the queue's own keys (same prefix), so it goes wherever the queue goes.
  const fpKey = `${queue.qualifiedName}:scheduler-fingerprint`;
  const install = (orgId: number, everyMs: number) =>
    // The first scheduled run comes one period from now: setup-config queues its own sync.
    queue.upsertJobScheduler(
      schedulerId(orgId),
      { every: everyMs, startDate: Date.now() + everyMs },
      { ...syncJob(orgId, 'schedule'), opts: SYNC_JOB_OPTIONS },
    );
  // Read a page at a time: one call for every scheduler sends one command per scheduler at once,
  // which at 10,000 orgs outlasts the request client's command timeout on a busy Redis.
  const allSchedulers = async () => {
    const out: Awaited<ReturnType<typeof queue.getJobSchedulers>> = [];
    for (let start = 0; ; start += SCHEDULER_PAGE) {
      const page = await queue.getJobSchedulers(start, start + SCHEDULER_PAGE - 1, true);
      out.push(...page);
      if (page.length < SCHEDULER_PAGE) return out;
    }
  };
  return {
    queue,
    async obliterate() {
      await queue.obliterate({ force: true });
      await redis.del(fpKey);
    },
    async syncNow(orgId, trigger) {
      const spec = syncJob(orgId, trigger);
      const job = await queue.add(spec.name, spec.data, SYNC_JOB_OPTIONS);
      return String(job.id);
    },
    async setSchedule(orgId, everyMs) {
      const existing = await queue.getJobScheduler(schedulerId(orgId));
      const before = existing && typeof existing.every === 'number' ? existing.every : null;
      // Unchanged: left alone, so that refreshing (every connection change, the full pass of
      // jobs/schedules.ts) never pushes the next run further away.
      if (before === everyMs || (everyMs === null && !existing)) return;
      if (everyMs === null) await queue.removeJobScheduler(schedulerId(orgId));
      else await install(orgId, everyMs);
      // Two processes changing one org at once may both count it: the fingerprint then differs and
      // the next periodic check runs a full pass, which stores it afresh.
      const add = everyMs === null ? 0 : schedulerHash(orgId, everyMs);
      const remove = before === null ? 0 : schedulerHash(orgId, before);
      await redis
        .multi()
        .hincrby(fpKey, 'count', (everyMs === null ? 0 : 1) - (before === null ? 0 : 1))
        .hincrby(fpKey, 'sum', add - remove)
        .exec();
    },
    async applySchedules(expected, fingerprint) {
      const changed: number[] = [];
      const seen = new Set<number>();
      for (const s of await allSchedulers()) {
        const id = s.key || s.id || '';
        const orgId = syncSchedulerOrg(s.id) ?? syncSchedulerOrg(s.key);
        const want = orgId === null ? undefined : expected.get(orgId);
        if (orgId !== null && want !== undefined) {
          seen.add(orgId);
          if (s.every === want) continue;
          await install(orgId, want);
        } else await queue.removeJobScheduler(id);
        if (orgId !== null) changed.push(orgId);
      }
      for (const [orgId, every] of expected) {
        if (seen.has(orgId)) continue;
        await install(orgId, every);
        changed.push(orgId);
      }
      await redis.hset(fpKey, { count: fingerprint.count, sum: fingerprint.sum });
      return changed;
    },
    async schedulerState() {
      const [stored, count] = await Promise.all([redis.hgetall(fpKey), queue.getJobSchedulersCount()]);
      const fp = stored.count !== undefined && stored.sum !== undefined ? { count: Number(stored.count), sum: Number(stored.sum) } : null;
      return { stored: fp, count };
    },
    async nextRuns() {
      const out = new Map<number, Date>();
      for (const s of await allSchedulers()) {
        const orgId = syncSchedulerOrg(s.id) ?? syncSchedulerOrg(s.key);
        if (orgId !== null && typeof s.next === 'number') out.set(orgId, new Date(s.next));
      }
      return out;
    },
    async nextRunOf(orgId) {
      const s = await queue.getJobScheduler(schedulerId(orgId));
      return s && typeof s.next === 'number' ? new Date(s.next) : null;
    },
    async syncOnDemand(orgId, runId, full) {
      const job = await queue.add('sync', { orgId, trigger: 'vendor', runId, full }, SYNC_JOB_OPTIONS);
      return String(job.id);
    },
    async queuedFor(orgId) {
      const [active, ready, delayed] = await Promise.all([
        queue.getJobs(['active'], 0, PENDING_SCAN - 1),
        queue.getJobs(['waiting', 'prioritized'], 0, PENDING_SCAN - 1),
        queue.getJobs(['delayed'], 0, PENDING_SCAN - 1),
      ]);
      // A delayed job never tried is the job scheduler's next run (hours away): not a sync waiting
      // now. An active job (a worker took it; its run may not have started yet) counts when its
      // payload names its run: another's run id is only known once it started.
      const jobs = [...active.filter((j) => isSyncJobData(j.data) && j.data.runId), ...ready, ...delayed.filter((j) => j.attemptsMade > 0)];
      const job = jobs.find((j) => isSyncJobData(j.data) && j.data.orgId === orgId);
      if (!job) return null;
      const queuedAt = new Date(job.timestamp);
      const { trigger, full = false } = job.data;
      if (job.data.runId) return { runId: job.data.runId, queuedAt, trigger, full };
      // A job of another trigger: it runs as the id given here (the worker reads its payload when it starts it).
      const runId = randomUUID();
      await job.updateData({ ...job.data, runId });
      return { runId, queuedAt, trigger, full };
    },
    close: () => queue.close(),
  };
}
