/**
 * Rate limits over HTTP (docs/limits.md "Rate limits", docs/api.md "Conventions"'s THROTTLED row): 50 requests per credential per
 * day here (one more every 1,728 s, so nothing refills while a test runs, however loaded the
 * machine: with an hour, a run on a loaded machine once answered 51 of 200 concurrent reads), counted per API key
 * (both header forms) and per V2 Basic username, shared by this test's hrx and a second
 * `hrx serve` child process; the 51st is `429 Request was throttled. Expected available in N
 * seconds.` with `Retry-After: N`. Unauthenticated and failed requests are not counted.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, plain, type Res } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, REDIS_URL, startSecondApi, startTestApp, type SecondApi, type TestApp } from '../../support/harness';

const LIMIT = 50;
const INTERVAL_SEC = 1728; // 86,400 s / 50

let app: TestApp;
let client: Awaited<ReturnType<typeof f.client>>;
let second: SecondApi | undefined;
const secrets: string[] = [];

/** A vendor with its own API key, connected to the client. */
async function freshVendor() {
  const v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, client.org.uuid);
  secrets.push(v.apiKey);
  return v;
}

const read = (base: string, v: { apiKey: string; org: { uuid: string } }) =>
  call(`${base}/api/employee_details/EMP00001?org=${client.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });

const statuses = (rs: Res[]) => rs.map((r) => r.status).sort();
const count = (rs: Res[], status: number) => rs.filter((r) => r.status === status).length;

/** Asserts the exact 429 of docs/api.md "Conventions"; returns its N. */
function expectThrottled(res: Res): number {
  const n = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(n) && n >= 1).toBe(true);
  expectError(res, 429, plain(`Request was throttled. Expected available in ${n} seconds.`));
  return n;
}

async function rateLimitKeys(): Promise<string[]> {
  const redis = new Redis(REDIS_URL);
  try {
    return (await redis.keys(`${app.config.HRX_REDIS_PREFIX}:ratelimit:*`)).sort();
  } finally {
    redis.disconnect();
  }
}

beforeAll(async () => {
  // Failed authentications have their own limit (auth-failures.integration.test.ts); off here,
  // where hundreds of invalid credentials check that they leave the per-key budget alone.
  app = await startTestApp({
    worker: false,
    env: { HRX_RATE_LIMIT_PER_MINUTE: String(LIMIT), HRX_RATE_LIMIT_WINDOW_MS: '86400000', HRX_AUTH_FAILURE_LIMIT: '0' },
  });
  client = await f.client(app.ctx);
  await f.employees(app.ctx, client.org.id, [{ employeeId: 'EMP00001', name: 'Meera Iyer' }]);
  second = await startSecondApi(app);
});
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

describe('per API key', () => {
  it('the 51st request is 429 with the exact body, Retry-After = N and X-Request-Id; other keys are unaffected', async () => {
    const v = await freshVendor();
    const other = await freshVendor();
    const t0 = Date.now();
    const first = await Promise.all(Array.from({ length: LIMIT }, () => read(app.url, v)));
    expect(statuses(first)).toEqual(Array(LIMIT).fill(200));
    const res = await read(app.url, v);
    const elapsedSec = Math.ceil((Date.now() - t0) / 1000);
    const n = expectThrottled(res);
    expect(res.headers.get('retry-after')).toBe(String(n));
    // N = whole seconds until one interval after the burst: 1,728 s less the time the test took.
    expect(n).toBeLessThanOrEqual(INTERVAL_SEC);
    expect(n).toBeGreaterThanOrEqual(INTERVAL_SEC - elapsedSec);
    // Another vendor's key has its own budget.
    expect((await read(app.url, other)).status).toBe(200);
  });

  it('one budget per key whichever header carries it; throttled before the body is read', async () => {
    const v = await freshVendor();
    const half = await Promise.all(Array.from({ length: LIMIT / 2 }, () => read(app.url, v)));
    const orgDetails = await Promise.all(
      Array.from({ length: LIMIT / 2 }, () => call(`${app.url}/api/org_details/${v.org.uuid}/`, { headers: { authorization: `Bearer ${v.apiKey}` } })),
    );
    expect(statuses([...half, ...orgDetails])).toEqual(Array(LIMIT).fill(200));
    expectThrottled(await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey } }));
    // A malformed body would be 400; the throttle answers first.
    expectThrottled(
      await call(`${app.url}/api/v1/employee/consent-data/`, {
        method: 'POST',
        headers: { authorization: v.apiKey, 'content-type': 'application/json' },
        body: '{"not json',
      }),
    );
    expectThrottled(await read(app.url, v));
  });

  it('200 concurrent requests with a limit of 50: exactly 50 answered, 150 throttled', async () => {
    const v = await freshVendor();
    const results = await Promise.all(Array.from({ length: 200 }, () => read(app.url, v)));
    expect([count(results, 200), count(results, 429)]).toEqual([LIMIT, 200 - LIMIT]);
    for (const r of results.filter((x) => x.status === 429)) expectThrottled(r);
  });

  it('two API processes share one budget: 200 concurrent requests split over both, exactly 50 answered', async () => {
    const v = await freshVendor();
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => read(i % 2 ? second!.url : app.url, v)));
    expect([count(results, 200), count(results, 429)]).toEqual([LIMIT, 200 - LIMIT]);
    for (const r of results.filter((x) => x.status === 429)) expectThrottled(r);
    // Spent on both.
    expectThrottled(await read(app.url, v));
    expectThrottled(await read(second!.url, v));
  });
});

describe('per V2 Basic credential', () => {
  it("counts authenticated V2 requests per Basic username, apart from the org's API key", async () => {
    const v = await f.v2Vendor(app.ctx);
    await f.connection(app.ctx, v.org.uuid, client.org.uuid);
    secrets.push(v.apiKey, v.username, v.password, v.authorization);
    const post = () =>
      call(`${app.url}/api/external/employee/`, {
        method: 'POST',
        headers: { authorization: v.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ encrypted_payload: 'a.b.c.d.e' }),
      });
    // Authenticated but refused requests count too: the credential was used.
    const refused = await Promise.all(Array.from({ length: LIMIT }, post));
    expect(statuses(refused)).toEqual(Array(LIMIT).fill(400));
    expectThrottled(await post());
    // A wrong password is a failed authentication: 401, not 429.
    const wrong = `Basic ${Buffer.from(`${v.username}:not-the-password`).toString('base64')}`;
    expectError(
      await call(`${app.url}/api/external/employee/`, {
        method: 'POST',
        headers: { authorization: wrong, 'content-type': 'application/json' },
        body: '{"encrypted_payload":"a.b.c.d.e"}',
      }),
      401,
      plain('Invalid token.'),
    );
    expect((await read(app.url, v)).status).toBe(200);
  });
});

describe('what is not counted', () => {
  it('unauthenticated routes, missing and invalid credentials leave no count; keys name credential ids, never secrets', async () => {
    const v = await freshVendor();
    const before = await rateLimitKeys();
    const noise = await Promise.all([
      ...Array.from({ length: 60 }, () => call(`${app.url}/healthz`)),
      ...Array.from({ length: 60 }, () => call(`${app.url}/.well-known/jwks.json`)),
      ...Array.from({ length: 60 }, () => call(`${app.url}/api/employee_details/EMP00001?org=${client.org.uuid}&vendor_org=${v.org.uuid}`)),
      ...Array.from({ length: 60 }, () => read(app.url, { ...v, apiKey: `${v.apiKey}x` })),
      ...Array.from({ length: 60 }, () => call(`${app.url}/api/vendor/connections/`, { headers: { authorization: 'hrx_unknown' } })),
    ]);
    expect([count(noise, 200), count(noise, 401), count(noise, 429)]).toEqual([120, 180, 0]);
    expect(await rateLimitKeys()).toEqual(before);
    // The key's whole budget is still there.
    const mine = await Promise.all(Array.from({ length: LIMIT + 1 }, () => read(app.url, v)));
    expect([count(mine, 200), count(mine, 429)]).toEqual([LIMIT, 1]);
    const keys = await rateLimitKeys();
    expect(keys.length).toBe(before.length + 1);
    const prefix = `${app.config.HRX_REDIS_PREFIX}:ratelimit:`;
    for (const k of keys) expect(k).toMatch(new RegExp(`^${prefix}\\{ratelimit:\\d+\\}:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`));
    for (const s of secrets) expect(keys.join('\n')).not.toContain(s);
  });
});
