/**
 * The BullMQ side of syncs that API processes need: queueing a sync now and keeping each client
 * org's job scheduler (BullMQ job schedulers) in line with its connections. The worker that
 * consumes the queue lives in `jobs/`.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullPrefix, type JobSpec, type QueueOf } from '../queue/bull';

/** Name of the sync queue. */
export const SYNC_QUEUE = 'sync';

/**
 * What queued a sync (stored in `sync_runs.trigger`): `setup` is the first sync after
 * setup-config, `schedule` the org's job scheduler, `test` and `bench` the test suite and the
 * benchmarks.
 */
export const SYNC_TRIGGERS = ['setup', 'schedule', 'test', 'bench'] as const;
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];

/** The sync queue's jobs: job name → payload. */
export type SyncJobs = {
  /** A full sync of client org `orgId`. */
  sync: { orgId: number; trigger: SyncTrigger };
};
export type SyncJobData = SyncJobs['sync'];

/** True when `data` (a payload read back from Redis, maybe written by an older hrx) is a sync payload. */
export function isSyncJobData(data: unknown): data is SyncJobData {
  if (typeof data !== 'object' || data === null || !('orgId' in data) || !('trigger' in data)) return false;
  const { orgId, trigger } = data;
  return Number.isInteger(orgId) && SYNC_TRIGGERS.some((t) => t === trigger);
}

const syncJob = (orgId: number, trigger: SyncTrigger): JobSpec<SyncJobs> => ({ name: 'sync', data: { orgId, trigger } });

export interface SyncQueue {
  readonly queue: QueueOf<SyncJobs>;
  /** Queues a full sync of `orgId` now (retried with backoff when the org is locked or the HRMS fails). */
  syncNow(orgId: number, trigger: SyncTrigger): Promise<void>;
  /** Installs (every `everyMs`) or removes (null) the job scheduler of `orgId`; an unchanged one is left alone. */
  setSchedule(orgId: number, everyMs: number | null): Promise<void>;
  close(): Promise<void>;
}

/** Job options shared by immediate and scheduled syncs. */
export const SYNC_JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
} as const;

/** Builds the producer side over `redis` (an ioredis client with `maxRetriesPerRequest: null`). */
export function createSyncQueue(redis: Redis, prefix: string): SyncQueue {
  const queue: QueueOf<SyncJobs> = new Queue(SYNC_QUEUE, { connection: redis, prefix: bullPrefix(prefix) });
  const schedulerId = (orgId: number) => `sync-org-${orgId}`;
  return {
    queue,
    async syncNow(orgId, trigger) {
      const job = syncJob(orgId, trigger);
      await queue.add(job.name, job.data, SYNC_JOB_OPTIONS);
    },
    async setSchedule(orgId, everyMs) {
      if (everyMs === null) {
        await queue.removeJobScheduler(schedulerId(orgId));
        return;
      }
      // Unchanged: left alone, so that refreshing (every connection change, the reconcile loop of
      // jobs/schedules.ts) never pushes the next run further away.
      const existing = await queue.getJobScheduler(schedulerId(orgId));
      if (existing && existing.every === everyMs) return;
      // The first scheduled run comes one period from now: setup-config queues its own sync.
      await queue.upsertJobScheduler(schedulerId(orgId), { every: everyMs, startDate: Date.now() + everyMs }, {
        ...syncJob(orgId, 'schedule'), opts: SYNC_JOB_OPTIONS,
      });
    },
    close: () => queue.close(),
  };
}
