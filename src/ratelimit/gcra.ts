/**
 * The arithmetic of the per-credential rate limit (docs/limits.md "Rate limits"): GCRA, the generic cell rate
 * algorithm, over integer microseconds. `limit` requests per `windowMs` means a burst of at most
 * `limit` requests, refilled continuously at one request per `limit`-th of the window. There are
 * no window edges, so no 2× burst where two fixed windows meet: a credential that used its whole
 * budget gets one more request per interval, and the whole budget again only after a full window
 * without requests.
 *
 * The state of one credential is one number, its TAT ("theoretical arrival time", µs): the
 * moment its budget would be full again. The same arithmetic exists twice, here (pure, for the
 * per-process fallback and for tests) and in `GCRA_LUA` (atomic in Redis, shared by every API
 * process); test/integration/ratelimit/limiter.integration.test.ts checks that the two agree.
 */

/** Limit parameters in the units of the arithmetic. */
export interface GcraParams {
  /** Microseconds between two requests at the sustained rate (≥ 1, an integer). */
  intervalUs: number;
  /** Largest burst: requests allowed at once on a full budget (≥ 1). */
  limit: number;
}

/** Outcome of asking for `n` requests at once. */
export interface GcraResult {
  /** How many of the n are allowed (the first ones asked); the rest are refused. */
  allowed: number;
  /** The new TAT (µs). */
  tatUs: number;
  /** Microseconds until one more request would be allowed (0: now). */
  waitUs: number;
}

/**
 * The parameters of `limit` requests per `windowMs`. The interval is rounded up to whole
 * microseconds, so the limit is never exceeded (the effective window, limit × interval, is
 * never shorter than `windowMs`); above one request per microsecond the sustained rate is
 * capped at 10⁶/s while the burst stays `limit`. Throws RangeError on a limit < 1 or a window
 * < 1 ms.
 */
export function gcraParams(limit: number, windowMs: number): GcraParams {
  if (!(Number.isSafeInteger(limit) && limit >= 1) || !(Number.isSafeInteger(windowMs) && windowMs >= 1)) {
    throw new RangeError('rate limit needs limit >= 1 and windowMs >= 1 (integers)');
  }
  return { intervalUs: Math.ceil((windowMs * 1000) / limit), limit };
}

/** ⌊a / b⌋ for non-negative integers below 2⁵³, exact even where the division rounds. */
function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q -= 1;
  if ((q + 1) * b <= a) q += 1;
  return q;
}

/**
 * Asks for `n` requests at `nowUs` on a credential whose TAT is `tatUs` (undefined: never seen
 * or expired). Request i (1-based) of the n is allowed iff TAT + i·interval − now ≤ limit·interval.
 * Pure; mirrors `GCRA_LUA` step for step.
 */
export function gcra(tatUs: number | undefined, nowUs: number, n: number, p: GcraParams): GcraResult {
  const span = p.intervalUs * p.limit;
  let tat = tatUs === undefined || tatUs < nowUs ? nowUs : tatUs;
  // A TAT beyond now + span (the limit was lowered) leaves no room at all.
  const room = nowUs + span - tat;
  const allowed = room >= p.intervalUs ? Math.min(n, floorDiv(room, p.intervalUs)) : 0;
  tat += allowed * p.intervalUs;
  return { allowed, tatUs: tat, waitUs: Math.max(0, tat + p.intervalUs - span - nowUs) };
}

/**
 * Whole seconds until a request would be allowed, at least 1: the `N` of `429 Request was
 * throttled. Expected available in N seconds.` and of `Retry-After` (docs/api.md "Conventions").
 */
export function retryAfterSeconds(waitUs: number): number {
  return Math.max(1, Math.ceil(waitUs / 1_000_000));
}

/**
 * `GCRA_LUA` for many credentials in one call: KEYS are the credentials' keys; ARGV is
 * intervalUs, limit, nowUs ('' = the Redis server's clock, shared by every API process), then
 * one n per key. Answers a flat array: allowed₁, waitUs₁, allowed₂, waitUs₂, … Each key holds
 * its TAT (integer µs as text) and expires when the budget is full again, so an idle credential
 * costs nothing. Every number stays an integer below 2⁵³, exact in Lua's doubles; the floor of
 * a division is corrected by one where rounding could have moved it.
 */
export const GCRA_LUA = `
local interval = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local now
if ARGV[3] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[3])
end
local span = interval * limit
local out = {}
for i, key in ipairs(KEYS) do
  local n = tonumber(ARGV[3 + i])
  local tat = tonumber(redis.call('GET', key) or '0') or 0
  if tat < now then tat = now end
  local room = now + span - tat
  local allowed = 0
  if room >= interval then
    allowed = math.floor(room / interval)
    if allowed * interval > room then allowed = allowed - 1 end
    if (allowed + 1) * interval <= room then allowed = allowed + 1 end
    if allowed > n then allowed = n end
  end
  if allowed > 0 then
    tat = tat + allowed * interval
    redis.call('SET', key, string.format('%.0f', tat), 'PX', string.format('%.0f', math.ceil((tat - now) / 1000) + 1))
  end
  local wait = tat + interval - span - now
  if wait < 0 then wait = 0 end
  out[2 * i - 1] = allowed
  out[2 * i] = wait
end
return out
`;
