/**
 * Per-process cache of "which approved connection does vendor V have with client org C", the
 * question every employee read asks first. Every connection change (create, approve, reject,
 * terminate) clears the cache of every API process at once through a Redis pub/sub message; the
 * process making the change clears its own synchronously before answering. `ttlMs` (default 2 s)
 * bounds staleness should a message be lost. Keyed by the vendor org, so no answer for one vendor
 * can be served to another.
 */
import type { RedisClient } from '../redis';
import type { DataPoints } from '../domain/data-points';

/** What a vendor's read needs to know of its approved connection with a client org. */
export interface ConnectionAccess {
  clientOrgId: number;
  connectionId: string;
  /** The data points the connection shares (`EVERY_DATA_POINT`: all of them). */
  sharedDataPoints: DataPoints;
  consentRequired: boolean;
  liveSource: boolean;
}

export interface ConnectionAccessCache {
  /** The approved connection of `vendorOrgId` with client `clientOrgUuid`, or null. */
  get(vendorOrgId: number, clientOrgUuid: string): Promise<ConnectionAccess | null>;
  /** Clears this process's cache and tells every other process to clear theirs. */
  changed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the cache over `load` (the database query). `subscriber` is a Redis connection this
 * cache owns (it enters subscriber mode); `publisher` any other connection.
 */
export function createConnectionAccessCache(opts: {
  load: (vendorOrgId: number, clientOrgUuid: string) => Promise<ConnectionAccess | null>;
  publisher: RedisClient;
  subscriber: RedisClient;
  channel: string;
  ttlMs?: number;
}): ConnectionAccessCache {
  const ttl = opts.ttlMs ?? 2000;
  let entries = new Map<string, { value: ConnectionAccess | null; until: number }>();
  // Bumped on every clear, so a load that started before a change is not cached after it.
  let generation = 0;
  const clear = (): void => {
    generation++;
    entries = new Map();
  };
  opts.subscriber.on('message', (channel) => {
    if (channel === opts.channel) clear();
  });
  const subscribed = opts.subscriber.subscribe(opts.channel).catch(() => undefined);
  return {
    async get(vendorOrgId, clientOrgUuid) {
      const key = `${vendorOrgId}:${clientOrgUuid}`;
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && hit.until > now) return hit.value;
      const gen = generation;
      const value = await opts.load(vendorOrgId, clientOrgUuid);
      if (gen === generation) {
        if (entries.size > 50_000) entries = new Map();
        entries.set(key, { value, until: now + ttl });
      }
      return value;
    },
    async changed() {
      clear();
      await opts.publisher.publish(opts.channel, String(Date.now()));
    },
    async close() {
      await subscribed;
      opts.subscriber.disconnect();
    },
  };
}
