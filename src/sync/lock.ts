/**
 * The per-client-org sync lock (decisions §4), in Redis so every API and worker process sees it.
 * A sync holds it while it runs and renews it every ttl/3; termination takes the same lock for
 * the moment of its state change, so "termination" and "a sync starts" exclude each other
 * atomically. A dead holder stops renewing and the lock expires after `ttlMs` (≤ 60 s).
 */
import type { Redis } from 'ioredis';

/** A held lock; `lost` turns true if renewal found the lock taken over or gone. */
export interface HeldLock {
  readonly owner: string;
  readonly lost: boolean;
  release(): Promise<void>;
}

export interface SyncLock {
  /** Takes the lock of `orgId` for `owner`; null when someone else holds it. Renews until released. */
  acquire(orgId: number, owner: string): Promise<HeldLock | null>;
  /** The current holder of `orgId`'s lock, or null. */
  holder(orgId: number): Promise<string | null>;
}

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** Builds the lock over `redis` with keys `<prefix>:sync-lock:<orgId>` living `ttlMs` unrenewed. */
export function createSyncLock(redis: Redis, prefix: string, ttlMs: number): SyncLock {
  const key = (orgId: number): string => `${prefix}:sync-lock:${orgId}`;
  return {
    async acquire(orgId, owner) {
      const ok = await redis.set(key(orgId), owner, 'PX', ttlMs, 'NX');
      if (ok !== 'OK') return null;
      let lost = false;
      let released = false;
      const timer = setInterval(() => {
        redis.eval(RENEW, 1, key(orgId), owner, String(ttlMs)).then((r) => {
          if (Number(r) !== 1 && !released) lost = true;
        }).catch(() => undefined);
      }, Math.max(1000, Math.floor(ttlMs / 3)));
      timer.unref();
      return {
        owner,
        get lost() { return lost; },
        async release() {
          released = true;
          clearInterval(timer);
          await redis.eval(RELEASE, 1, key(orgId), owner);
        },
      };
    },
    holder: (orgId) => redis.get(key(orgId)),
  };
}
