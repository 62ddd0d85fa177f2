/**
 * A large Keka tenant's listing through the real tenant budget (ratelimit/hrms-budget.ts on real
 * Redis, docs/behaviour.md "Live reads and the HRMS budget") against the Keka simulator, which
 * counts the requests of every sliding window (`maxInWindow`). Two orgs of the tenant list at
 * once and many requests leave late after their take (as when a worker's event loop is busy with
 * the previous page): no sliding window ever holds more than the limit, and Keka never throttles.
 * The limit is scaled down (10 a second for Keka's 50 a minute) so the run takes seconds.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestBudget } from '../../../src/hrms/connector';
import { createKekaConnector } from '../../../src/hrms/keka/connector';
import { KekaSim } from '../../../src/hrms/keka/sim/server';
import { createHrmsBudgets } from '../../../src/ratelimit/hrms-budget';
import { expectSameEmployees, listAll } from '../../support/dialect';
import { REDIS_URL } from '../../support/harness';

const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const prefix = `hrxtest:keka-window:${randomBytes(4).toString('hex')}`;
let sim: KekaSim | undefined;
afterAll(async () => {
  await sim?.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** `inner`, with one request in three leaving up to 400 ms after its take. */
function lateSends(inner: RequestBudget): RequestBudget {
  let n = 0;
  return {
    async take(signal) {
      const done = await inner.take(signal);
      if (n++ % 3 === 0) await sleep(50 + ((n * 137) % 350));
      return done;
    },
    holdOff: (ms) => inner.holdOff(ms),
  };
}

describe('a large Keka tenant through the tenant budget', () => {
  it('two orgs listing at once, sends late after their takes: no sliding window over the limit, never throttled', async () => {
    const limit = { requests: 10, windowMs: 1000 };
    sim = await new KekaSim({ employees: 600, seed: 'keka-window', variants: { limit: limit.requests, windowMs: limit.windowMs } }).listen();
    const budgets = createHrmsBudgets({ redis, prefix, marginMs: 0, pollMs: 50 });
    const setup = sim.setup();
    const listing = () =>
      listAll(
        createKekaConnector(
          { credentials: setup.access_credentials, apiConfigs: setup.api_configs },
          {
            retries: 8,
            minRetryDelayMs: 5,
            maxRetryDelayMs: 2_000,
            timeoutMs: 5_000,
            pageSize: 20,
            budget: lateSends(budgets.budgetFor('keka', sim!.url, limit)),
          },
        ),
      );
    sim.resetStats();
    const [a, b] = await Promise.all([listing(), listing()]);
    expectSameEmployees(a.employees, sim.expected());
    expectSameEmployees(b.employees, sim.expected());
    const stats = sim.stats();
    expect(stats.requests).toBeGreaterThan(5 * limit.requests);
    expect(stats.maxInWindow).toBeLessThanOrEqual(limit.requests);
    expect(stats.throttled).toBe(0);
  }, 120_000);
});
