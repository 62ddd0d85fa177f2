/**
 * The per-credential rate limit (decisions §11), shared by every API process through Redis.
 * It knows credentials and counts, nothing of HTTP: the router turns a refusal into 429
 * `THROTTLED`.
 *
 * Batching: the requests of one event-loop turn are decided together, like the employee reads
 * (src/employees/store.ts): `take` only queues, and at `setImmediate` the queued requests go to
 * Redis as one script call, one key per credential with its count n; the script answers how
 * many of the n are allowed (the first ones asked) and when the next one would be. A busy API
 * thus makes one Redis round trip per turn, not per request, and a request beyond the limit is
 * never allowed, whichever process it reached.
 *
 * Redis unavailable (not connected, an error, or no answer within `timeoutMs`): each process
 * enforces the same limit on its own, in memory, with the same arithmetic, and logs a warning
 * (at most every 10 s). A Redis outage neither stops the API (reads do not need Redis) nor
 * leaves a leaked key unlimited; the budget is then per process instead of shared.
 */
import type { Redis, Result } from 'ioredis';

// The script command `createRateLimiter` defines with `defineCommand` (ioredis README, "Lua
// scripting": custom commands are typed by augmenting RedisCommander).
declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** GCRA_LUA: KEYS = the credential keys, ARGV = the GCRA parameters; answers the decisions. */
    hrxGcra(numKeys: number, ...args: (string | number)[]): Result<unknown, Context>;
  }
}
import type { Logger } from '../logger';
import { GCRA_LUA, gcra, gcraParams, retryAfterSeconds } from './gcra';

/** The decision for one request: allowed, or refused with the whole seconds to wait (≥ 1). */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSec: number };

/** Counts requests per credential against the limit. */
export interface RateLimiter {
  /**
   * Counts one request of credential `credentialId` (an id, never the secret: it becomes part
   * of a Redis key) and resolves with its decision, once the batch of this event-loop turn is
   * decided. Never rejects.
   */
  take(credentialId: string): Promise<RateDecision>;
}

export interface RateLimiterDeps {
  redis: Redis;
  /** `HRX_REDIS_PREFIX`; keys are `<prefix>:ratelimit:<credentialId>`. */
  prefix: string;
  /** Requests allowed per window, ≥ 1 (`HRX_RATE_LIMIT_PER_MINUTE`). */
  limit: number;
  /** The window in ms (`HRX_RATE_LIMIT_WINDOW_MS`, default 60 000). */
  windowMs: number;
  log: Logger;
  /** How long (ms) to wait for Redis before deciding in this process (default 1000). */
  timeoutMs?: number;
  /** Clock in µs instead of the Redis server's (tests only: lets them move time). */
  nowUs?: () => number;
}

/** Credentials per script call: bounds the size of one call when very many keys are busy. */
const MAX_KEYS_PER_CALL = 500;
const WARN_EVERY_MS = 10_000;
const ALLOWED: RateDecision = Object.freeze({ allowed: true });

type GcraCommand = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;
type Waiters = ((d: RateDecision) => void)[];

/**
 * Builds the limiter over `deps.redis` (defines the `hrxGcra` script command on it). Throws
 * RangeError on a limit < 1 or a window < 1 ms; a disabled limit (0) means no limiter at all.
 */
export function createRateLimiter(deps: RateLimiterDeps): RateLimiter {
  const params = gcraParams(deps.limit, deps.windowMs);
  const timeoutMs = deps.timeoutMs ?? 1000;
  const localNow = deps.nowUs ?? (() => Date.now() * 1000);
  deps.redis.defineCommand('hrxGcra', { lua: GCRA_LUA });
  const command: GcraCommand = deps.redis.hrxGcra.bind(deps.redis);

  let pending = new Map<string, Waiters>();
  let scheduled = false;
  // Per-process fallback state (TAT per credential), used only while Redis is unavailable.
  const local = new Map<string, number>();
  let degraded = false;
  let lastWarn = -Infinity;

  function settle(waiters: Waiters, allowed: number, waitUs: number): void {
    const refused: RateDecision = { allowed: false, retryAfterSec: retryAfterSeconds(waitUs) };
    waiters.forEach((resolve, i) => resolve(i < allowed ? ALLOWED : refused));
  }

  function decideLocally(batch: [string, Waiters][], err: unknown): void {
    degraded = true;
    const t = Date.now();
    if (t - lastWarn >= WARN_EVERY_MS) {
      lastWarn = t;
      deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'rate limiter: Redis unavailable, limiting per process');
    }
    const now = localNow();
    if (local.size > 10_000) for (const [id, tat] of local) if (tat <= now) local.delete(id);
    for (const [id, waiters] of batch) {
      const r = gcra(local.get(id), now, waiters.length, params);
      local.set(id, r.tatUs);
      settle(waiters, r.allowed, r.waitUs);
    }
  }

  async function decideShared(batch: [string, Waiters][]): Promise<void> {
    const keys = batch.map(([id]) => `${deps.prefix}:ratelimit:${id}`);
    const args = [...keys, params.intervalUs, params.limit, deps.nowUs ? deps.nowUs() : '', ...batch.map(([, w]) => w.length)];
    let timer: NodeJS.Timeout | undefined;
    let reply: unknown;
    try {
      reply = await Promise.race([
        command(keys.length, ...args),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      if (!Array.isArray(reply) || reply.length !== 2 * batch.length) throw new Error('unexpected rate limit script reply');
    } catch (err) {
      decideLocally(batch, err);
      return;
    } finally {
      clearTimeout(timer);
    }
    if (degraded) {
      degraded = false;
      deps.log.info('rate limiter: Redis is back, limits are shared again');
    }
    const counts = reply as number[];
    batch.forEach(([, waiters], i) => settle(waiters, Number(counts[2 * i]), Number(counts[2 * i + 1])));
  }

  function flush(): void {
    scheduled = false;
    const batch = [...pending];
    pending = new Map();
    // Not connected: ioredis would queue the call until it reconnects; decide now instead.
    if (deps.redis.status !== 'ready') {
      decideLocally(batch, new Error(`redis connection ${deps.redis.status}`));
      return;
    }
    for (let i = 0; i < batch.length; i += MAX_KEYS_PER_CALL) void decideShared(batch.slice(i, i + MAX_KEYS_PER_CALL));
  }

  return {
    take(credentialId) {
      return new Promise<RateDecision>((resolve) => {
        const waiters = pending.get(credentialId);
        if (waiters) waiters.push(resolve);
        else pending.set(credentialId, [resolve]);
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
