/**
 * The retention worker (docs/erasure-and-retention.md "Retention"): consumes the BullMQ `retention` queue, whose
 * `purge` jobs come from the `retention-purge` job scheduler it installs at start (and that
 * jobs/schedules.ts recreates after Redis loses it). One job at a time: purges never overlap in
 * one worker, and two workers' purges only find less to delete.
 */
import { UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../src/redis';
import type { Logger } from '../src/logger';
import type { JobOf, WorkerOf } from '../src/queue/bull';
import { RETENTION_QUEUE, type RetentionJobs, type RetentionQueue } from '../src/retention/queue';
import type { RetentionService } from '../src/retention/service';
import { safeJobError, sharedWorkerOptions } from './worker-options';

export interface RetentionWorkerDeps {
  /** The worker's ioredis client (`maxRetriesPerRequest: null`). */
  redis: RedisClient;
  prefix: string;
  retention: Pick<RetentionService, 'purge'>;
  queue: Pick<RetentionQueue, 'installScheduler'>;
  /** Interval of the purge's job scheduler (ms). */
  purgeMs: number;
  log: Logger;
}

/** Installs the job scheduler and starts a worker; `close()` waits for a running purge. Throws when Redis refuses the scheduler. */
export async function startRetentionWorker(deps: RetentionWorkerDeps): Promise<WorkerOf<RetentionJobs>> {
  await deps.queue.installScheduler(deps.purgeMs);
  const worker: WorkerOf<RetentionJobs> = new Worker(
    RETENTION_QUEUE,
    async (job: JobOf<RetentionJobs>) => {
      if (job.name !== 'purge') throw new UnrecoverableError(`unknown job ${job.name}`);
      // A failure is kept by BullMQ in Redis: its safe form only.
      return deps.retention.purge().catch((err: unknown) => {
        deps.log.warn({ jobId: job.id, err }, 'retention purge failed');
        throw safeJobError(err);
      });
    },
    { ...sharedWorkerOptions(deps.redis, deps.prefix, RETENTION_QUEUE), concurrency: 1 },
  );
  worker.on('error', (err) => deps.log.error({ err }, 'retention worker error'));
  return worker;
}
