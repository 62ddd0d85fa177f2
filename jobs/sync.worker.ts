/**
 * The sync worker: consumes the BullMQ sync queue, one job per client org, running the sync
 * service. A worker that dies mid-sync stops renewing both BullMQ's job lock and hrx's sync lock;
 * BullMQ's stalled-job check hands the job to another worker and the sync lock expires on its
 * own (HRX_SYNC_LOCK_TTL_SEC ≤ 60 s).
 *
 * The job dashboard tells the truth (docs/operations.md "The job dashboard: `/admin/queues`"): a running job's progress is
 * `{pages, employees}` after each stored page, a completed job's return value is the run's
 * outcome (a succeeded run's with its coverage per data point), and a run that ends `failed` is a failed job with
 * the run's reason. Failures the service already decided not to retry (the HRMS refused the
 * credentials, its host is not allowed, it stalled) fail the job for good (UnrecoverableError);
 * what the service throws (an HRMS error once its own retries are spent, a lost or held lock)
 * fails the attempt and BullMQ retries it with backoff.
 */
import { Job, UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../src/redis';
import type { Logger } from '../src/logger';
import type { JobOf, WorkerOf } from '../src/queue/bull';
import { isSyncJobData, SYNC_QUEUE, type SyncJobs } from '../src/sync/queue';
import { SyncLockedError, type SyncOutcome, type SyncService } from '../src/sync/service';
import { safeJobError, sharedWorkerOptions } from './worker-options';

export interface SyncWorkerDeps {
  /** The worker's ioredis client (`maxRetriesPerRequest: null`). */
  redis: RedisClient;
  prefix: string;
  sync: SyncService;
  log: Logger;
  concurrency?: number;
  /** The org's HRMS health after a run (docs/sync.md "Connection health"), written to the job's log for the dashboard; absent: not shown. */
  health?: (orgId: number) => Promise<string | null>;
}

/** Adds the org's health after the run to the job's log (the dashboard's Logs tab); best effort, never fails the job. */
async function logHealth(deps: SyncWorkerDeps, job: JobOf<SyncJobs>, orgId: number): Promise<void> {
  if (!deps.health) return;
  try {
    const state = await deps.health(orgId);
    if (state) await job.log(`connection health: ${state}`);
  } catch (err) {
    deps.log.debug({ jobId: job.id, err: err instanceof Error ? err.message : String(err) }, 'sync health not logged');
  }
}

/**
 * The failed job's reason on the dashboard: the run's reason and message (e.g. `auth: the HRMS
 * refused the credentials (run <uuid>)`), as stored in `sync_runs.error`, never a credential.
 */
export function failureReason(outcome: Extract<SyncOutcome, { status: 'failed' }>): string {
  return `sync run ${outcome.runId} failed: ${outcome.message}`;
}

/**
 * A sync on demand may name a run id in a job's payload after this worker read it (the job was
 * already taken): that promised run is then recorded as covered by this job's run, so every
 * `sync_id` hrx answered becomes a run (docs/api.md "Sync on demand"). Best effort: the job's
 * own outcome stands.
 */
async function coverPromise(
  deps: SyncWorkerDeps,
  worker: WorkerOf<SyncJobs>,
  job: JobOf<SyncJobs>,
  orgId: number,
  trigger: SyncJobs['sync']['trigger'],
): Promise<void> {
  try {
    const fresh = await Job.fromId(worker, String(job.id));
    const promised = fresh && isSyncJobData(fresh.data) ? fresh.data.runId : undefined;
    if (promised) await deps.sync.recordCovered(orgId, trigger, promised);
  } catch (err) {
    deps.log.warn({ jobId: job.id, err: err instanceof Error ? err.message : String(err) }, 'promised sync run not recorded');
  }
}

/** Starts a worker; `close()` waits for the running jobs to finish. */
export function startSyncWorker(deps: SyncWorkerDeps): WorkerOf<SyncJobs> {
  const worker: WorkerOf<SyncJobs> = new Worker(
    SYNC_QUEUE,
    async (job: JobOf<SyncJobs>) => {
      // The payload may predate this hrx (it waited in Redis across a deploy): checked, not trusted.
      if (!isSyncJobData(job.data)) throw new UnrecoverableError('bad job payload');
      const { orgId, trigger, runId, full } = job.data;
      let outcome: SyncOutcome;
      try {
        // sync.failed tells vendors whether BullMQ will try again (docs/events.md).
        const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        const onProgress = (p: { pages: number; employees: number }): void => {
          // Best effort: the dashboard missing a step never fails the sync.
          job.updateProgress(p).catch((err: unknown) => deps.log.debug({ jobId: job.id, err }, 'sync progress not recorded'));
        };
        outcome = await deps.sync.run(orgId, trigger, String(job.id), { finalAttempt, onProgress, ...(runId ? { runId } : {}), ...(full ? { full } : {}) });
      } catch (err) {
        if (err instanceof SyncLockedError) deps.log.info({ orgId, jobId: job.id }, 'org is locked, sync retried later');
        else await logHealth(deps, job, orgId);
        // Kept by BullMQ in Redis: never a driver message that may quote a page's values.
        throw safeJobError(err);
      }
      if (!runId) await coverPromise(deps, worker, job, orgId, trigger);
      if (outcome.status !== 'skipped') await logHealth(deps, job, orgId);
      // The run's own reason (hrx-written: an HRMS error's kind and message, or `internal error`),
      // outside the catch: it must stay an UnrecoverableError with its text.
      if (outcome.status === 'failed') throw new UnrecoverableError(failureReason(outcome));
      return outcome;
    },
    {
      ...sharedWorkerOptions(deps.redis, deps.prefix, SYNC_QUEUE),
      concurrency: deps.concurrency ?? 2,
    },
  );
  worker.on('failed', (job, err) => deps.log.warn({ jobId: job?.id, orgId: job?.data.orgId, attempts: job?.attemptsMade, err }, 'sync job failed'));
  worker.on('error', (err) => deps.log.error({ err }, 'sync worker error'));
  return worker;
}
