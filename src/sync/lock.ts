/**
 * The per-client-org sync lock (docs/api.md "Terminate connection"), in Redis so every API and worker process sees it.
 * A sync holds it while it runs and renews it every ttl/3; termination takes the same lock for
 * the moment of its state change, so "termination" and "a sync starts" exclude each other
 * atomically. A dead holder stops renewing and the lock expires after `ttlMs` (≤ 60 s).
 *
 * A renewal that finds the lock gone or taken over, or that fails (Redis error), marks the lock
 * lost: past that moment another holder may have it, so the sync must not commit its end
 * (removing unseen employees, `succeeded`); it checks `lost`, aborts on `signal`, and asks
 * `confirm()` right before it commits.
 */
import type { RedisClient } from '../redis';

/** A held lock; `lost` turns true (and `signal` aborts) once a renewal fails or finds the lock not ours. */
export interface HeldLock {
  readonly owner: string;
  readonly lost: boolean;
  /** Aborted when the lock is lost (reason: an `Error('sync lock lost')`). */
  readonly signal: AbortSignal;
  /**
   * Renews the lock now and says whether it is still ours (false, and the lock marked lost, when
   * it is gone, taken over, or Redis fails). For the moment right before committing the run's end.
   */
  confirm(): Promise<boolean>;
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
export function createSyncLock(redis: RedisClient, prefix: string, ttlMs: number): SyncLock {
  const key = (orgId: number): string => `${prefix}:sync-lock:${orgId}`;
  return {
    async acquire(orgId, owner) {
      const ok = await redis.set(key(orgId), owner, 'PX', ttlMs, 'NX');
      if (ok !== 'OK') return null;
      const aborter = new AbortController();
      let released = false;
      const markLost = (): void => {
        if (!released && !aborter.signal.aborted) aborter.abort(new Error('sync lock lost'));
      };
      const renew = async (): Promise<boolean> => {
        try {
          const r = await redis.eval(RENEW, 1, key(orgId), owner, String(ttlMs));
          if (Number(r) === 1) return !aborter.signal.aborted;
        } catch {
          /* a renewal that fails cannot vouch for the lock: lost */
        }
        markLost();
        return false;
      };
      const timer = setInterval(() => void renew(), Math.max(1000, Math.floor(ttlMs / 3)));
      timer.unref();
      return {
        owner,
        get lost() {
          return aborter.signal.aborted;
        },
        signal: aborter.signal,
        confirm: renew,
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
