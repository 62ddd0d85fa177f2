/**
 * The `housekeeping` queue: the periodic jobs of the job schedulers that keep hrx tidy (the
 * outbox relay and the consent-expiry scan of docs/events.md "Outbox"), on a queue of their own so the job
 * dashboard's `sync` and `events` lists show syncs and deliveries only (docs/operations.md "The job dashboard: `/admin/queues`"). On the
 * events queue they also trimmed its history: BullMQ's `removeOnComplete: {count}` keeps the
 * last N finished jobs of the whole queue, so a relay every 10 s pushed finished deliveries out.
 * The worker that runs them is `jobs/housekeeping.worker.ts`.
 */
import { Queue } from 'bullmq';
import type { RedisClient } from '../redis';
import { bullPrefix, type JobName, type QueueOf } from './bull';

/** Name of the housekeeping queue. */
export const HOUSEKEEPING_QUEUE = 'housekeeping';

/** The housekeeping queue's jobs: job name → payload (none carries data: each looks at the tables). */
export type HousekeepingJobs = {
  /** Announces expired consents (events feature). */
  'consent-scan': Record<string, never>;
  /** Queues deliveries their producer could not (events feature). */
  relay: Record<string, never>;
  /** Revokes credentials whose grounds are gone (credentials feature, docs/credentials.md "Revocation"). */
  'credential-sweep': Record<string, never>;
};

/** One job scheduler of the queue: its id, the job it makes and its period (ms). */
export interface HousekeepingSchedule {
  id: string;
  job: JobName<HousekeepingJobs>;
  everyMs: number;
}

export interface HousekeepingQueue {
  readonly queue: QueueOf<HousekeepingJobs>;
  /** Installs (upserts) each schedule's job scheduler; idempotent. Throws Redis errors. */
  install(schedules: HousekeepingSchedule[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Finished housekeeping jobs kept: a few for the dashboard (the last runs and their answers),
 * not thousands (a relay every 10 s makes 8,640 a day).
 */
const KEEP = { removeOnComplete: { count: 20 }, removeOnFail: { count: 100 } };

/** Builds the producer side over `redis` (an ioredis client). */
export function createHousekeepingQueue(redis: RedisClient, prefix: string): HousekeepingQueue {
  const queue: QueueOf<HousekeepingJobs> = new Queue(HOUSEKEEPING_QUEUE, { connection: redis, prefix: bullPrefix(prefix, HOUSEKEEPING_QUEUE) });
  return {
    queue,
    async install(schedules) {
      for (const s of schedules) {
        await queue.upsertJobScheduler(s.id, { every: s.everyMs }, { name: s.job, data: {}, opts: KEEP });
      }
    },
    close: () => queue.close(),
  };
}
