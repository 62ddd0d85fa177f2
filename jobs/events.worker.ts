/**
 * The events worker (docs/events.md "Delivery"): consumes the BullMQ `events` queue. `deliver` jobs make one
 * delivery attempt each and are retried by BullMQ on the configured schedule (a custom backoff:
 * the delay after attempt n is HRX_EVENTS_RETRY_SCHEDULE_MS[n-1]). The consent-expiry scan and
 * the outbox relay run on the housekeeping queue (jobs/housekeeping.worker.ts).
 */
import { UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../src/redis';
import type { Logger } from '../src/logger';
import type { Deliverer } from '../src/events/delivery';
import { DELIVERY_BACKOFF, EVENTS_QUEUE, isDeliverJobData, type EventsJobs } from '../src/events/queue';
import type { JobOf, WorkerOf } from '../src/queue/bull';
import { sharedWorkerOptions } from './worker-options';

/** Thrown by a `deliver` job that should be attempted again after `delayMs` (the backoff reads it). */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

/** 24 hours: the shortest span the retry schedule should cover (docs/events.md "Delivery"). */
const DAY_MS = 24 * 3_600_000;

export interface EventsWorkerDeps {
  /** The worker's ioredis client (`maxRetriesPerRequest: null`). */
  redis: RedisClient;
  prefix: string;
  deliverer: Deliverer;
  /** Delays between attempts (ms), as given to the deliverer. */
  scheduleMs: number[];
  concurrency?: number;
  log: Logger;
}

/** Starts a worker; `close()` waits for running jobs. */
export function startEventsWorker(deps: EventsWorkerDeps): WorkerOf<EventsJobs> {
  const span = deps.scheduleMs.reduce((a, b) => a + b, 0);
  if (span < DAY_MS) deps.log.warn({ spanMs: span }, 'event retry schedule spans less than 24 hours');
  const worker: WorkerOf<EventsJobs> = new Worker(
    EVENTS_QUEUE,
    async (job: JobOf<EventsJobs>) => {
      switch (job.name) {
        case 'deliver': {
          // The payload may predate this hrx (it waited in Redis across a deploy): checked, not trusted.
          if (!isDeliverJobData(job.data)) throw new UnrecoverableError('bad job payload');
          const outcome = await deps.deliverer.deliver(job.data.deliveryId);
          if (outcome.status === 'retry') throw new RetryLater(outcome.retryInMs, `attempt ${outcome.attempt} failed (${outcome.httpStatus ?? 'no response'})`);
          // Failed for good: the row says so; failing the job shows it on the dashboard too.
          if (outcome.status === 'failed') throw new UnrecoverableError(`delivery failed after ${outcome.attempt} attempts`);
          return outcome;
        }
        // Left on this queue by an older hrx (its schedulers are removed at start): the
        // housekeeping queue runs them now.
        case 'consent-scan':
        case 'relay':
          return { skipped: 'runs on the housekeeping queue' };
        default:
          throw new UnrecoverableError(`unknown job ${job.name}`);
      }
    },
    {
      ...sharedWorkerOptions(deps.redis, deps.prefix, EVENTS_QUEUE),
      concurrency: deps.concurrency ?? 8,
      settings: {
        // RetryLater carries the schedule's delay; anything else (database, Redis) backs off
        // exponentially from 5 s to 10 min, and the row's own attempt count is untouched.
        backoffStrategy: (attemptsMade: number, type?: string, err?: Error) => {
          if (type === DELIVERY_BACKOFF && err instanceof RetryLater) return err.delayMs;
          return Math.min(5_000 * 2 ** Math.max(0, attemptsMade - 1), 600_000);
        },
      },
    },
  );
  worker.on('failed', (job, err) => {
    if (err instanceof RetryLater) return;
    deps.log.warn({ jobId: job?.id, name: job?.name, attempts: job?.attemptsMade, err }, 'events job failed');
  });
  worker.on('error', (err) => deps.log.error({ err }, 'events worker error'));
  return worker;
}
