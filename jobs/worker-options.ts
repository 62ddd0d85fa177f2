/**
 * Options every hrx BullMQ worker shares: the job lock is renewed every 15 s and lapses after
 * 30 s, so a worker that dies mid-job hands it to another within about 45 s; a job that stalls
 * three times fails.
 */
import type { WorkerOptions } from 'bullmq';
import type { RedisClient } from '../src/redis';
import { describeError } from '../src/log-error';
import { bullPrefix } from '../src/queue/bull';

/** Connection, key prefix of queue `queue` (under `HRX_REDIS_PREFIX`, see `bullPrefix`) and lock settings of a worker. */
export function sharedWorkerOptions(
  redis: RedisClient,
  prefix: string,
  queue: string,
): Pick<WorkerOptions, 'connection' | 'prefix' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return { connection: redis, prefix: bullPrefix(prefix, queue), lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 3 };
}

/**
 * The error a job throws, as BullMQ will keep it in Redis (`failedReason`, `stacktrace`) for
 * thousands of failed jobs: `err` itself when its message is one hrx writes without values
 * (src/log-error.ts), otherwise a plain `Error` saying only its name and codes. A driver error
 * may quote the values of the statement that failed (a sync's page holds employee records), and
 * nothing must keep a copy of those where erasure and retention cannot reach it (docs/erasure-and-retention.md "Erasing an employee").
 */
export function safeJobError(err: unknown): Error {
  const safe = describeError(err);
  if (err instanceof Error && err.message === safe) return err;
  return new Error(safe);
}
