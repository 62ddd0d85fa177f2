/**
 * The Zoho People connector against the Zoho People simulator, over real HTTP on 127.0.0.1: the
 * quirks in src/hrms/zoho_people/README.md (refresh-token grant and its 10-per-10-minutes allowance,
 * `Zoho-oauthtoken`, the record-id-keyed envelope, errors in the body, `sIndex`/`limit` ≤ 200,
 * 7209 and the 5-minute lock-out after 400 a minute, `dd-MMM-yyyy`, `modifiedtime`), the shared
 * budget, token expiry, incremental listings and live reads.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsError, type ConnectorOptions } from '../../../src/hrms/connector';
import { createZohoPeopleConnector, type ZohoTuning } from '../../../src/hrms/zoho_people/connector';
import { ZohoPeopleSim } from '../../../src/hrms/zoho_people/sim/server';
import type { DialectSimOptions } from '../../../src/hrms/sim/dialect';
import { expectSameEmployees, listAll, WindowBudget } from '../../support/dialect';

const sims: ZohoPeopleSim[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function start(opts: Partial<DialectSimOptions> = {}): Promise<ZohoPeopleSim> {
  const sim = await new ZohoPeopleSim({ employees: 450, seed: 'zoho-it', ...opts }).listen();
  sims.push(sim);
  return sim;
}
const fast: ConnectorOptions = { retries: 8, minRetryDelayMs: 5, maxRetryDelayMs: 2_000, timeoutMs: 5_000 };
function connect(sim: ZohoPeopleSim, options: ConnectorOptions = {}, tuning: ZohoTuning = {}, setup = sim.setup()) {
  return createZohoPeopleConnector({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, { ...fast, ...options }, tuning);
}
async function token(sim: ZohoPeopleSim): Promise<Response> {
  const s = sim.setup().access_credentials;
  return fetch(
    `${sim.url}/oauth/v2/token?${new URLSearchParams({ grant_type: 'refresh_token', client_id: s.client_id!, client_secret: s.client_secret!, refresh_token: s.api_key! }).toString()}`,
    { method: 'POST' },
  );
}
const records = async (sim: ZohoPeopleSim, t: string, query: string) => {
  const res = await fetch(`${sim.url}/people/api/forms/employee/getRecords?${query}`, { headers: { authorization: `Zoho-oauthtoken ${t}` } });
  return { status: res.status, body: (await res.json()) as { response: { result?: Record<string, unknown>[]; errors?: { code: number; message: string } } } };
};

describe('Zoho People simulator: handshake, envelope, lock-out', () => {
  it('refreshes tokens, refuses wrong clients and refresh tokens, and limits tokens per 10 minutes', async () => {
    const sim = await start({ variants: { tokenLimit: 3 } });
    const ok = await token(sim);
    expect(await ok.json()).toMatchObject({ expires_in: 3600, token_type: 'Bearer', api_domain: 'https://www.zohoapis.in' });
    const s = sim.wrongSetup().access_credentials;
    const wrong = await fetch(`${sim.url}/oauth/v2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: s.client_id!, client_secret: s.client_secret!, refresh_token: s.api_key! }),
    });
    expect([wrong.status, await wrong.json()]).toEqual([200, { error: 'invalid_code' }]);
    await token(sim);
    await token(sim);
    const denied = await token(sim);
    expect(denied.status).toBe(400);
    expect(await denied.json()).toMatchObject({ error: 'Access Denied', status: 'failure' });
  });

  it('serves the record-id-keyed envelope, 1-based sIndex, limit at most 200, errors in the body', async () => {
    const sim = await start({ employees: 210 });
    const t = ((await (await token(sim)).json()) as { access_token: string }).access_token;
    const first = await records(sim, t, 'sIndex=1&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.response.result!.map((r) => Object.keys(r))).toEqual([['759415000001000001'], ['759415000001000002']]);
    const fields = Object.values(first.body.response.result![0]!)[0] as Record<string, unknown>[];
    expect(fields[0]).toMatchObject({ EmployeeID: 'EMP00001', Dateofjoining: expect.stringMatching(/^\d\d-[A-Z][a-z]{2}-\d{4}$/) });
    expect(fields[0]!['Reporting_To.MailID']).toBe('');
    expect((await records(sim, t, 'sIndex=201&limit=200')).body.response.result).toHaveLength(10);
    expect((await records(sim, t, 'sIndex=211&limit=200')).body.response.errors).toMatchObject({ code: 7024 });
    expect(await records(sim, t, 'limit=201')).toMatchObject({ status: 200, body: { response: { errors: { code: 7021 } } } });
    expect(await records(sim, 'bad', 'limit=1')).toMatchObject({ status: 401, body: { response: { errors: { code: 7218 } } } });
  });

  it('answers 7209 past the threshold and refuses everything for the lock period', async () => {
    const sim = await start({ variants: { limit: 4, windowMs: 5_000, lockoutMs: 1_200 } });
    const t = ((await (await token(sim)).json()) as { access_token: string }).access_token;
    const codes = [];
    for (let k = 0; k < 6; k++) codes.push((await records(sim, t, 'limit=1')).body.response.errors?.code ?? 'ok');
    expect(codes).toEqual(['ok', 'ok', 'ok', 'ok', 7209, 7209]);
    await new Promise((r) => setTimeout(r, 1_300));
    // The window still holds more than 4: the lock is set again at once.
    expect((await records(sim, t, 'limit=1')).body.response.errors?.code).toBe(7209);
    expect(sim.stats()).toMatchObject({ throttled: 3, maxInWindow: 7 });
  });
});

describe('Zoho People connector: full listing', () => {
  it('lists every record equal to the ground truth in the fewest calls, with one token', async () => {
    const sim = await start();
    const { employees, pages } = await listAll(connect(sim));
    expectSameEmployees(employees, sim.expected());
    expect(pages.map((p) => p.employees.length)).toEqual([200, 200, 50]);
    expect(pages.map((p) => p.next)).toEqual(['201', '401', undefined]);
    expect(sim.stats()).toMatchObject({ tokenRequests: 1, requests: 4 });
    // Another connector of the same credentials (a live read, the next sync) reuses the token.
    await connect(sim).getEmployee('EMP00001');
    expect(sim.stats().tokenRequests).toBe(1);
  });

  it('ends on whatever Zoho answers past the last record', async () => {
    for (const afterLast of ['error7024', 'empty', 'missing']) {
      const sim = await start({ employees: 400, variants: { afterLast } });
      const { employees, pages } = await listAll(connect(sim));
      expectSameEmployees(employees, sim.expected());
      expect(pages).toHaveLength(2);
      expect(sim.stats().requests).toBe(4);
    }
  });

  it('reads every record shape, date format and error status', async () => {
    const cases: Record<string, string | number | boolean>[] = [
      { recordShape: 'flat', dateFormat: 'yyyy-MM-dd', errorStatus: 400 },
      { recordShape: 'keyedObject', dateFormat: 'dd/MM/yyyy', customPan: false, listsInactive: false },
    ];
    for (const variants of cases) {
      const sim = await start({ employees: 230, variants });
      expectSameEmployees((await listAll(connect(sim, { pageSize: 500 }))).employees, sim.expected());
    }
  });

  it('resumes from a cursor, and refuses a foreign one', async () => {
    const sim = await start();
    const first = await connect(sim).listEmployees()[Symbol.asyncIterator]().next();
    const rest = await listAll(connect(sim), { cursor: first.value!.next });
    expectSameEmployees([...first.value!.employees, ...rest.employees], sim.expected());
    await expect(listAll(connect(sim), { cursor: 'eyJsaXN0aW5nIjowfQ' })).rejects.toThrow(/not a cursor/);
  });
});

describe('Zoho People connector: refusals and faults', () => {
  it('turns a wrong refresh token into HrmsError auth after one token request, HTTP 200 or 400', async () => {
    for (const tokenErrorStatus of [200, 400]) {
      const sim = await start({ variants: { tokenErrorStatus } });
      const wrong = sim.wrongSetup();
      const c = connect(sim, {}, {}, wrong);
      const err = await c.verifyCredentials().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(HrmsError);
      expect(err).toMatchObject({ kind: 'auth', message: `Zoho refused the client or refresh token (HTTP ${tokenErrorStatus} invalid_code)` });
      expect((err as Error).message).not.toContain(wrong.access_credentials.api_key!);
      await expect(listAll(c)).rejects.toMatchObject({ kind: 'auth' });
      expect(sim.stats()).toMatchObject({ tokenRequests: 2, requests: 2 });
    }
  });

  it('waits the 7209 lock-out out (holding the tenant budget off) instead of hammering', async () => {
    const sim = await start({ variants: { limit: 3, windowMs: 1_000, lockoutMs: 800 } });
    const budget = new WindowBudget(1_000, 1_000);
    const { employees } = await listAll(connect(sim, { pageSize: 60, budget }, { lockoutMs: 800 }));
    expectSameEmployees(employees, sim.expected());
    expect(sim.stats().throttled).toBeGreaterThan(0);
    expect(budget.holds.length).toBe(sim.stats().throttled);
    // Zoho names no wait: 4 times longer after each consecutive 7209 (from minRetryDelayMs 5), up to the lock period.
    expect(budget.holds.every((ms) => [5, 20, 80, 320, 800].includes(ms))).toBe(true);
    expect(budget.holds).toContain(5);
  });

  it('keeps two orgs of one tenant within the threshold through the shared budget, never locked', async () => {
    const sim = await start({ employees: 600, variants: { limit: 10, windowMs: 1_000 } });
    const budget = new WindowBudget(10, 1_000);
    const [a, b] = await Promise.all([listAll(connect(sim, { pageSize: 30, budget })), listAll(connect(sim, { pageSize: 30, budget }))]);
    expectSameEmployees(a.employees, sim.expected());
    expectSameEmployees(b.employees, sim.expected());
    expect(sim.stats().maxInWindow).toBeLessThanOrEqual(10);
    expect(sim.stats()).toMatchObject({ throttled: 0 });
  });

  it('refreshes a token that expires mid-listing (401 or 7218 in a 200), losing and repeating no page', async () => {
    for (const invalidTokenStatus of [401, 200]) {
      const sim = await start({ variants: { invalidTokenStatus } });
      sim.setFaults({ tokenExpiresAfterCalls: 1 });
      const { employees, pages } = await listAll(connect(sim));
      expectSameEmployees(employees, sim.expected());
      expect(sim.stats().tokenRequests).toBe(pages.length);
    }
  });

  it('never takes a result that is not a list for the end of the listing', async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          req.url?.startsWith('/oauth/') ? { access_token: 't', expires_in: 3600 } : { response: { result: { 1: [{ EmployeeID: 'E1' }] }, status: 0 } },
        ),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const access = {
        credentials: { hrms_host: host, grant_type: 'refresh_token', client_id: 'c', client_secret: 's', api_key: `r-${host}` },
        apiConfigs: [{ api_id: 'token', access_credentials: { hrms_host: host, grant_type: 'refresh_token' } }],
      };
      await expect(listAll(createZohoPeopleConnector(access, fast))).rejects.toMatchObject({
        kind: 'bad_response',
        message: 'Zoho People sent an unexpected shape for records from 1',
      });
    } finally {
      server.close();
    }
  });

  it('waits when Zoho Accounts denies more tokens, and retries 5xx', async () => {
    const sim = await start({ variants: { tokenLimit: 1, tokenWindowMs: 700 } });
    sim.setFaults({ tokenExpiresAfterCalls: 1, rate5xx: 0.2 });
    const { employees } = await listAll(connect(sim, {}, { tokenWaitMs: 300 }));
    expectSameEmployees(employees, sim.expected());
  });
});

describe('Zoho People connector: incremental listing and live reads', () => {
  it('lists records modified after an instant (epoch ms), with no removedIds', async () => {
    const sim = await start({ variants: { removeAs: 'exit' } });
    const since = new Date();
    await new Promise((r) => setTimeout(r, 5));
    sim.change('EMP00020');
    sim.remove('EMP00021');
    const { employees, pages } = await listAll(connect(sim), { since });
    const truth = new Map(sim.expected().map((e) => [e.employeeId, e]));
    expectSameEmployees(employees, [truth.get('EMP00020')!, truth.get('EMP00021')!]);
    expect(employees.find((e) => e.employeeId === 'EMP00021')).toMatchObject({ status: 'Inactive' });
    expect(pages.every((p) => p.removedIds === undefined)).toBe(true);
  });

  it('falls back to a dd-MMM-yyyy modifiedtime when Zoho refuses milliseconds (a superset, never fewer)', async () => {
    const sim = await start({ variants: { modifiedtime: 'date' } });
    sim.change('EMP00020');
    const { employees, pages } = await listAll(connect(sim, { pageSize: 200 }), { since: new Date(Date.now() - 1000) });
    expect(employees.map((e) => e.employeeId)).toContain('EMP00020');
    expect(pages).toHaveLength(1);
    expect(sim.stats().requests).toBe(3);
  });

  it('reads one employee live by EmployeeID; an unknown id is null', async () => {
    const sim = await start();
    const truth = new Map(sim.expected().map((e) => [e.employeeId, e]));
    const c = connect(sim);
    expectSameEmployees([(await c.getEmployee('EMP00042'))!], [truth.get('EMP00042')!]);
    expect(await c.getEmployee('EMP99999')).toBeNull();
    expect(await c.getEmployee('  ')).toBeNull();
  });
});
