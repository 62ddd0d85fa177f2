/**
 * A throttled pay history backfill waits within the tenant's budget (docs/behaviour.md "Waiting
 * is not stalling", docs/sync.md "Pay history"), end to end: a client org's first full sync of a
 * Keka tenant (the Keka simulator, through a proxy that notes every call hrx makes) whose window
 * another client of the same Keka account spends the moment hrx asks for its first pay register.
 * The register's 429s (with `Retry-After`) hold the tenant's budget off; the wait is longer than
 * the stall limit (2 s here), yet the run succeeds with every month. The calls hrx made are those
 * of the same sync without pay history, plus exactly the payroll calls the months need, plus one
 * repeat per 429, and never more than Keka's 50 in any sliding 60 s.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KekaSim } from '../../../src/hrms/keka/sim/server';
import * as f from '../../support/factories';
import { dbQuery, storesOf } from '../../support/db';
import { startTestApp, type TestApp } from '../../support/harness';
import { maxInAnyWindow, spendWindow } from '../../support/dialect';

const EMPLOYEES = 10;
const WINDOW_MS = 6000;
const REGISTER = /\/payregister/;
const PAYROLL = /^\/api\/v1\/payroll\//;
let app: TestApp;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  // Pages of 10 (one register page a month), a 2 s stall limit, retries from 100 ms.
  app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '10', HRX_SYNC_HRMS_STALL_SEC: '2', HRX_HRMS_RETRY_MIN_MS: '100' } });
});
afterAll(async () => {
  for (const close of closers) await close();
  await app?.stop();
});

/** A proxy in front of `sim` noting each call of hrx (`at`, path, status); `onRegister` runs (awaited) before the first pay register call is forwarded. */
async function proxyOf(sim: KekaSim, onRegister: () => Promise<void>) {
  const target = new URL(sim.url);
  const calls: { at: number; path: string; status: number }[] = [];
  let registers = 0;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const at = Date.now();
    const forward = () => {
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (r) => {
          calls.push({ at, path, status: r.statusCode ?? 0 });
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (REGISTER.test(path) && ++registers === 1) void onRegister().then(forward);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

/** A client org of a Keka tenant (`payHistoryMonths` months of payroll) behind a proxy; returns the org, the simulator and the calls. */
async function kekaOrg(payHistoryMonths: number, onRegister: (sim: KekaSim) => Promise<void> = () => Promise.resolve()) {
  const sim = await new KekaSim({
    employees: EMPLOYEES,
    seed: 'pay-throttled',
    throttle: true,
    variants: { windowMs: WINDOW_MS, retryAfter: true, nextPage: 'relative', payHistoryMonths },
  }).listen();
  closers.push(() => sim.close());
  const proxy = await proxyOf(sim, () => onRegister(sim));
  const v = await f.vendor(app.ctx);
  const c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await app.ctx.syncQueue.queue.drain(true); // the approval's sync: this test runs its own
  const setup = JSON.parse(JSON.stringify(sim.setup()).replaceAll(sim.url, proxy.url)) as ReturnType<KekaSim['setup']>;
  await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId: 'keka', credentials: setup.access_credentials, apiConfigs: setup.api_configs });
  return { sim, orgId: c.org.id, calls: proxy.calls };
}

/** "Another client of the same Keka account": spends the simulator's whole window of 50. */
const spendKekaWindow = (sim: KekaSim): Promise<void> => spendWindow(`${sim.url}/api/v1/hris/employees`);

describe('a throttled pay history backfill', () => {
  it('waits out the pay register 429s within the budget, completes with every month, and calls only what the months need', async () => {
    // The same sync without pay history: its calls (none to payroll beyond finding no month).
    const plain = await kekaOrg(0);
    expect(await app.ctx.services.sync.run(plain.orgId, 'test', 'plain', { full: true })).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
    const withoutHistory = plain.calls.filter((c) => !PAYROLL.test(c.path));
    expect(plain.calls.every((c) => c.status === 200)).toBe(true);

    const t = await kekaOrg(36, spendKekaWindow);
    const truth = t.sim.expectedPayMonths(24);
    const months = new Set(truth.map((e) => `${e.month.year}-${e.month.month}`));
    expect(months.size).toBe(24);
    const started = Date.now();
    const outcome = await app.ctx.services.sync.run(t.orgId, 'test', 'throttled', { full: true });
    expect(outcome).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
    // It waited, longer than the stall limit, on the register's 429s.
    const throttled = t.calls.filter((c) => c.status === 429);
    expect(throttled.length).toBeGreaterThanOrEqual(1);
    expect(throttled.every((c) => REGISTER.test(c.path))).toBe(true);
    expect(Date.now() - started).toBeGreaterThan(2000);
    // Every month stored.
    expect((await dbQuery(app, `select count(*)::int as n from pay_months where org_id = $1`, [t.orgId])).rows[0].n).toBe(truth.length);
    // Calls: the sync's own without history, the payroll calls the months need (the pay groups,
    // the 36 pay cycles in pages of 10, one register page a month), and one repeat per 429.
    const needed = 1 + Math.ceil(36 / 10) + months.size;
    const answered = t.calls.filter((c) => c.status === 200);
    expect(answered.filter((c) => !PAYROLL.test(c.path)).map((c) => c.path)).toStrictEqual(withoutHistory.map((c) => c.path));
    expect(answered.filter((c) => PAYROLL.test(c.path)).length).toBe(needed);
    expect(t.calls.length).toBe(withoutHistory.length + needed + throttled.length);
    expect(
      maxInAnyWindow(
        t.calls.map((c) => c.at).sort((a, b) => a - b),
        60_000,
      ),
    ).toBeLessThanOrEqual(50);
  }, 90_000);
});
