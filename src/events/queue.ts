/**
 * The BullMQ side of events (docs/events.md "Delivery"): queue `events` carries one `deliver` job per
 * delivery (job id = delivery id, so queueing twice is harmless). The periodic `consent-scan`
 * (announces expired consents) and `relay` (queues deliveries whose producer could not, e.g.
 * Redis was down right after the commit) run on the housekeeping queue
 * (src/queue/housekeeping.ts; {@link eventsSchedules}). The worker is in `jobs/`.
 */
import { Queue } from 'bullmq';
import type { RedisClient } from '../redis';
import { bullPrefix, type JobSpec, type QueueOf } from '../queue/bull';
import type { HousekeepingSchedule } from '../queue/housekeeping';

/** Name of the events queue. */
export const EVENTS_QUEUE = 'events';

/** The events queue's jobs: job name → payload. */
export type EventsJobs = {
  /** One delivery attempt of delivery `deliveryId`. */
  deliver: { deliveryId: string };
};

/**
 * Ids of the job schedulers of events, on the housekeeping queue; hrx before it had them on the
 * events queue, where {@link EventsQueue.removeLegacySchedulers} removes them.
 */
const SCHEDULER_IDS = { 'consent-scan': 'events-consent-scan', relay: 'events-relay' } as const;

/** The housekeeping job schedulers of events: the consent-expiry scan and the outbox relay, every `*Ms`. */
export function eventsSchedules(opts: { consentScanMs: number; relayMs: number }): HousekeepingSchedule[] {
  return [
    { id: SCHEDULER_IDS['consent-scan'], job: 'consent-scan', everyMs: opts.consentScanMs },
    { id: SCHEDULER_IDS.relay, job: 'relay', everyMs: opts.relayMs },
  ];
}

/** True when `data` (read back from Redis, maybe written by an older hrx) is a `deliver` payload. */
export function isDeliverJobData(data: unknown): data is EventsJobs['deliver'] {
  return typeof data === 'object' && data !== null && 'deliveryId' in data && typeof data.deliveryId === 'string';
}

const deliverJob = (deliveryId: string): JobSpec<EventsJobs> => ({ name: 'deliver', data: { deliveryId } });

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
  /**
   * Removes the job schedulers an older hrx installed on this queue (and their next jobs): they
   * live on the housekeeping queue now. Idempotent.
   */
  removeLegacySchedulers(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the producer side over `redis` (ioredis, `maxRetriesPerRequest: null`).
 * `maxAttempts` bounds BullMQ's retries of a `deliver` job; the delivery row's own attempt count
 * decides when a delivery has failed for good.
 */
export function createEventsQueue(redis: RedisClient, prefix: string, maxAttempts: number): EventsQueue {
  const queue: QueueOf<EventsJobs> = new Queue(EVENTS_QUEUE, { connection: redis, prefix: bullPrefix(prefix, EVENTS_QUEUE) });
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
    async removeLegacySchedulers() {
      for (const id of Object.values(SCHEDULER_IDS)) await queue.removeJobScheduler(id);
    },
    close: () => queue.close(),
  };
}
