/**
 * Counts failed authentications (decisions §2: "per source address and per presented username or
 * app_key, at most 20 failures a minute; past that the answer is the 429 of §1 whatever the
 * credential, until the window passes"). It knows opaque keys and counts, nothing of HTTP or of
 * credentials: src/auth/failure-guard.ts names the keys and turns a refusal into 429 THROTTLED.
 *
 * Fixed windows: a key's first failure starts its window (`windowMs`); the key counts failures
 * until the window ends, then disappears. `check` refuses while any key holds `limit` failures
 * or more, and answers how long until the latest-ending such window passes. Only failures count
 * (`fail`); a success costs one read, no write.
 *
 * Shared by every API process through Redis: the checks of one event-loop turn are one script
 * call (like limiter.ts's batches), a failure, reservation or refund one call each. Redis unavailable (not connected, an error, or no answer within `timeoutMs`): each
 * process counts on its own, in memory, with the same rule, and logs a warning (at most every
 * 10 s). The limit then holds per process instead of across processes; no request waits longer
 * than `timeoutMs` for it.
 */
import type { Redis, Result } from 'ioredis';

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
import { retryAfterSeconds } from './gcra';
import type { RateDecision } from './limiter';

/** Refuses keys over the failure limit and counts failures. Neither method rejects. */
export interface FailureLimiter {
  /** Allowed unless one of `keys` holds `limit` failures or more in its current window. */
  check(keys: readonly string[]): Promise<RateDecision>;
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
}

export interface FailureLimiterDeps {
  redis: Redis;
  /** `HRX_REDIS_PREFIX`; keys are `<prefix>:authfail:<key>`. */
  prefix: string;
  /** Failures allowed per key and window, ≥ 1 (`HRX_AUTH_FAILURE_LIMIT`, default 20). */
  limit: number;
  /** The window in ms (`HRX_AUTH_FAILURE_WINDOW_MS`, default 60 000). */
  windowMs: number;
  log: Logger;
  /** How long (ms) to wait for Redis before deciding in this process (default 500). */
  timeoutMs?: number;
}

/** KEYS: the keys; ARGV: limit, windowMs. Answers the ms to wait (0: allowed); the first half of RESERVE_LUA. */
const CHECK_LUA = `
local limit = tonumber(ARGV[1])
local wait = 0
for _, key in ipairs(KEYS) do
  local c = tonumber(redis.call('GET', key) or '0') or 0
  if c >= limit then
    local t = redis.call('PTTL', key)
    if t < 0 then t = tonumber(ARGV[2]) end
    if t > wait then wait = t end
  end
end
return wait
`;

/** KEYS: the keys; ARGV: windowMs. A key's window starts at its first failure. */
const FAIL_LUA = `
for _, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 1
`;

/** KEYS: the keys; ARGV: limit, windowMs. CHECK, then (allowed) FAIL, atomically; answers the ms to wait. */
const RESERVE_LUA = CHECK_LUA.replace('return wait', `if wait > 0 then return wait end
for _, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[2]) end
end
return 0`);

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

/** Builds the failure counter over `deps.redis` (defines two script commands on it). Throws RangeError on a limit < 1. */
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
    hrxAuthFailCheck: deps.redis.hrxAuthFailCheck, hrxAuthFailCount: deps.redis.hrxAuthFailCount,
    hrxAuthFailReserve: deps.redis.hrxAuthFailReserve, hrxAuthFailRefund: deps.redis.hrxAuthFailRefund,
  };
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

  async function shared(script: Name, keys: readonly string[], args: (string | number)[]): Promise<unknown> {
    // Not connected: ioredis would queue the call until it reconnects; decide now instead.
    if (deps.redis.status !== 'ready') throw new Error(`redis connection ${deps.redis.status}`);
    const full = keys.map((k) => `${deps.prefix}:authfail:${k}`);
    let timer: NodeJS.Timeout | undefined;
    try {
      const reply = await Promise.race([
        scripts[script].call(deps.redis, full.length, ...full, ...args),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); }),
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
      const e = localEntry(k, now);
      if (e) e.count++;
      else local.set(k, { count: 1, until: now + deps.windowMs });
    }
  }

  const decision = (waitMs: number): RateDecision =>
    waitMs > 0 ? { allowed: false, retryAfterSec: retryAfterSeconds(waitMs * 1000) } : ALLOWED;

  // Checks are the hot path (every API-key request makes one): those of one event-loop turn go
  // to Redis as one script call, like limiter.ts batches its decisions.
  let pending: { keys: readonly string[]; resolve: (d: RateDecision) => void }[] = [];

  async function checkBatch(batch: typeof pending): Promise<void> {
    const keys = [...new Set(batch.flatMap((c) => c.keys))];
    let waits: Map<string, number>;
    try {
      const reply = await shared('hrxAuthFailCheck', keys, [deps.limit, deps.windowMs]);
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
    let batch: typeof pending = [];
    let size = 0;
    for (const c of all) {
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

  async function sharedWait(script: 'hrxAuthFailReserve', keys: readonly string[]): Promise<number> {
    const waitMs = Number(await shared(script, keys, [deps.limit, deps.windowMs]));
    if (!Number.isFinite(waitMs)) throw new Error('unexpected auth failure script reply');
    return waitMs;
  }

  return {
    check(keys) {
      return new Promise<RateDecision>((resolve) => {
        if (!pending.length) setImmediate(flushChecks);
        pending.push({ keys, resolve });
      });
    },
    async fail(keys) {
      try {
        await shared('hrxAuthFailCount', keys, [deps.windowMs]);
      } catch (err) {
        fallBack(err);
        localFail(keys);
      }
    },
    async reserve(keys) {
      try {
        return decision(await sharedWait('hrxAuthFailReserve', keys));
      } catch (err) {
        fallBack(err);
        const waitMs = localWait(keys);
        if (waitMs === 0) localFail(keys);
        return decision(waitMs);
      }
    },
    async refund(keys) {
      try {
        await shared('hrxAuthFailRefund', keys, []);
      } catch (err) {
        fallBack(err);
        const now = Date.now();
        for (const k of keys) {
          const e = localEntry(k, now);
          if (e && e.count > 0) e.count--;
        }
      }
    },
  };
}
