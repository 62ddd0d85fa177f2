/**
 * ADP Workforce Now (src/hrms/adp_wfn/; its sample-derived rules in openapi/rules.yaml): the
 * connector against its simulator over real HTTP on 127.0.0.1, and setup-config through hrx for
 * ADP's answers that are not workers (a wrong secret, ADP's `confirmMessage` error body, an HTML
 * page from the token endpoint). The conformance suite runs the product through hrx like every
 * other; vendor-contract checks each request and answer against the rules.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { HrmsError, type ConnectorOptions, type HrmsConnector } from '../../../src/hrms/connector';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { product } from '../../../src/hrms/adp_wfn';
import { ADP_WFN_DEFINITION } from '../../../src/hrms/adp_wfn/definition';
import { startAdpWfnSim } from '../../../src/hrms/adp_wfn/sim';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { listAll, WindowBudget } from '../../support/dialect';

const fast: ConnectorOptions = { pageSize: 40, retries: 3, minRetryDelayMs: 2, maxRetryDelayMs: 200, timeoutMs: 5_000 };
let sim: DialectSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(employees: number, variants: Record<string, string | number | boolean> = {}): Promise<DialectSim> {
  sim = await startAdpWfnSim({ employees, seed: 'adp_wfn', throttle: false, variants });
  return sim;
}
const connect = (s: DialectSim, o: ConnectorOptions = fast, setup = s.setup()): HrmsConnector =>
  product.definition.create({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, o);
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => a.employeeId.localeCompare(b.employeeId));

describe('adp_wfn: token, paging, live read', () => {
  it('lists every worker, exited ones included, $top at a time until ADP answers 204; equal to the ground truth', async () => {
    const s = await start(90);
    s.resetStats();
    const { pages, employees } = await listAll(connect(s));
    expect(pages.map((p) => p.employees.length)).toEqual([40, 40, 10, 0]);
    expect(pages.map((p) => p.next)).toEqual(['skip:40', 'skip:80', 'skip:90', undefined]);
    expect(norm(employees)).toEqual(norm(s.expected()));
    expect(employees.filter((e) => e.status === 'Terminated').every((e) => /^\d{4}-\d{2}-\d{2}$/.test(e.terminationDate ?? ''))).toBe(true);
    expect(employees.some((e) => e.status === 'Terminated')).toBe(true);
    // One token for the whole listing (cached per process), four pages.
    expect(s.stats()).toMatchObject({ requests: 5, tokenRequests: 1 });
    // Resumes after a page's cursor; a foreign one is refused.
    const rest = await listAll(connect(s), { cursor: 'skip:80' });
    expect(rest.employees.map((e) => e.employeeId)).toEqual(s.employeeIds().slice(80));
    await expect(listAll(connect(s), { cursor: 'page:2' })).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it('reads one worker live by associate OID; an unknown or malformed id is null, the malformed one without a call', async () => {
    const s = await start(5);
    const [first] = s.employeeIds();
    expect(norm([(await connect(s).getEmployee(first!))!])).toEqual(norm(s.expected().slice(0, 1)));
    expect(await connect(s).getEmployee('G3ZZZZZZZZZZZZZZ')).toBeNull();
    s.resetStats();
    expect(await connect(s).getEmployee('../hr/v2/workers')).toBeNull();
    expect(s.stats().requests).toBe(0);
  });

  it('a wrong secret is an auth error at the token request, never retried; a revoked token is replaced once', async () => {
    const s = await start(5);
    await expect(connect(s, fast, s.wrongSetup()).verifyCredentials()).rejects.toSatisfy((e) => e instanceof HrmsError && e.kind === 'auth');
    expect(s.stats()).toMatchObject({ requests: 1, tokenRequests: 1, authFailures: 1 });
    await connect(s).verifyCredentials();
    s.revokeTokens();
    s.resetStats();
    const { employees } = await listAll(connect(s));
    expect(employees).toHaveLength(5);
    expect(s.stats()).toMatchObject({ tokenRequests: 1, authFailures: 1 });
  });

  it('429 with Retry-After is waited out and holds the tenant budget off; the listing is whole', async () => {
    const s = await start(120, { retryAfterSec: 1 });
    s.setFaults({ rateThrottle: 0.4 });
    const budget = new WindowBudget(1_000, 60_000);
    const delays: number[] = [];
    const { employees } = await listAll(connect(s, { ...fast, retries: 20, maxRetryDelayMs: 5_000, budget, onRetry: (r) => delays.push(r.delayMs) }));
    expect(norm(employees)).toEqual(norm(s.expected()));
    expect(s.stats().throttled).toBeGreaterThanOrEqual(1);
    expect(delays).toHaveLength(s.stats().throttled);
    expect(delays.every((d) => d === 1_000)).toBe(true);
    expect(budget.holds.every((ms) => ms === 1_000)).toBe(true);
    expect(budget.holds).toHaveLength(s.stats().throttled);
  });

  it('names the setup-config field of every problem; one budget per company (ADP host and client id)', () => {
    const ok = { hrms_host: 'https://api.adp.com', grant_type: 'client_credentials', client_id: 'id-1', client_secret: 's' };
    expect(ADP_WFN_DEFINITION.checkCredentials({ credentials: ok, apiConfigs: [] })).toEqual([]);
    expect(ADP_WFN_DEFINITION.checkCredentials({ credentials: { ...ok, client_secret: '' }, apiConfigs: [] })).toEqual([
      { field: 'access_credentials.client_secret', message: 'required for adp_wfn' },
    ]);
    const tenant = ADP_WFN_DEFINITION.tenantOf({ credentials: ok, apiConfigs: [] });
    expect(tenant).toBe('https://api.adp.com#id-1');
    expect(tenant).not.toBe(ADP_WFN_DEFINITION.tenantOf({ credentials: { ...ok, client_id: 'id-2' }, apiConfigs: [] }));
    expect([ADP_WFN_DEFINITION.incremental, ADP_WFN_DEFINITION.budget]).toEqual([false, { requests: 60, windowMs: 60_000 }]);
  });
});

describe('adp_wfn: setup-config through hrx', () => {
  let app: TestApp;
  let n = 0;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => {
    await app?.stop();
  });

  async function setup(body: object) {
    const v = await vendor(app.ctx, `ADP vendor ${++n}`);
    const c = await client(app.ctx, `ADP client ${n}`);
    // A client syncs only for a vendor it is connected to.
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...body }),
    });
    return { res, c };
  }
  const rejected = (reason: string) => ({ code: 400, message: `HRMS credentials rejected: ${reason}`, data: null });

  it('accepts the right credentials and syncs every worker', async () => {
    const s = await start(30);
    const { res, c } = await setup(s.setup());
    expect(res.status).toBe(200);
    expect(await app.ctx.services.sync.run(c.org.id, 'setup', `adp-${n}`)).toMatchObject({ status: 'succeeded', kind: 'full', employees: 30 });
  });

  it('a wrong secret: the HRMS refused the credentials', async () => {
    const s = await start(3);
    const { res } = await setup(s.wrongSetup());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject(rejected('the HRMS refused the credentials'));
  });

  it("ADP's confirmMessage error body names ADP's status, never its text", async () => {
    for (const status of [400, 404]) {
      const s = await start(3, { workersStatus: status });
      const { res } = await setup(s.setup());
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject(rejected(`the HRMS answered ${status} ${status === 400 ? 'Bad Request' : 'Not Found'}`));
      expect(JSON.stringify(res.body)).not.toContain('queryParameter');
      await s.close();
      sim = undefined;
    }
  });

  it('a token endpoint answering an HTML page is a clear setup-config error, never a crash', async () => {
    const s = await start(3, { tokenAnswer: 'html' });
    const { res } = await setup(s.setup());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject(rejected('the HRMS answered 200 OK with a body hrx could not read'));
    expect(s.stats().tokenRequests).toBe(1);
  });
});
