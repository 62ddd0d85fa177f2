/**
 * Options every hrx BullMQ worker shares: the job lock is renewed every 15 s and lapses after
 * 30 s, so a worker that dies mid-job hands it to another within about 45 s; a job that stalls
 * three times fails.
 */
import type { WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullPrefix } from '../src/queue/bull';

/** Connection, key prefix (under `HRX_REDIS_PREFIX`) and lock settings of a worker. */
export function sharedWorkerOptions(redis: Redis, prefix: string): Pick<WorkerOptions, 'connection' | 'prefix' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return { connection: redis, prefix: bullPrefix(prefix), lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 3 };
}
