/**
 * The request budget of one HRMS tenant, shared by every hrx worker through Redis (docs/behaviour.md "Live reads and the HRMS budget":
 * "Each HRMS tenant has one request budget shared by every hrx worker, set to the product's
 * published limit ... A sync waits for its budget rather than failing").
 *
 * A sliding-window log per tenant: a sorted set of the requests of the last window, each scored
 * by the latest instant (Redis server time, ms) it may reach the HRMS: the take's instant plus
 * `inFlightMs` while it is on its way, the answer's instant once `done` reports it. A request is
 * allowed while fewer than `requests` entries score within the window; otherwise the caller waits
 * until enough leave it. The HRMS receives a request between its take and its answer, so no window
 * of `windowMs` at the HRMS ever holds more than `requests`, however late a request leaves after
 * its take (docs/behaviour.md "Live reads and the HRMS budget"; Keka: the 51st request within 60 s
 * is refused). The window is widened by `marginMs` for clock and network slack.
 *
 * `holdOff` sets a tenant-wide pause (a 429 with Retry-After, Zoho's 5-minute lock-out): every
 * worker waits it out instead of hammering.
 *
 * Redis unavailable: `take` keeps waiting (polling every second) rather than letting requests
 * through uncounted; the sync's own Redis-held lock fails the run meanwhile anyway. A bounded
 * take (a live read's) throws `BudgetWaitExceeded` at once instead.
 *
 * Live reads (`source=hrms`) count in the same log under a lower cap (`liveReadLimit`), so
 * they never take the part of the window kept for syncs, and wait at most `maxWaitMs`
 * (`BudgetWaitExceeded` past it): docs/behaviour.md "Live reads and the HRMS budget".
 */
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Result } from 'ioredis';
import type { RedisClient } from '../redis';
import type { RequestBudget } from '../hrms/connector';
import { BudgetWaitExceeded } from '../hrms/live-source';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** BUDGET_TAKE_LUA: KEYS = [log, hold], ARGV = [requests, windowMs, member, inFlightMs, now?]; 0 or the ms to wait. */
    hrxBudgetTake(log: string, hold: string, requests: number, windowMs: number, member: string, inFlightMs: number, ...now: number[]): Result<number, Context>;
    /** BUDGET_DONE_LUA: KEYS = [log], ARGV = [member, now?]; the request's slot counts from now. */
    hrxBudgetDone(log: string, member: string, ...now: number[]): Result<number, Context>;
    /** BUDGET_HOLD_LUA: KEYS = [hold], ARGV = [ms, now?]; sets the pause unless a longer one is set. */
    hrxBudgetHold(hold: string, ms: number, ...now: number[]): Result<number, Context>;
  }
}

/**
 * The scripts' clock: Redis server time in ms, or the caller's `now` (a simulated clock: the
 * property test, test/integration/ratelimit/hrms-budget-window.integration.test.ts). The hold
 * key holds its end instant, so a simulated clock governs it too.
 */
const NOW_LUA = (arg: number) => `
local now
if ARGV[${arg}] then now = tonumber(ARGV[${arg}]) else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * Each entry of the log is one request, scored by the latest instant it may reach the HRMS: at
 * the take, the take's instant plus `inFlightMs` (the request is on its way); once answered or
 * failed (BUDGET_DONE_LUA), that instant. An entry counts while its score is within the window,
 * so a request sent late after its take (a busy event loop, a slow connection) still counts in
 * every window its arrival can fall in.
 */
const BUDGET_TAKE_LUA = `${NOW_LUA(5)}
local holdUntil = tonumber(redis.call('GET', KEYS[2]) or '0')
if holdUntil > now then return holdUntil - now end
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window + tonumber(ARGV[4]) + 1000)
  return 0
end
-- The wait until enough entries leave the window for one more under this caller's cap (a live
-- read's cap is below the sync's: it may find more entries than its cap in the log).
local at = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
local freeing = redis.call('ZRANGE', KEYS[1], at, at, 'WITHSCORES')
return math.max(1, tonumber(freeing[2]) + window - now + 1)
`;

const BUDGET_DONE_LUA = `${NOW_LUA(2)}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) > now then
  redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
  return 1
end
return 0
`;

const BUDGET_HOLD_LUA = `${NOW_LUA(2)}
local untilMs = now + tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[1]) or '0') < untilMs then
  redis.call('SET', KEYS[1], untilMs, 'PX', ARGV[1])
  return 1
end
return 0
`;

/** A product's published limit: `requests` per `windowMs` (docs/behaviour.md "Live reads and the HRMS budget"). */
export interface BudgetLimit {
  requests: number;
  windowMs: number;
}

export interface HrmsBudgetDeps {
  redis: RedisClient;
  /**
   * `HRX_REDIS_PREFIX`; keys are `<prefix>:hrms-budget:{<hrms_id>:<hash of tenant>}[:hold]`: one
   * tenant's log and pause share a hash tag, as the take script touches both (a Redis Cluster
   * slot per tenant: docs/operations.md "Redis Cluster").
   */
  prefix: string;
  /** Added to every window, ms (default 1000): a counted request reaches the HRMS a little later. */
  marginMs?: number;
  /** Longest single sleep while waiting, ms (default 1000): a freed slot is seen within it. */
  pollMs?: number;
  /**
   * How long a taken request may take to reach the HRMS and be answered, ms (default 120 000,
   * above every connector's request timeout): its slot counts until then unless it is reported
   * done sooner, so a worker that dies mid-request never frees a slot early.
   */
  inFlightMs?: number;
}

/** Hands out the shared budget of each HRMS tenant. */
export interface HrmsBudgets {
  /**
   * The budget of `tenant` (a connector definition's `tenantOf`, e.g. `https://acme.hrms.example`;
   * hashed into the key, never stored as given) of product `hrmsId` under `limit`. Budgets of one
   * `hrmsId` and `tenant` share one log whatever their `limit`: a lower `limit.requests` only
   * caps that caller. With `opts.maxWaitMs`, `take` throws `BudgetWaitExceeded` (the wait still
   * needed) instead of waiting past that many ms from its call.
   */
  budgetFor(this: void, hrmsId: string, tenant: string, limit: BudgetLimit, opts?: { maxWaitMs?: number }): RequestBudget;
}

/** Builds the budgets over `redis`. */
export function createHrmsBudgets(deps: HrmsBudgetDeps): HrmsBudgets {
  const { redis, prefix } = deps;
  const marginMs = deps.marginMs ?? 1000;
  const pollMs = deps.pollMs ?? 1000;
  const inFlightMs = deps.inFlightMs ?? 120_000;
  redis.defineCommand('hrxBudgetTake', { numberOfKeys: 2, lua: BUDGET_TAKE_LUA });
  redis.defineCommand('hrxBudgetDone', { numberOfKeys: 1, lua: BUDGET_DONE_LUA });
  redis.defineCommand('hrxBudgetHold', { numberOfKeys: 1, lua: BUDGET_HOLD_LUA });
  return {
    budgetFor(hrmsId, tenant, limit, opts = {}) {
      const tenantKey = createHash('sha256').update(tenant).digest('hex').slice(0, 32);
      const log = `${prefix}:hrms-budget:{${hrmsId}:${tenantKey}}`;
      const hold = `${log}:hold`;
      const requests = Math.max(1, Math.floor(limit.requests));
      const windowMs = Math.max(1, Math.floor(limit.windowMs)) + marginMs;
      return {
        async take(signal) {
          const deadline = opts.maxWaitMs === undefined ? Infinity : Date.now() + opts.maxWaitMs;
          for (;;) {
            signal?.throwIfAborted();
            let waitMs: number;
            const member = randomBytes(8).toString('hex');
            try {
              waitMs = Number(await redis.hrxBudgetTake(log, hold, requests, windowMs, member, inFlightMs));
            } catch {
              // A bounded caller (a live read) is answered now rather than after polling a Redis
              // that is away: such a request is a 503 at once (docs/operations.md "Redis or PostgreSQL down; shutdown").
              if (opts.maxWaitMs !== undefined) throw new BudgetWaitExceeded(pollMs);
              waitMs = pollMs;
            }
            // The request was answered or failed: its slot counts from now (never later than the take's bound).
            if (waitMs <= 0)
              return () =>
                redis.hrxBudgetDone(log, member).then(
                  () => undefined,
                  () => undefined,
                );
            if (Date.now() + waitMs > deadline) throw new BudgetWaitExceeded(waitMs);
            // Waiters poll: a little jitter keeps the workers of one tenant from asking in lockstep.
            await sleep(Math.min(waitMs, pollMs) + Math.floor(Math.random() * 25), undefined, signal ? { signal } : {});
          }
        },
        async holdOff(ms) {
          if (!(ms > 0)) return;
          await redis.hrxBudgetHold(hold, Math.ceil(ms)).catch(() => undefined);
        },
      };
    },
  };
}
