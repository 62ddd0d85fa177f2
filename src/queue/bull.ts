/**
 * What the BullMQ producers (src/sync/queue.ts, src/events/queue.ts) and the workers (jobs/)
 * must agree on: the Redis key prefix of every queue and the shape of a queue's vocabulary (a
 * map of job name → payload, defined once per queue next to it).
 */
import type { Job, Queue, Worker } from 'bullmq';

/**
 * BullMQ's key prefix of queue `queue` under hrx's `HRX_REDIS_PREFIX`: `<prefix>:bull:{<queue>}`.
 * The `{…}` hash tag puts every key of one queue in one Redis Cluster slot (BullMQ's scripts touch
 * many of them at once), and each queue in a slot of its own, so the queues spread over the
 * cluster's masters (BullMQ docs, "Redis Cluster": a prefix in braces, a different one per queue;
 * docs/operations.md "Redis Cluster").
 */
export const bullPrefix = (prefix: string, queue: string): string => `${prefix}:bull:{${queue}}`;

/** The job names of a job map `M` (`{ [jobName]: payload }`). */
export type JobName<M> = Extract<keyof M, string>;
/** Any payload of a job map `M`. */
export type JobData<M> = M[JobName<M>];
/** One job of `M` as a producer writes it: its name and the payload that name carries. */
export type JobSpec<M> = { [N in JobName<M>]: { name: N; data: M[N] } }[JobName<M>];

/**
 * The producer side of a queue of `M`. Job names stay `string` in BullMQ's generics because
 * BullMQ types job scheduler ids as job names (`upsertJobScheduler(id: NameType, ...)`); the
 * producers pair names with payloads through `JobSpec<M>`.
 */
export type QueueOf<M> = Queue<JobData<M>>;
/** The consumer side of a queue of `M`. */
export type WorkerOf<M> = Worker<JobData<M>, unknown>;
/**
 * A job of `M` as a worker receives it. It may have been written by an older hrx (it waited in
 * Redis across a deploy), so its name stays `string` (an unknown one is refused) and a worker
 * checks its payload with a type guard before use.
 */
export type JobOf<M> = Job<JobData<M>, unknown>;
