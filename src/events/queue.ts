/**
 * The BullMQ side of events (decisions §10): queue `events` carries one `deliver` job per
 * delivery (job id = delivery id, so queueing twice is harmless) and the jobs of two job
 * schedulers: `consent-scan` (announces expired consents) and `relay` (queues deliveries whose
 * producer could not, e.g. Redis was down right after the commit). The worker is in `jobs/`.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullPrefix, type JobSpec, type QueueOf } from '../queue/bull';

/** Name of the events queue. */
export const EVENTS_QUEUE = 'events';

/** The events queue's jobs: job name → payload. */
export type EventsJobs = {
  /** One delivery attempt of delivery `deliveryId`. */
  deliver: { deliveryId: string };
  /** From the `events-consent-scan` job scheduler: announces expired consents. */
  'consent-scan': Record<string, never>;
  /** From the `events-relay` job scheduler: queues deliveries their producer could not. */
  relay: Record<string, never>;
};

/** True when `data` (read back from Redis, maybe written by an older hrx) is a `deliver` payload. */
export function isDeliverJobData(data: unknown): data is EventsJobs['deliver'] {
  return typeof data === 'object' && data !== null && 'deliveryId' in data && typeof data.deliveryId === 'string';
}

const deliverJob = (deliveryId: string): JobSpec<EventsJobs> => ({ name: 'deliver', data: { deliveryId } });
const schedulerJob = (name: 'consent-scan' | 'relay'): JobSpec<EventsJobs> => ({ name, data: {} });

/** Name of the custom backoff type of `deliver` jobs (see jobs/events.worker.ts). */
export const DELIVERY_BACKOFF = 'hrx-delivery-schedule';

export interface EventsQueue {
  readonly queue: QueueOf<EventsJobs>;
  /** Queues one `deliver` job per delivery id; ids already queued (waiting, delayed, active) are left alone. */
  enqueue(deliveryIds: string[]): Promise<void>;
  /**
   * Queues deliveries again whose job may be gone or finished while the row is still pending:
   * a finished job with that id is replaced; a waiting, delayed or active one is left alone.
   */
  requeue(deliveryIds: string[]): Promise<void>;
  /** Removes the not-yet-running jobs of these deliveries (best effort; the worker checks anyway). */
  remove(deliveryIds: string[]): Promise<void>;
  /** Installs the `consent-scan` and `relay` job schedulers (every `*Ms`); idempotent. */
  installSchedulers(opts: { consentScanMs: number; relayMs: number }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the producer side over `redis` (ioredis, `maxRetriesPerRequest: null`).
 * `maxAttempts` bounds BullMQ's retries of a `deliver` job; the delivery row's own attempt count
 * decides when a delivery has failed for good.
 */
export function createEventsQueue(redis: Redis, prefix: string, maxAttempts: number): EventsQueue {
  const queue: QueueOf<EventsJobs> = new Queue(EVENTS_QUEUE, { connection: redis, prefix: bullPrefix(prefix) });
  const jobOptions = (id: string) => ({
    jobId: id,
    attempts: maxAttempts,
    backoff: { type: DELIVERY_BACKOFF },
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 5000 },
  });
  return {
    queue,
    async enqueue(ids) {
      if (ids.length === 0) return;
      await queue.addBulk(ids.map((id) => ({ ...deliverJob(id), opts: jobOptions(id) })));
    },
    async requeue(ids) {
      for (const id of ids) {
        const job = await queue.getJob(id);
        if (job) {
          const state = await job.getState();
          if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
          await job.remove().catch(() => undefined);
        }
        const next = deliverJob(id);
        await queue.add(next.name, next.data, jobOptions(id));
      }
    },
    async remove(ids) {
      for (const id of ids) await queue.remove(id).catch(() => undefined);
    },
    async installSchedulers({ consentScanMs, relayMs }) {
      const opts = { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };
      await queue.upsertJobScheduler('events-consent-scan', { every: consentScanMs }, { ...schedulerJob('consent-scan'), opts });
      await queue.upsertJobScheduler('events-relay', { every: relayMs }, { ...schedulerJob('relay'), opts });
    },
    close: () => queue.close(),
  };
}
