/**
 * The housekeeping worker: consumes the `housekeeping` queue (src/queue/housekeeping.ts), the
 * jobs of the periodic job schedulers: `consent-scan` (announces expired consents) and `relay`
 * (queues deliveries their producer could not), both of docs/events.md "Delivery", and
 * `credential-sweep` (revokes credentials whose grounds are gone, docs/credentials.md "Revocation"). It installs the
 * schedulers at start; the reconciler (jobs/schedules.ts) keeps them installed.
 */
import { UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../src/redis';
import type { CredentialService } from '../src/credentials/service';
import type { EventService } from '../src/events/service';
import type { Logger } from '../src/logger';
import type { JobOf, WorkerOf } from '../src/queue/bull';
import { HOUSEKEEPING_QUEUE, type HousekeepingJobs } from '../src/queue/housekeeping';
import { sharedWorkerOptions } from './worker-options';

export interface HousekeepingWorkerDeps {
  /** The worker's ioredis client (`maxRetriesPerRequest: null`). */
  redis: RedisClient;
  prefix: string;
  events: Pick<EventService, 'scanExpiredConsents' | 'relay'>;
  /** The credential sweep (docs/credentials.md "Revocation"). */
  credentials: Pick<CredentialService, 'sweep'>;
  /** Installs every housekeeping job scheduler (jobs/deps.ts `installHousekeeping`); throws Redis errors. */
  install(): Promise<void>;
  log: Logger;
}

/**
 * Installs the job schedulers and starts a worker; `close()` waits for running jobs. Throws when
 * Redis refuses the schedulers. Up to 4 jobs at once, so a long consent scan does not hold up the
 * relay (each job is safe to overlap with another of its kind, as it was on the events queue).
 */
export async function startHousekeepingWorker(deps: HousekeepingWorkerDeps): Promise<WorkerOf<HousekeepingJobs>> {
  await deps.install();
  const worker: WorkerOf<HousekeepingJobs> = new Worker(
    HOUSEKEEPING_QUEUE,
    async (job: JobOf<HousekeepingJobs>) => {
      switch (job.name) {
        case 'consent-scan':
          return { announced: await deps.events.scanExpiredConsents() };
        case 'relay':
          return { queued: await deps.events.relay() };
        case 'credential-sweep':
          return { revoked: await deps.credentials.sweep() };
        default:
          throw new UnrecoverableError(`unknown job ${job.name}`);
      }
    },
    { ...sharedWorkerOptions(deps.redis, deps.prefix, HOUSEKEEPING_QUEUE), concurrency: 4 },
  );
  worker.on('failed', (job, err) => deps.log.warn({ jobId: job?.id, name: job?.name, err }, 'housekeeping job failed'));
  worker.on('error', (err) => deps.log.error({ err }, 'housekeeping worker error'));
  return worker;
}
