/**
 * Counts failed authentications (docs/behaviour.md "Failed authentications": per source address and per presented
 * username or app_key, at most 20 failures a minute; past that the answer is the 429 of docs/errors.md
 * whatever the credential, until the window passes). It knows opaque keys and counts, nothing of HTTP or of
 * credentials: src/auth/failure-guard.ts names the keys and turns a refusal into 429 THROTTLED.
 *
 * Fixed windows: a key's first failure starts its window (`windowMs`); the key counts failures
 * until the window ends, then disappears. `check` refuses while any key holds `limit` failures
 * or more, and answers how long until the latest-ending such window passes. Only failures count
 * (`fail`).
 *
 * Shared by every API process through Redis: a failure, reservation or refund is one script call.
 * The script that brings a key to the limit also records the lock and announces it to every
 * process (ratelimit/auth-failure-locks.ts), so with `subscriber` a success costs no Redis call:
 * a check of keys none of which this process knows to be locked is allowed at once, and only
 * a check naming a locked key asks Redis (whose answer decides). Without `subscriber`, or while
 * its subscription is down, every check asks Redis; the checks of one event-loop turn are one
 * script call (like limiter.ts's batches).
 *
 * Redis unavailable (not connected, an error, or no answer within `timeoutMs`): each process
 * counts on its own, in memory, with the same rule, and logs a warning (at most every 10 s). The
 * limit then holds per process instead of across processes; no request waits longer than
 * `timeoutMs` for it.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../redis';

// The script commands `createFailureLimiter` defines with `defineCommand` (ioredis README, "Lua
// scripting": custom commands are typed by augmenting RedisCommander). KEYS first, then ARGV.
declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** CHECK_MANY_LUA: whether any of the keys is past the limit. */
    hrxAuthFailCheck(numKeys: number, ...args: (string | number)[]): Result<unknown, Context>;
    /** FAIL_LUA: counts one failure. */
    hrxAuthFailCount(numKeys: number, ...args: (string | number)[]): Result<unknown, Context>;
    /** RESERVE_LUA: reserves a slot before a slow check. */
    hrxAuthFailReserve(numKeys: number, ...args: (string | number)[]): Result<unknown, Context>;
    /** REFUND_LUA: gives a reserved slot back. */
    hrxAuthFailRefund(numKeys: number, ...args: (string | number)[]): Result<unknown, Context>;
  }
}
import type { Logger } from '../logger';
import { createLockedKeys, LOCK_LUA, lockNames, type LockedKeys } from './auth-failure-locks';
import { retryAfterSeconds } from './gcra';
import type { RateDecision } from './limiter';

/** Refuses keys over the failure limit and counts failures. Neither method rejects. */
export interface FailureLimiter {
  /** Allowed unless one of `keys` holds `limit` failures or more in its current window. */
  check(keys: readonly string[]): Promise<RateDecision>;
  /**
   * True when `check(keys)` would allow at once without asking Redis: this process's copy of the
   * locks is current and names none of `keys` (the hot path of a success: no promise, no wait).
   * False means "ask `check`", not "refused".
   */
  allowedNow(keys: readonly string[]): boolean;
  /** Counts one failure on each of `keys` (starting its window when it had none). */
  fail(keys: readonly string[]): Promise<void>;
  /**
   * `check` and `fail` in one atomic step: refused as `check` would be, else counts one failure
   * on each key at once (before the outcome is known, so concurrent attempts cannot all slip
   * under the limit). `refund` takes it back on success.
   */
  reserve(keys: readonly string[]): Promise<RateDecision>;
  /** Takes back one `reserve`d failure of each key (a success). */
  refund(keys: readonly string[]): Promise<void>;
  /** Ends the subscription to the locks (when there is one). */
  close(): Promise<void>;
}

export interface FailureLimiterDeps {
  redis: RedisClient;
  /** `HRX_REDIS_PREFIX`; keys are `<prefix>:authfail:{authfail}:<key>` (auth-failure-locks.ts `lockNames`). */
  prefix: string;
  /** Failures allowed per key and window, ≥ 1 (`HRX_AUTH_FAILURE_LIMIT`, default 20). */
  limit: number;
  /** The window in ms (`HRX_AUTH_FAILURE_WINDOW_MS`, default 60 000). */
  windowMs: number;
  log: Logger;
  /** How long (ms) to wait for Redis before deciding in this process (default 500). */
  timeoutMs?: number;
  /**
   * Makes the connection that hears the other processes' locks (subscriber mode; opened on the
   * first check). Absent: every check asks Redis.
   */
  subscriber?: (() => RedisClient) | undefined;
}

/** Header of FAIL_LUA and RESERVE_LUA: KEYS[1] is the set of locks, ARGV limit, windowMs, channel. */
const LOCKING = `
local limit = tonumber(ARGV[1])
local locks = KEYS[1]
local channel = ARGV[3]
local out = {}
${LOCK_LUA}
local function count()
  for i = 2, #KEYS do
    local key = KEYS[i]
    local n = redis.call('INCR', key)
    if n == 1 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[2]) end
    lock(key, n)
  end
end
`;

/**
 * KEYS: the set of locks, then the keys; ARGV: limit, windowMs, channel. A key's window starts at
 * its first failure. Answers the keys at the limit and their ms left (key₁, ms₁, …).
 */
const FAIL_LUA = `${LOCKING}
count()
return out
`;

/**
 * FAIL_LUA after CHECK_MANY_LUA's test of the keys, atomically: answers {ms to wait} when refused (nothing
 * counted), else {0, key₁, ms₁, …} (the keys the reservation brought to the limit, or past it).
 */
const RESERVE_LUA = `${LOCKING}
local wait = 0
for i = 2, #KEYS do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
  if c >= limit then
    local t = redis.call('PTTL', KEYS[i])
    if t < 0 then t = tonumber(ARGV[2]) end
    if t > wait then wait = t end
  end
end
if wait > 0 then return {wait} end
count()
table.insert(out, 1, 0)
return out
`;

/** KEYS: the keys. Decrements each key that still exists and is positive (its window may have passed). */
const REFUND_LUA = `
for _, key in ipairs(KEYS) do
  local c = tonumber(redis.call('GET', key) or '0') or 0
  if c > 0 then redis.call('DECR', key) end
end
return 1
`;

/**
 * KEYS: every key of the checks of one event-loop turn; ARGV: limit, windowMs. Answers, per key,
 * the ms until its window passes when it is at the limit, else 0.
 */
const CHECK_MANY_LUA = `
local limit = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local c = tonumber(redis.call('GET', key) or '0') or 0
  local wait = 0
  if c >= limit then
    wait = redis.call('PTTL', key)
    if wait < 0 then wait = tonumber(ARGV[2]) end
  end
  out[i] = wait
end
return out
`;

/** Keys per batched check call: bounds one call when very many sources are busy. */
const MAX_KEYS_PER_CALL = 500;

const WARN_EVERY_MS = 10_000;
const ALLOWED: RateDecision = Object.freeze({ allowed: true });
type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/**
 * Builds the failure counter over `deps.redis` (defines four script commands on it). Throws
 * RangeError on a limit < 1.
 */
export function createFailureLimiter(deps: FailureLimiterDeps): FailureLimiter {
  if (!(Number.isSafeInteger(deps.limit) && deps.limit >= 1) || !(Number.isSafeInteger(deps.windowMs) && deps.windowMs >= 1)) {
    throw new RangeError('auth failure limit needs limit >= 1 and windowMs >= 1 (integers)');
  }
  const timeoutMs = deps.timeoutMs ?? 500;
  deps.redis.defineCommand('hrxAuthFailCheck', { lua: CHECK_MANY_LUA });
  deps.redis.defineCommand('hrxAuthFailCount', { lua: FAIL_LUA });
  deps.redis.defineCommand('hrxAuthFailReserve', { lua: RESERVE_LUA });
  deps.redis.defineCommand('hrxAuthFailRefund', { lua: REFUND_LUA });
  type Name = 'hrxAuthFailCheck' | 'hrxAuthFailCount' | 'hrxAuthFailReserve' | 'hrxAuthFailRefund';
  const scripts: Record<Name, Script> = {
    hrxAuthFailCheck: (n, ...a) => deps.redis.hrxAuthFailCheck(n, ...a),
    hrxAuthFailCount: (n, ...a) => deps.redis.hrxAuthFailCount(n, ...a),
    hrxAuthFailReserve: (n, ...a) => deps.redis.hrxAuthFailReserve(n, ...a),
    hrxAuthFailRefund: (n, ...a) => deps.redis.hrxAuthFailRefund(n, ...a),
  };
  const names = lockNames(deps.prefix);
  const locked: LockedKeys | undefined = deps.subscriber ? createLockedKeys({ redis: deps.redis, subscriber: deps.subscriber, names }) : undefined;
  const full = (keys: readonly string[]): string[] => keys.map((k) => names.keyPrefix + k);
  // Per-process fallback: failures per key and the end of the key's window (ms).
  const local = new Map<string, { count: number; until: number }>();
  let degraded = false;
  let lastWarn = -Infinity;

  function fallBack(err: unknown): void {
    degraded = true;
    const t = Date.now();
    if (t - lastWarn >= WARN_EVERY_MS) {
      lastWarn = t;
      deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'auth failure limit: Redis unavailable, counting per process');
    }
  }

  /** Runs `script` on the full Redis keys `keys` (KEYS) and `args` (ARGV), within `timeoutMs`. */
  async function shared(script: Name, keys: readonly string[], args: (string | number)[]): Promise<unknown> {
    // Not connected: ioredis would queue the call until it reconnects; decide now instead.
    if (deps.redis.status !== 'ready') throw new Error(`redis connection ${deps.redis.status}`);
    let timer: NodeJS.Timeout | undefined;
    try {
      const reply = await Promise.race([
        scripts[script](keys.length, ...keys, ...args),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      if (degraded) {
        degraded = false;
        deps.log.info('auth failure limit: Redis is back, counts are shared again');
      }
      return reply;
    } finally {
      clearTimeout(timer);
    }
  }

  function localEntry(key: string, now: number): { count: number; until: number } | undefined {
    const e = local.get(key);
    if (e && e.until <= now) {
      local.delete(key);
      return undefined;
    }
    return e;
  }

  function localWait(keys: readonly string[]): number {
    const now = Date.now();
    let waitMs = 0;
    for (const k of keys) {
      const e = localEntry(k, now);
      if (e && e.count >= deps.limit) waitMs = Math.max(waitMs, e.until - now);
    }
    return waitMs;
  }

  function localFail(keys: readonly string[]): void {
    const now = Date.now();
    if (local.size > 50_000) for (const [k, e] of local) if (e.until <= now) local.delete(k);
    for (const k of keys) {
      let e = localEntry(k, now);
      if (e) e.count++;
      else local.set(k, (e = { count: 1, until: now + deps.windowMs }));
      // A lock counted here is known to this process's checks too (they may not ask Redis).
      if (e.count >= deps.limit) locked?.add(k, e.until - now);
    }
  }

  const decision = (waitMs: number): RateDecision => (waitMs > 0 ? { allowed: false, retryAfterSec: retryAfterSeconds(waitMs * 1000) } : ALLOWED);

  // Checks are the hot path (every API-key request makes one): those of one event-loop turn are
  // decided together once the turn's I/O (including lock announcements) has been read.
  let pending: { keys: readonly string[]; resolve: (d: RateDecision) => void }[] = [];

  async function checkBatch(batch: typeof pending): Promise<void> {
    const keys = [...new Set(batch.flatMap((c) => c.keys))];
    let waits: Map<string, number>;
    try {
      const reply = await shared('hrxAuthFailCheck', full(keys), [deps.limit, deps.windowMs]);
      if (!Array.isArray(reply) || reply.length !== keys.length) throw new Error('unexpected auth failure script reply');
      waits = new Map(keys.map((k, i) => [k, Number(reply[i]) || 0]));
    } catch (err) {
      fallBack(err);
      for (const c of batch) c.resolve(decision(localWait(c.keys)));
      return;
    }
    for (const c of batch) c.resolve(decision(Math.max(0, ...c.keys.map((k) => waits.get(k) ?? 0))));
  }

  function flushChecks(): void {
    const all = pending;
    pending = [];
    let asking = all;
    if (locked?.current()) {
      // The copy holds every lock in force: only checks naming a locked key ask Redis.
      asking = [];
      for (const c of all) {
        if (locked.anyLocked(c.keys)) asking.push(c);
        else c.resolve(ALLOWED);
      }
    }
    let batch: typeof pending = [];
    let size = 0;
    for (const c of asking) {
      if (size + c.keys.length > MAX_KEYS_PER_CALL && batch.length) {
        void checkBatch(batch);
        batch = [];
        size = 0;
      }
      batch.push(c);
      size += c.keys.length;
    }
    if (batch.length) void checkBatch(batch);
  }

  /** FAIL_LUA or RESERVE_LUA on `keys`; records the locks it answers; answers the rest of the reply. */
  async function counting(script: 'hrxAuthFailCount' | 'hrxAuthFailReserve', keys: readonly string[]): Promise<unknown[]> {
    const reply = await shared(script, [names.set, ...full(keys)], [deps.limit, deps.windowMs, names.channel]);
    if (!Array.isArray(reply)) throw new Error('unexpected auth failure script reply');
    // RESERVE_LUA's first element is its wait; the locks follow.
    const items: unknown[] = reply;
    locked?.addAll(script === 'hrxAuthFailReserve' ? items.slice(1) : items);
    return items;
  }

  return {
    allowedNow(keys) {
      return locked !== undefined && locked.current() && !locked.anyLocked(keys);
    },
    check(keys) {
      return new Promise<RateDecision>((resolve) => {
        if (!pending.length) setImmediate(flushChecks);
        pending.push({ keys, resolve });
      });
    },
    async fail(keys) {
      try {
        await counting('hrxAuthFailCount', keys);
      } catch (err) {
        fallBack(err);
        localFail(keys);
      }
    },
    async reserve(keys) {
      let waitMs: number;
      try {
        waitMs = Number((await counting('hrxAuthFailReserve', keys))[0]);
        if (!Number.isFinite(waitMs)) throw new Error('unexpected auth failure script reply');
      } catch (err) {
        fallBack(err);
        waitMs = localWait(keys);
        if (waitMs === 0) localFail(keys);
      }
      return decision(waitMs);
    },
    async refund(keys) {
      try {
        await shared('hrxAuthFailRefund', full(keys), []);
      } catch (err) {
        fallBack(err);
        const now = Date.now();
        for (const k of keys) {
          const e = localEntry(k, now);
          if (e && e.count > 0) e.count--;
        }
      }
    },
    async close() {
      await locked?.close();
    },
  };
}
