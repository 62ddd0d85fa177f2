/**
 * Live reads (`GET /api/employee_details/{id}?source=hrms`) spend the HRMS tenant's request
 * budget, the one the syncs take from (docs/behaviour.md "Live reads and the HRMS budget"): a
 * vendor with live reads cannot spend Keka's 50 requests a minute. Live reads take at most 40 of
 * them (a fifth is kept for syncs); the read that finds no room within HRX_HRMS_LIVE_WAIT_MS is
 * `503 Service temporarily unavailable` with `Retry-After`, before the HRMS is asked; a sync
 * running meanwhile still completes. Counted at the Keka simulator itself; real Redis and
 * PostgreSQL. Each test uses a simulator of its own (one tenant, one budget) within one minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JSONWebKeySet } from 'jose';
import { buildEncryptedRequest } from '../../../src/crypto/jose/client';
import { DIALECT_SIMS } from '../../../src/hrms/sim/dialects';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { storesOf } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const KEKA = { requests: 50, windowMs: 60_000 };
/** Keka's 50 less the fifth kept for syncs. */
const LIVE = 40;
const WAIT_MS = 1500;

let app: TestApp;
const sims: DialectSim[] = [];
let v: Awaited<ReturnType<typeof f.vendor>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '20', HRX_HRMS_LIVE_WAIT_MS: String(WAIT_MS) } });
  v = await f.vendor(app.ctx);
});
afterAll(async () => {
  for (const s of sims) await s.close();
  await app?.stop();
});

/** A client org on a Keka simulator of its own, with a live-source connection to the vendor. */
async function liveOrg(seed: string) {
  const sim = await DIALECT_SIMS.get('keka')!({ employees: 30, seed, variants: { payHistoryMonths: 0 } }); // no pay months: the backfill's use of the budget has its own suites
  sims.push(sim);
  const c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true, consentRequired: false });
  await app.ctx.syncQueue.queue.drain(true); // the approval's sync: this test runs its own
  const setup = sim.setup();
  await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId: 'keka', credentials: setup.access_credentials, apiConfigs: setup.api_configs });
  sim.resetStats();
  return { sim, c, ids: sim.employeeIds() };
}

const read = (org: string, id: string) =>
  call(`${app.url}/api/employee_details/${id}?org=${org}&vendor_org=${v.org.uuid}&source=hrms`, { headers: { username: v.apiKey } });

/** Live reads one after the other until one is refused (at most `max`): the 200s, the refusal and how long it took. */
async function readUntilRefused(org: string, ids: string[], max = 60) {
  let ok = 0;
  for (let i = 0; i < max; i++) {
    const started = Date.now();
    const res = await read(org, ids[i % ids.length]!);
    if (res.status !== 200) return { ok, refused: res, ms: Date.now() - started };
    ok += 1;
  }
  throw new Error(`${max} live reads and none refused`);
}

describe('live reads within the HRMS tenant budget', () => {
  it('N+1 live reads in one window: the HRMS gets at most the live part of its budget, the next read is 503 with Retry-After', async () => {
    const { sim, c, ids } = await liveOrg('live-budget-reads');
    const { ok, refused, ms } = await readUntilRefused(c.org.uuid, ids);
    const stats = sim.stats();
    // Every request the HRMS saw (token and reads) came out of the budget, and no more than the live part.
    expect(stats.requests).toBe(LIVE);
    // A Keka lookup is one request per listing it tries (active, then inactive employees).
    expect(ok).toBeGreaterThanOrEqual((LIVE - stats.tokenRequests) / 2);
    expect(ok).toBeLessThanOrEqual(LIVE - stats.tokenRequests);
    expect(stats).toMatchObject({ throttled: 0, authFailures: 0 });
    expect(stats.maxInWindow).toBeLessThanOrEqual(LIVE);
    expectError(refused, 503, plain('Service temporarily unavailable'));
    const retryAfter = Number(refused.headers.get('retry-after'));
    // The oldest of the window's requests leaves it about a minute (plus the budget's margin) after it was made.
    expect(retryAfter).toBeGreaterThanOrEqual(50);
    expect(retryAfter).toBeLessThanOrEqual(62);
    // The wait for room is longer than the read may wait: refused at once, not after waiting.
    expect(ms).toBeLessThan(WAIT_MS);
    // Refused before the HRMS was asked.
    expect(sim.stats().requests).toBe(LIVE);
  });

  it('a sync running meanwhile completes within the same budget, live reads never take its part', async () => {
    const { sim, c, ids } = await liveOrg('live-budget-sync');
    const sync = app.ctx.services.sync.run(c.org.id, 'test', 'live-budget-sync');
    const reads = readUntilRefused(c.org.uuid, ids);
    const [outcome, { ok, refused }] = await Promise.all([sync, reads]);
    expect(outcome).toMatchObject({ status: 'succeeded', employees: 30 });
    expectError(refused, 503, plain('Service temporarily unavailable'));
    expect(ok).toBeGreaterThan(0);
    const stats = sim.stats();
    expect(stats).toMatchObject({ throttled: 0, authFailures: 0 });
    expect(stats.maxInWindow).toBeLessThanOrEqual(KEKA.requests);
    // The reads stopped at the live part of the budget, counting the sync's requests too.
    expect(stats.requests).toBeLessThanOrEqual(KEKA.requests);
    expect(ok).toBeLessThanOrEqual(LIVE);
    // The budget is full for live reads now, and a sync still gets through (its fifth of the window).
    expect((await read(c.org.uuid, ids[0]!)).status).toBe(503);
    expect(await app.ctx.services.sync.run(c.org.id, 'test', 'live-budget-sync-2')).toMatchObject({ status: 'succeeded', employees: 30 });
    expect(sim.stats().maxInWindow).toBeLessThanOrEqual(KEKA.requests);
    expect(sim.stats().throttled).toBe(0);
  }, 120_000);

  it("an HRMS still throttling after the read's retry: 503 with its Retry-After, not a 500", async () => {
    const creds = { clientId: 'live-429-client', clientSecret: 'live-429-secret' };
    const sim = await startSim({ employees: 5, seed: 'live-429', ...creds });
    try {
      const c = await f.client(app.ctx);
      await f.connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true, consentRequired: false });
      await f.hrmsAt(app.ctx, c.org.id, sim, creds);
      sim.control.set({ rate429: 1, retryAfterSec: 1 });
      const res = await read(c.org.uuid, 'EMP00001');
      expectError(res, 503, plain('Service temporarily unavailable'));
      expect(res.headers.get('retry-after')).toBe('1');
      // The read and its one retry (after the HRMS's Retry-After, held off for every worker too).
      expect(sim.control.stats().served429).toBe(2);
      sim.control.set({ rate429: 0 });
      await new Promise((r) => setTimeout(r, 1100)); // the hold-off the 429 set
      expect((await read(c.org.uuid, 'EMP00001')).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

describe('V2 live reads within the same budget', () => {
  it('POST /api/external/employee/ with source hrms: 503 with Retry-After once the live part of the budget is spent', async () => {
    const { sim, c, ids } = await liveOrg('live-budget-v2');
    const v2 = await f.v2Vendor(app.ctx);
    const conn = await f.connection(app.ctx, v2.org.uuid, c.org.uuid, { liveSource: true, consentRequired: false });
    const jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
    const v2Read = async (employeeId: string) =>
      call(`${app.url}/api/external/employee/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: v2.authorization },
        body: JSON.stringify({
          encrypted_payload: await buildEncryptedRequest({
            connectionId: conn.id,
            employeeId,
            source: 'hrms',
            vendorPrivateKey: v2.privateKey,
            vendorKid: v2.kid,
            servicePublicJwk: jwks.keys.find((k) => k.use === 'enc')!,
          }),
        }),
      });
    expect((await v2Read(ids[0]!)).status).toBe(200);
    await readUntilRefused(c.org.uuid, ids);
    const before = sim.stats().requests;
    const res = await v2Read(ids[1]!);
    expectError(res, 503, plain('Service temporarily unavailable'));
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(sim.stats().requests).toBe(before);
    expect(sim.stats().requests).toBeLessThanOrEqual(LIVE);
  });
});
