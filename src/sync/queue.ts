/**
 * The BullMQ side of syncs that API processes need: queueing a sync now and keeping each client
 * org's job scheduler (BullMQ job schedulers) in line with its connections. The worker that
 * consumes the queue lives in `jobs/`.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullPrefix } from '../queue/bull';

/** Name of the sync queue. */
export const SYNC_QUEUE = 'sync';

/** Payload of a sync job. */
export interface SyncJobData {
  orgId: number;
  trigger: string;
}

export interface SyncQueue {
  readonly queue: Queue<SyncJobData>;
  /** Queues a full sync of `orgId` now (retried with backoff when the org is locked or the HRMS fails). */
  syncNow(orgId: number, trigger: string): Promise<void>;
  /** Installs (every `everyMs`) or removes (null) the job scheduler of `orgId`; an unchanged one is left alone. */
  setSchedule(orgId: number, everyMs: number | null): Promise<void>;
  close(): Promise<void>;
}

/** Job options shared by immediate and scheduled syncs. */
export const SYNC_JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
} as const;

/** Builds the producer side over `connection` (an ioredis client with `maxRetriesPerRequest: null`). */
export function createSyncQueue(connection: Redis, prefix: string): SyncQueue {
  const queue = new Queue<SyncJobData>(SYNC_QUEUE, { connection, prefix: bullPrefix(prefix) });
  const schedulerId = (orgId: number) => `sync-org-${orgId}`;
  return {
    queue,
    async syncNow(orgId, trigger) {
      await queue.add('sync', { orgId, trigger }, SYNC_JOB_OPTIONS);
    },
    async setSchedule(orgId, everyMs) {
      if (everyMs === null) {
        await queue.removeJobScheduler(schedulerId(orgId));
        return;
      }
      // Unchanged: left alone, so that refreshing (every connection change, the reconcile loop of
      // jobs/schedules.ts) never pushes the next run further away.
      const existing = await queue.getJobScheduler(schedulerId(orgId));
      if (existing && existing.every === everyMs) return;
      // The first scheduled run comes one period from now: setup-config queues its own sync.
      await queue.upsertJobScheduler(schedulerId(orgId), { every: everyMs, startDate: Date.now() + everyMs }, {
        name: 'sync', data: { orgId, trigger: 'schedule' }, opts: SYNC_JOB_OPTIONS,
      });
    },
    close: () => queue.close(),
  };
}
