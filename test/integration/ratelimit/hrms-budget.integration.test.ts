/**
 * The shared request budget of an HRMS tenant (ratelimit/hrms-budget.ts, docs/behaviour.md "Live reads and the HRMS budget") on real
 * Redis: two connections stand for two worker processes syncing two orgs of one tenant. Whatever
 * the interleaving, no window of the limit's length holds more requests than the limit; a
 * hold-off pauses every worker; another tenant's budget is its own.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BudgetWaitExceeded, liveReadLimit } from '../../../src/hrms/live-source';
import { createHrmsBudgets } from '../../../src/ratelimit/hrms-budget';
import { REDIS_URL } from '../../support/harness';

const opened: Redis[] = [];
const connect = () => {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  opened.push(r);
  return r;
};
const prefix = `hrxtest:budget:${randomBytes(4).toString('hex')}`;
afterAll(async () => {
  const keys = await opened[0]!.keys(`${prefix}:*`);
  if (keys.length) await opened[0]!.del(...keys);
  for (const r of opened) r.disconnect();
});

/** One request through `budget`, answered at once: its slot counts from its answer (ratelimit/hrms-budget.ts). */
async function answered(budget: { take(): Promise<(() => Promise<void>) | void> }): Promise<void> {
  const done = await budget.take();
  await done?.();
}

/** The most instants of `times` (ms) within any window of `windowMs`. */
function maxInWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j]! - t[i]! >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

describe('one tenant, two workers', () => {
  const limit = { requests: 10, windowMs: 1000 };
  const worker = () => createHrmsBudgets({ redis: connect(), prefix, marginMs: 50, pollMs: 100 });

  it('never lets more than the limit through in any window, and lets all through in the end', async () => {
    const [a, b] = [worker(), worker()];
    const tenant = 'https://acme.keka.com';
    const granted: number[] = [];
    const run = async (budget: ReturnType<typeof a.budgetFor>, n: number) => {
      for (let i = 0; i < n; i++) {
        await answered(budget);
        granted.push(Date.now());
      }
    };
    const started = Date.now();
    await Promise.all([run(a.budgetFor('keka', tenant, limit), 15), run(b.budgetFor('keka', tenant, limit), 15)]);
    expect(granted).toHaveLength(30);
    // 30 requests at 10 a second: at least two full windows were waited.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(maxInWindow(granted, 1000)).toBeLessThanOrEqual(10);
  });

  it('a hold-off set by one worker pauses the other; another tenant is not paused', async () => {
    const [a, b] = [worker(), worker()];
    const tenant = 'https://other.keka.com';
    await a.budgetFor('keka', tenant, limit).holdOff(600);
    const t0 = Date.now();
    const elsewhere = b
      .budgetFor('keka', 'https://third.keka.com', limit)
      .take()
      .then(() => Date.now() - t0);
    await b.budgetFor('keka', tenant, limit).take();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(await elsewhere).toBeLessThan(400);
  });

  it('a waiting take gives up when its signal aborts', async () => {
    const budget = worker().budgetFor('keka', 'https://held.keka.com', limit);
    await budget.holdOff(10_000);
    const aborted = await budget.take(AbortSignal.timeout(200)).then(
      () => 'taken',
      (err: Error) => err.name,
    );
    expect(aborted).toMatch(/AbortError|TimeoutError/);
  });

  it('keys hold neither the tenant host nor anything but counts', async () => {
    const keys = await opened[0]!.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toContain('keka.com');
  });
});

describe('live reads on a tenant budget (docs/behaviour.md "Live reads and the HRMS budget")', () => {
  const limit = { requests: 10, windowMs: 1000 };
  const worker = () => createHrmsBudgets({ redis: connect(), prefix, marginMs: 50, pollMs: 100 });

  it('live reads stop at four fifths of the window, refused at once past their wait; a sync still takes the last fifth', async () => {
    const [api, sync] = [worker(), worker()];
    const tenant = 'https://live.keka.com';
    expect(liveReadLimit(limit)).toEqual({ requests: 8, windowMs: 1000 });
    const live = api.budgetFor('keka', tenant, liveReadLimit(limit), { maxWaitMs: 200 });
    for (let i = 0; i < 8; i++) await answered(live);
    const t0 = Date.now();
    const refused = await live.take().then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(BudgetWaitExceeded);
    // The wait named is until the oldest request leaves the window (1000 + 50 ms margin).
    expect((refused as BudgetWaitExceeded).retryAfterMs).toBeGreaterThan(200);
    expect((refused as BudgetWaitExceeded).retryAfterMs).toBeLessThanOrEqual(1051);
    expect(Date.now() - t0).toBeLessThan(150);
    // The sync's budget of the same tenant: its two requests are there at once.
    const s0 = Date.now();
    const full = sync.budgetFor('keka', tenant, limit);
    await answered(full);
    await answered(full);
    expect(Date.now() - s0).toBeLessThan(150);
    // Now the window is full: live reads name the wait until enough requests leave for their cap.
    const again = await live.take().then(
      () => null,
      (err: unknown) => err,
    );
    expect(again).toBeInstanceOf(BudgetWaitExceeded);
  });

  it('a live read waits for room when it comes within its wait', async () => {
    const budget = worker().budgetFor('keka', 'https://soon.keka.com', { requests: 1, windowMs: 300 }, { maxWaitMs: 1000 });
    await answered(budget);
    const t0 = Date.now();
    await answered(budget);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('with Redis away, a live read is refused at once (never let through uncounted, never left polling)', async () => {
    const away = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    opened.push(away);
    const budget = createHrmsBudgets({ redis: away, prefix, pollMs: 1000 }).budgetFor('keka', 'https://away.keka.com', limit, { maxWaitMs: 3000 });
    const t0 = Date.now();
    const err = await budget.take().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BudgetWaitExceeded);
    expect(Date.now() - t0).toBeLessThan(500);
  });
});
