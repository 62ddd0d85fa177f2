/**
 * The tenant budget's guarantee as a property (ratelimit/hrms-budget.ts, docs/behaviour.md "Live
 * reads and the HRMS budget"): whatever the timing, no window of the product's length ever holds
 * more arrivals at the HRMS than its limit. The real scripts run on real Redis under a simulated
 * clock (their `now` argument), driven by a discrete-event simulation of several workers whose
 * requests reach the HRMS late after their take (a busy event loop: up to three windows), take
 * long to be answered, fail and are retried (a new take each), are throttled (a tenant-wide hold),
 * come from live reads under a lower cap, or never report done (a worker that died). Each trial
 * is seeded, so a failure names a trial that replays.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createHrmsBudgets } from '../../../src/ratelimit/hrms-budget';
import { REDIS_URL } from '../../support/harness';

const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
createHrmsBudgets({ redis, prefix: 'unused' }); // defines the scripts on this connection
const prefix = `hrxtest:budget-window:${randomBytes(4).toString('hex')}`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** Mulberry32: a small seeded generator, so a trial replays. */
function rng(seed: number): (lo: number, hi: number) => number {
  let a = seed >>> 0;
  return (lo, hi) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return lo + Math.floor(u * (hi - lo + 1));
  };
}

/** The most instants of `times` within any half-open window `[t, t + windowMs)`. */
function maxInWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j]! - t[i]! >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

/** One simulated tenant: returns the instants its requests reached the HRMS. */
async function trial(seed: number): Promise<{ arrivals: number[]; limit: number; windowMs: number }> {
  const r = rng(seed);
  const limit = r(2, 12);
  const windowMs = r(500, 5000);
  const inFlightMs = 10 * windowMs;
  const log = `${prefix}:${seed}`;
  const hold = `${log}:hold`;
  const events: { at: number; seq: number; run: (now: number) => Promise<void> }[] = [];
  let seq = 0;
  const at = (t: number, run: (now: number) => Promise<void>): void => {
    events.push({ at: t, seq: seq++, run });
  };
  const arrivals: number[] = [];

  /** A worker asking for `left` requests; a live read's cap is half the limit. */
  const worker = (id: number, left: number, cap: number) => {
    const attempt = async (now: number): Promise<void> => {
      if (left === 0) return;
      const member = `${id}:${left}:${now}:${seq}`;
      const wait = Number(await redis.hrxBudgetTake(log, hold, cap, windowMs, member, inFlightMs, now));
      // Waiters poll at most every second of the window's scale, with jitter.
      if (wait > 0) return at(now + Math.min(wait, r(1, windowMs)) + r(0, 25), attempt);
      // Sent late (up to three windows), answered after up to a window, reported done a little later.
      const arrive = now + (r(0, 9) === 0 ? r(windowMs, 3 * windowMs) : r(0, 50));
      const answered = arrive + r(0, windowMs);
      at(arrive, (t) => {
        arrivals.push(t);
        return Promise.resolve();
      });
      const outcome = r(0, 19); // 0: throttled (hold), 1-2: failed (retried), 3: the worker died mid-request
      if (outcome !== 3) at(answered + r(0, 200), (t) => redis.hrxBudgetDone(log, member, t).then(() => undefined));
      if (outcome === 0) at(answered, (t) => redis.hrxBudgetHold(hold, r(1, windowMs), t).then(() => undefined));
      if (outcome !== 1 && outcome !== 2) left--;
      at(answered + (outcome === 1 || outcome === 2 ? r(0, 500) : 0), attempt);
    };
    at(r(0, windowMs), attempt);
  };
  const workers = r(1, 5);
  for (let w = 0; w < workers; w++) worker(w, r(5, 30), r(0, 3) === 0 ? Math.max(1, Math.floor(limit / 2)) : limit);
  // Events run in time order, one at a time (each awaits its script), so the run replays.
  while (events.length) {
    events.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = events.shift()!;
    await next.run(next.at);
  }
  return { arrivals, limit, windowMs };
}

describe('the tenant budget over simulated clocks', () => {
  it('no window of the limit’s length ever holds more arrivals than the limit: late sends, retries, holds, live reads, dead workers', async () => {
    let total = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { arrivals, limit, windowMs } = await trial(seed);
      total += arrivals.length;
      expect({ seed, max: maxInWindow(arrivals, windowMs) <= limit ? 'within' : maxInWindow(arrivals, windowMs), limit }).toEqual({
        seed,
        max: 'within',
        limit,
      });
    }
    // The trials did make requests (thousands, most waiting for the budget).
    expect(total).toBeGreaterThan(1000);
  }, 120_000);
});
