/**
 * The per-credential rate limit (docs/limits.md "Rate limits"), shared by every API process through Redis.
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
 * Leases, for credentials with a large limit (at least `LEASE_MIN_LIMIT` per window): a process
 * asks the script for a few more requests than its batch holds and keeps the extra ones, already
 * counted in Redis, for its next requests of that credential during `LEASE_TTL_MS`. Those are
 * then decided in the process, without a Redis round trip. Every allowed request was still
 * counted by the shared script first, so the limit is never exceeded; what a lease costs is at
 * most its unused requests (at most a thousandth of the limit, and no more than twice what the
 * process used of its previous lease plus its batch) counted without being made. Smaller limits
 * (the default 600 a minute) never lease: each request is decided by the script.
 *
 * Redis unavailable (not connected, an error, or no answer within `timeoutMs`): each process
 * enforces the same limit on its own, in memory, with the same arithmetic, and logs a warning
 * (at most every 10 s). A Redis outage neither stops the API (reads do not need Redis) nor
 * leaves a leaked key unlimited; the budget is then per process instead of shared.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../redis';

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
  redis: RedisClient;
  /** `HRX_REDIS_PREFIX`; keys are {@link rateLimitKey}'s. */
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

/** Hash-tag buckets of the rate-limit keys (see {@link rateLimitKey}). */
const BUCKETS = 16;

/** The bucket (0 to 15) of credential `id`: a string hash, the same in every process. */
function bucketOf(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) | 0;
  return (h >>> 0) % BUCKETS;
}

/**
 * The Redis key of credential `id`'s limit: `<prefix>:ratelimit:{ratelimit:<bucket>}:<id>`. A Redis
 * Cluster runs a script only over keys of one slot, and one call decides many credentials: the
 * hash tag puts the credentials of one bucket in one slot, and 16 buckets spread them over the
 * masters (docs/operations.md "Redis Cluster"). On one server a call still takes every bucket.
 */
export function rateLimitKey(prefix: string, id: string): string {
  return `${prefix}:ratelimit:{ratelimit:${bucketOf(id)}}:${id}`;
}

/** Credentials per script call: bounds the size of one call when very many keys are busy. */
const MAX_KEYS_PER_CALL = 500;
const WARN_EVERY_MS = 10_000;
const ALLOWED: RateDecision = Object.freeze({ allowed: true });
const ALLOWED_NOW: Promise<RateDecision> = Promise.resolve(ALLOWED);
/** Limits below this many requests per window never lease (see the header). */
const LEASE_MIN_LIMIT = 10_000;
/** Most requests one lease holds. */
const LEASE_MAX = 256;
/** How long (ms) leased requests may be used after the script counted them. */
const LEASE_TTL_MS = 250;

/** Requests of one credential this process may allow on its own until `until` (epoch ms). */
interface Lease {
  tokens: number;
  until: number;
  /** Requests taken from it so far (sizes the next lease). */
  used: number;
}

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
  const leaseCap = deps.limit >= LEASE_MIN_LIMIT ? Math.min(LEASE_MAX, Math.floor(deps.limit / 1000)) : 0;
  const leases = new Map<string, Lease>();

  /** Extra requests to ask for with a batch of `n` of credential `id` (0: no lease). */
  function leaseSize(id: string, n: number): number {
    if (leaseCap === 0) return 0;
    return Math.min(leaseCap, 2 * ((leases.get(id)?.used ?? 0) + n));
  }

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
    const keys = batch.map(([id]) => rateLimitKey(deps.prefix, id));
    const extra = batch.map(([id, w]) => leaseSize(id, w.length));
    const args = [...keys, params.intervalUs, params.limit, deps.nowUs ? deps.nowUs() : '', ...batch.map(([, w], i) => w.length + extra[i]!)];
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
    const until = Date.now() + LEASE_TTL_MS;
    batch.forEach(([id, waiters], i) => {
      const allowed = Number(counts[2 * i]);
      settle(waiters, allowed, Number(counts[2 * i + 1]));
      // The script allows the first ones asked: the waiters, then the lease's extra requests.
      if (extra[i]! > 0) {
        if (allowed > waiters.length) leases.set(id, { tokens: allowed - waiters.length, until, used: 0 });
        else leases.delete(id);
      }
    });
    if (leases.size > 10_000) for (const [id, l] of leases) if (l.until <= Date.now()) leases.delete(id);
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
    // A cluster takes one call per bucket (one slot each); one server takes the whole batch at once.
    for (const group of deps.redis.isCluster ? byBucket(batch) : [batch]) {
      for (let i = 0; i < group.length; i += MAX_KEYS_PER_CALL) void decideShared(group.slice(i, i + MAX_KEYS_PER_CALL));
    }
  }

  return {
    take(credentialId) {
      const lease = leaseCap > 0 ? leases.get(credentialId) : undefined;
      if (lease && lease.tokens > 0 && Date.now() < lease.until) {
        lease.tokens--;
        lease.used++;
        return ALLOWED_NOW;
      }
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

/** `batch` split by the credentials' buckets (one Redis Cluster slot each). */
function byBucket<T>(batch: [string, T][]): [string, T][][] {
  const groups = new Map<number, [string, T][]>();
  for (const entry of batch) {
    const b = bucketOf(entry[0]);
    const group = groups.get(b);
    if (group) group.push(entry);
    else groups.set(b, [entry]);
  }
  return [...groups.values()];
}
