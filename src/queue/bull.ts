/**
 * What the BullMQ producers (src/sync/queue.ts, src/events/queue.ts) and the workers (jobs/)
 * must agree on: the Redis key prefix of every queue.
 */

/** BullMQ's key prefix under hrx's `HRX_REDIS_PREFIX`: `<prefix>:bull`. */
export const bullPrefix = (prefix: string): string => `${prefix}:bull`;
