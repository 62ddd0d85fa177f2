/**
 * The BullMQ side of retention (docs/erasure-and-retention.md "Retention"): queue `retention` carries the jobs of one job
 * scheduler, `retention-purge` (every `HRX_RETENTION_PURGE_MS`), whose `purge` jobs run the
 * retention service. The worker is in `jobs/retention.worker.ts`; the scheduler is installed by
 * that worker at start and recreated by the reconciler (jobs/schedules.ts) like every other.
 */
import { Queue } from 'bullmq';
import type { RedisClient } from '../redis';
import { bullPrefix, type JobSpec, type QueueOf } from '../queue/bull';

/** Name of the retention queue. */
export const RETENTION_QUEUE = 'retention';
/** Id of the purge's job scheduler. */
export const RETENTION_SCHEDULER = 'retention-purge';

/** The retention queue's jobs: job name → payload. */
export type RetentionJobs = {
  /** From the `retention-purge` job scheduler: one purge run. */
  purge: Record<string, never>;
};

const purgeJob: JobSpec<RetentionJobs> = { name: 'purge', data: {} };

export interface RetentionQueue {
  readonly queue: QueueOf<RetentionJobs>;
  /** Installs the `retention-purge` job scheduler (every `everyMs`); idempotent. */
  installScheduler(everyMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Builds the producer side over `redis` (ioredis, `maxRetriesPerRequest: null`). */
export function createRetentionQueue(redis: RedisClient, prefix: string): RetentionQueue {
  const queue: QueueOf<RetentionJobs> = new Queue(RETENTION_QUEUE, { connection: redis, prefix: bullPrefix(prefix, RETENTION_QUEUE) });
  return {
    queue,
    async installScheduler(everyMs) {
      await queue.upsertJobScheduler(
        RETENTION_SCHEDULER,
        { every: everyMs },
        {
          ...purgeJob,
          opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
        },
      );
    },
    close: () => queue.close(),
  };
}
