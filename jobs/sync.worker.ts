/**
 * The sync worker: consumes the BullMQ sync queue, one job per client org, running the sync
 * service. A worker that dies mid-sync stops renewing both BullMQ's job lock and hrx's sync lock;
 * BullMQ's stalled-job check hands the job to another worker and the sync lock expires on its
 * own (HRX_SYNC_LOCK_TTL_SEC ≤ 60 s).
 */
import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../src/logger';
import type { JobOf, WorkerOf } from '../src/queue/bull';
import { isSyncJobData, SYNC_QUEUE, type SyncJobs } from '../src/sync/queue';
import { SyncLockedError, type SyncService } from '../src/sync/service';
import { sharedWorkerOptions } from './worker-options';

export interface SyncWorkerDeps {
  /** The worker's ioredis client (`maxRetriesPerRequest: null`). */
  redis: Redis;
  prefix: string;
  sync: SyncService;
  log: Logger;
  concurrency?: number;
}

/** Starts a worker; `close()` waits for the running jobs to finish. */
export function startSyncWorker(deps: SyncWorkerDeps): WorkerOf<SyncJobs> {
  const worker: WorkerOf<SyncJobs> = new Worker(
    SYNC_QUEUE,
    async (job: JobOf<SyncJobs>) => {
      // The payload may predate this hrx (it waited in Redis across a deploy): checked, not trusted.
      if (!isSyncJobData(job.data)) throw new UnrecoverableError('bad job payload');
      const { orgId, trigger } = job.data;
      try {
        // sync.failed tells vendors whether BullMQ will try again (decisions §10).
        const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        const outcome = await deps.sync.run(orgId, trigger, String(job.id), { finalAttempt });
        return outcome;
      } catch (err) {
        if (err instanceof SyncLockedError) deps.log.info({ orgId, jobId: job.id }, 'org is locked, sync retried later');
        throw err;
      }
    },
    {
      ...sharedWorkerOptions(deps.redis, deps.prefix),
      concurrency: deps.concurrency ?? 2,
    },
  );
  worker.on('failed', (job, err) => deps.log.warn({ jobId: job?.id, orgId: job?.data.orgId, attempts: job?.attemptsMade, err }, 'sync job failed'));
  worker.on('error', (err) => deps.log.error({ err }, 'sync worker error'));
  return worker;
}
