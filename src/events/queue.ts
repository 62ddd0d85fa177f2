/**
 * The BullMQ side of events (decisions §10): queue `events` carries one `deliver` job per
 * delivery (job id = delivery id, so queueing twice is harmless) and the jobs of two job
 * schedulers: `consent-scan` (announces expired consents) and `relay` (queues deliveries whose
 * producer could not, e.g. Redis was down right after the commit). The worker is in `jobs/`.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullPrefix } from '../queue/bull';

/** Name of the events queue. */
export const EVENTS_QUEUE = 'events';

/** Payload of the queue's jobs: `deliver` carries the delivery id; scheduler jobs carry nothing. */
export type EventsJobData = { deliveryId: string } | Record<string, never>;

/** Name of the custom backoff type of `deliver` jobs (see jobs/events.worker.ts). */
export const DELIVERY_BACKOFF = 'hrx-delivery-schedule';

export interface EventsQueue {
  readonly queue: Queue<EventsJobData>;
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
 * Builds the producer side over `connection` (ioredis, `maxRetriesPerRequest: null`).
 * `maxAttempts` bounds BullMQ's retries of a `deliver` job; the delivery row's own attempt count
 * decides when a delivery has failed for good.
 */
export function createEventsQueue(connection: Redis, prefix: string, maxAttempts: number): EventsQueue {
  const queue = new Queue<EventsJobData>(EVENTS_QUEUE, { connection, prefix: bullPrefix(prefix) });
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
      await queue.addBulk(ids.map((id) => ({ name: 'deliver', data: { deliveryId: id }, opts: jobOptions(id) })));
    },
    async requeue(ids) {
      for (const id of ids) {
        const job = await queue.getJob(id);
        if (job) {
          const state = await job.getState();
          if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
          await job.remove().catch(() => undefined);
        }
        await queue.add('deliver', { deliveryId: id }, jobOptions(id));
      }
    },
    async remove(ids) {
      for (const id of ids) await queue.remove(id).catch(() => undefined);
    },
    async installSchedulers({ consentScanMs, relayMs }) {
      const opts = { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };
      await queue.upsertJobScheduler('events-consent-scan', { every: consentScanMs }, { name: 'consent-scan', data: {}, opts });
      await queue.upsertJobScheduler('events-relay', { every: relayMs }, { name: 'relay', data: {}, opts });
    },
    close: () => queue.close(),
  };
}
