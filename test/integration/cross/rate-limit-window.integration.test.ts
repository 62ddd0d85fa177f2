/**
 * Rate limits over time (docs/limits.md "Rate limits", `HRX_RATE_LIMIT_WINDOW_MS`): with 3 requests per 3 s
 * window, a throttled key gets a request again after `Retry-After` and its whole budget again
 * after a window without requests; `HRX_RATE_LIMIT_PER_MINUTE=0` disables the limit.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, plain, type Res } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, REDIS_URL, startTestApp } from '../../support/harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An app with a vendor reading one employee of its connected client; `read()` makes one read. */
async function seeded(env: Record<string, string>) {
  const app = await startTestApp({ worker: false, env });
  const v = await f.vendor(app.ctx);
  const c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await f.employees(app.ctx, c.org.id, [{ employeeId: 'EMP00001' }]);
  const read = () => call(`${app.url}/api/employee_details/EMP00001?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
  return { app, read };
}

const burst = (n: number, read: () => Promise<Res>) => Promise.all(Array.from({ length: n }, read));
const statuses = (rs: Res[]) => rs.map((r) => r.status).sort();

let short: Awaited<ReturnType<typeof seeded>>;
let off: Awaited<ReturnType<typeof seeded>>;
beforeAll(async () => {
  [short, off] = await Promise.all([
    seeded({ HRX_RATE_LIMIT_PER_MINUTE: '3', HRX_RATE_LIMIT_WINDOW_MS: '3000' }),
    seeded({ HRX_RATE_LIMIT_PER_MINUTE: '0', HRX_RATE_LIMIT_WINDOW_MS: '3000' }),
  ]);
});
afterAll(async () => {
  await Promise.all([short?.app.stop(), off?.app.stop()]);
});

describe('HRX_RATE_LIMIT_WINDOW_MS', () => {
  it('allowed again after Retry-After, and the whole budget again after a window', async () => {
    expect(statuses(await burst(4, short.read))).toEqual([200, 200, 200, 429]);
    const throttled = await short.read();
    // One request per second (3 s / 3) refills: the next one is at most 1 s away.
    expect(throttled.headers.get('retry-after')).toBe('1');
    expectError(throttled, 429, plain('Request was throttled. Expected available in 1 seconds.'));
    await sleep(1000);
    expect((await short.read()).status).toBe(200);
    // A whole window without requests: the whole budget, and not more (no 2× burst).
    await sleep(3000);
    expect(statuses(await burst(5, short.read))).toEqual([200, 200, 200, 429, 429]);
  });
});

describe('HRX_RATE_LIMIT_PER_MINUTE=0', () => {
  it('disables the limit: 700 reads of one key (more than the default 600) all answered, nothing counted in Redis', async () => {
    const results: Res[] = [];
    for (let i = 0; i < 7; i++) results.push(...(await burst(100, off.read)));
    expect(statuses(results)).toEqual(Array(700).fill(200));
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.keys(`${off.app.config.HRX_REDIS_PREFIX}:ratelimit:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
