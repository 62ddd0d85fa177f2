/**
 * The HiBob connector against its simulator (src/hrms/hibob/): a full listing (the active ids,
 * then every employee with `showInactive`, one streamed answer each) equals the ground truth page
 * by page with its cursors, and resumes from one; a live read; a wrong service user is `auth` and
 * never retried; HiBob's error body and its 429 over HTTP, through setup-config and a sync. The
 * conformance suite (conformance.integration.test.ts) runs the product through hrx like every other.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import type { ConnectorOptions, EmployeePage, HrmsConnector } from '../../../src/hrms/connector';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { product } from '../../../src/hrms/hibob';
import { rateLimitResetWait } from '../../../src/hrms/hibob/connector';
import { startHibobSim } from '../../../src/hrms/hibob/sim';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { storedRecords } from '../../support/stored';

const fast: ConnectorOptions = { pageSize: 40, retries: 3, minRetryDelayMs: 2, maxRetryDelayMs: 200, timeoutMs: 5_000 };
let sim: DialectSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const connect = (s: DialectSim, setup = s.setup(), options = fast): HrmsConnector =>
  product.definition.create({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, options);
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => a.employeeId.localeCompare(b.employeeId));

describe('hibob: connector and simulator', () => {
  it('lists every employee, exited ones Inactive, in pages of pageSize from two searches, equal to the ground truth', async () => {
    sim = await startHibobSim({ employees: 90, seed: 'hibob', throttle: false });
    const pages: EmployeePage[] = [];
    for await (const p of connect(sim).listEmployees()) pages.push(p);
    expect(pages.map((p) => p.employees.length)).toEqual([40, 40, 10]);
    expect(pages.map((p) => p.next)).toEqual(['search:40', 'search:80', undefined]);
    const listed = pages.flatMap((p) => p.employees);
    expect(norm(listed)).toEqual(norm(sim.expected()));
    const statuses = new Set(listed.map((e) => e.status));
    expect(statuses).toEqual(new Set(['Active', 'Inactive']));
    expect(sim.stats().requests).toBe(2);
  });

  it('resumes from a cursor (asks again, skips what it had); a foreign cursor is refused', async () => {
    sim = await startHibobSim({ employees: 90, seed: 'hibob', throttle: false });
    const pages: EmployeePage[] = [];
    for await (const p of connect(sim).listEmployees({ cursor: 'search:80' })) pages.push(p);
    expect(pages.map((p) => p.employees.length)).toEqual([10]);
    expect(norm(pages[0]!.employees)).toEqual(norm(sim.expected()).slice(80));
    const foreign = async () => {
      for await (const _ of connect(sim!).listEmployees({ cursor: 'page:2' })) return;
    };
    await expect(foreign()).rejects.toMatchObject({ kind: 'bad_response', message: expect.stringContaining('not a cursor of the HiBob connector') });
  });

  it('reads one employee live, active in one search, exited in two; an unknown or malformed id is null', async () => {
    sim = await startHibobSim({ employees: 60, seed: 'hibob', throttle: false });
    const truth = sim.expected();
    const active = truth.find((e) => e.status === 'Active')!;
    const exited = truth.find((e) => e.status === 'Inactive')!;
    sim.resetStats();
    expect(norm([(await connect(sim).getEmployee(active.employeeId))!])).toEqual(norm([active]));
    expect(sim.stats().requests).toBe(1);
    expect(norm([(await connect(sim).getEmployee(exited.employeeId))!])).toEqual(norm([exited]));
    expect(sim.stats().requests).toBe(3);
    expect(await connect(sim).getEmployee('3332883884017999999')).toBeNull();
    sim.resetStats();
    expect(await connect(sim).getEmployee('EMP00001')).toBeNull();
    expect(await connect(sim).getEmployee(`0${active.employeeId}`)).toBeNull();
    expect(sim.stats().requests).toBe(0);
  });

  it('a wrong token is an auth error after one request', async () => {
    sim = await startHibobSim({ employees: 5, seed: 'hibob', throttle: false });
    await expect(connect(sim, sim.wrongSetup()).verifyCredentials()).rejects.toMatchObject({ kind: 'auth', status: 401 });
    expect(sim.stats()).toMatchObject({ requests: 1, authFailures: 1 });
  });

  it('a 429 is waited out: X-RateLimit-Reset alone, or Retry-After when sent', async () => {
    for (const retryAfter of [false, true]) {
      sim = await startHibobSim({ employees: 30, seed: 'hibob', throttle: false, variants: { retryAfter } });
      sim.setFaults({ rateThrottle: 0.5, throttleLockoutMs: 200 });
      const retries: string[] = [];
      const pages: EmployeePage[] = [];
      for await (const p of connect(sim, sim.setup(), { ...fast, retries: 6, onRetry: (r) => retries.push(r.reason) }).listEmployees()) pages.push(p);
      expect(norm(pages.flatMap((p) => p.employees))).toEqual(norm(sim.expected()));
      expect(sim.stats().throttled).toBeGreaterThan(0);
      expect(retries).toContain('rate_limited (HTTP 429)');
      await sim.close();
      sim = undefined;
    }
  });

  it('X-RateLimit-Reset: an epoch-seconds reset time or seconds to wait, at most a minute', () => {
    const now = 1_800_000_000_000;
    expect(rateLimitResetWait(String(now / 1000 + 3), now)).toBe(3_000);
    expect(rateLimitResetWait('2', now)).toBe(2_000);
    expect(rateLimitResetWait('86400', now)).toBe(60_000);
    expect(rateLimitResetWait(String(now / 1000 - 5), now)).toBe(0);
    expect(rateLimitResetWait('soon', now)).toBeUndefined();
    expect(rateLimitResetWait(undefined, now)).toBeUndefined();
  });

  it('names the setup-config field of every problem; one budget per company (host and service user id)', () => {
    const access = (c: Record<string, string>) => ({ credentials: { hrms_host: 'https://api.hibob.com', grant_type: 'basic', ...c }, apiConfigs: [] });
    expect(product.definition.checkCredentials(access({ client_id: 'SERVICE-1' }))).toEqual([
      { field: 'access_credentials.client_secret', message: 'required for hibob' },
    ]);
    expect(product.definition.checkCredentials(access({ grant_type: 'api_key', client_id: 'SERVICE-1', client_secret: 't' }))).toEqual([
      { field: 'access_credentials.grant_type', message: 'must be basic for hibob' },
    ]);
    const a = product.definition.tenantOf(access({ client_id: 'SERVICE-1', client_secret: 't' }));
    const b = product.definition.tenantOf(access({ client_id: 'SERVICE-2', client_secret: 't' }));
    expect(a).not.toEqual(b);
    expect(product.definition.budget).toEqual({ requests: 50, windowMs: 60_000 });
  });
});

describe('hibob through hrx over HTTP: HiBob error bodies and throttling', () => {
  let app: TestApp;
  let html: Server;
  let n = 0;
  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_HRMS_RETRY_MIN_MS: '20' } });
    // An API address that answers an HTML page with 200 (a proxy's or a sign-in page).
    html = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in</body></html>'));
    await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await new Promise((r) => html?.close(r));
    await app?.stop();
  });

  async function org() {
    const v = await vendor(app.ctx, `HiBob vendor ${++n}`);
    const c = await client(app.ctx, `HiBob client ${n}`);
    await connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
    return c;
  }
  const setup = (c: Awaited<ReturnType<typeof org>>, body: object) =>
    call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...body }),
    });

  for (const [status, words] of [
    [400, 'the HRMS answered 400 Bad Request'],
    [403, 'the HRMS refused the credentials'],
  ] as const) {
    it(`HiBob's error body with ${status}: setup-config answers 400 "${words}"`, async () => {
      sim = await startHibobSim({ employees: 5, seed: 'hibob-http', variants: { errorStatus: status } });
      const res = await setup(await org(), sim.setup());
      expect([res.status, res.body.message]).toEqual([400, `HRMS credentials rejected: ${words}`]);
      expect(JSON.stringify(res.body)).not.toContain('The request was refused');
    });
  }

  it('an API address answering HTML is a setup-config error naming it, never a crash', async () => {
    sim = await startHibobSim({ employees: 5, seed: 'hibob-http' });
    const s = sim.setup();
    const res = await setup(await org(), {
      ...s,
      access_credentials: { ...s.access_credentials, hrms_host: `http://127.0.0.1:${(html.address() as AddressInfo).port}` },
    });
    expect([res.status, res.body.message]).toEqual([400, 'HRMS credentials rejected: the HRMS answered with a body hrx could not read']);
  });

  it('a sync throttled by HiBob waits within the budget and stores every employee', async () => {
    sim = await startHibobSim({ employees: 120, seed: 'hibob-http' });
    const c = await org();
    expect((await setup(c, sim.setup())).status).toBe(200);
    sim.resetStats();
    sim.setFaults({ rateThrottle: 0.5, throttleLockoutMs: 200 });
    expect(await app.ctx.services.sync.run(c.org.id, 'setup', `hibob-${++n}`)).toMatchObject({ status: 'succeeded', kind: 'full', employees: 120 });
    expect(sim.stats().throttled).toBeGreaterThan(0);
    expect(sim.stats().maxInWindow).toBeLessThanOrEqual(50);
    const stored = await storedRecords(app, c.org.id);
    for (const e of sim.expected()) expect(stored.get(e.employeeId)?.record).toEqual(normalizeRecord(e, stored.get(e.employeeId)!.record.id));
  });
});
