/**
 * The failed-authentication limit of docs/behaviour.md "Failed authentications" across two API processes (this test's hrx and
 * a second `hrx serve` child on the same database and Redis): failures counted on one process
 * throttle the next attempt on the other at once, per source and per presented key; and an API
 * key that succeeds costs no Redis call of the failure limit (each process keeps a copy of the
 * locks, src/ratelimit/auth-failure-locks.ts), counted with MONITOR.
 *
 * Sources are told apart with `X-Forwarded-For` (HRX_TRUST_PROXY=1 on both processes).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, plain, type Res } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startSecondApi, startTestApp, waitFor, type SecondApi, type TestApp } from '../../support/harness';
import { monitorScripts, type ScriptMonitor } from '../../support/redis-monitor';

let app: TestApp;
let second: SecondApi;
let v: Awaited<ReturnType<typeof f.vendor>>;
let mon: ScriptMonitor;

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_TRUST_PROXY: '1' } });
  second = await startSecondApi(app);
  v = await f.vendor(app.ctx);
  mon = await monitorScripts(`${app.config.HRX_REDIS_PREFIX}:authfail:`);
}, 90_000);
afterAll(async () => {
  mon?.close();
  await second?.stop();
  await app?.stop();
});

let n = 0;
const newSource = () => {
  n++;
  return `198.51.${100 + Math.floor(n / 250)}.${n % 250}`;
};
const orgDetails = (base: string, apiKey: string, source: string) =>
  call(`${base}/api/org_details/${v.org.uuid}/`, { headers: { authorization: apiKey, 'x-forwarded-for': source } });

function expectThrottled(res: Res): void {
  const seconds = Number(res.headers.get('retry-after'));
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expectError(res, 429, plain(`Request was throttled. Expected available in ${seconds} seconds.`));
}

/** Failure-limit script calls made by `fn`. */
async function callsOf(fn: () => Promise<unknown>): Promise<number> {
  await mon.reset();
  await fn();
  return mon.count();
}

/** Waits until both processes hear the locks: a successful request then asks Redis nothing. */
async function bothListening(): Promise<void> {
  for (const base of [app.url, second.url]) {
    await waitFor(async () => (await callsOf(async () => expect((await orgDetails(base, v.apiKey, newSource())).status).toBe(200))) === 0, 20_000, 50);
  }
}

describe('failed authentications across two API processes', () => {
  it('successful API-key requests make no Redis call of the failure limit, on either process', async () => {
    await bothListening();
    const calls = await callsOf(async () => {
      const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => orgDetails(i % 2 ? second.url : app.url, v.apiKey, newSource())));
      expect(rs.map((r) => r.status)).toEqual(Array(20).fill(200));
    });
    expect(calls).toBe(0);
  });

  it('per source: 20 wrong keys on one process, then the right key from that source is 429 on the other at once', async () => {
    await bothListening();
    const src = newSource();
    for (let i = 0; i < 20; i++) expect((await orgDetails(app.url, `hrx_${randomBytes(24).toString('base64url')}`, src)).status).toBe(401);
    expectThrottled(await orgDetails(second.url, v.apiKey, src));
    expectThrottled(await orgDetails(app.url, v.apiKey, src));
    expect((await orgDetails(second.url, v.apiKey, newSource())).status).toBe(200);
  });

  it('per key: one wrong key tried from 20 sources on the second process is throttled on the first', async () => {
    await bothListening();
    const guess = `hrx_${randomBytes(24).toString('base64url')}`;
    for (let i = 0; i < 20; i++) expect((await orgDetails(second.url, guess, newSource())).status).toBe(401);
    expectThrottled(await orgDetails(app.url, guess, newSource()));
  });
});
