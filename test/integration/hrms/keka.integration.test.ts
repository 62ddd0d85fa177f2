/**
 * The Keka connector against the Keka simulator, over real HTTP on 127.0.0.1: the quirks of
 * src/hrms/keka/README.md (kekaapi token form, paged envelope with absolute nextPage links,
 * Working/Relieved listings, numeric enumerations, date-times, 429 rateLimitExceeded after 50 a
 * minute, lastModified), the shared budget, token expiry, incremental listings and live reads.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsError, type ConnectorOptions } from '../../../src/hrms/connector';
import { createKekaConnector, type KekaTuning } from '../../../src/hrms/keka/connector';
import { KekaSim } from '../../../src/hrms/keka/sim/server';
import type { DialectSimOptions } from '../../../src/hrms/sim/dialect';
import { expectSameEmployees, listAll, WindowBudget } from '../../support/dialect';

const sims: KekaSim[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function start(opts: Partial<DialectSimOptions> = {}): Promise<KekaSim> {
  const sim = await new KekaSim({ employees: 450, seed: 'keka-it', ...opts }).listen();
  sims.push(sim);
  return sim;
}
const fast: ConnectorOptions = { retries: 8, minRetryDelayMs: 5, maxRetryDelayMs: 2_000, timeoutMs: 5_000 };
function connect(sim: KekaSim, options: ConnectorOptions = {}, tuning: KekaTuning = {}, setup = sim.setup()) {
  return createKekaConnector({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, { ...fast, ...options }, tuning);
}
async function token(sim: KekaSim): Promise<string> {
  const s = sim.setup().access_credentials;
  const res = await fetch(`${sim.url}/connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'kekaapi', scope: 'kekaapi', client_id: s.client_id!, client_secret: s.client_secret!, api_key: s.api_key! }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
async function caught(p: Promise<unknown>, secrets: string[]): Promise<HrmsError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HrmsError);
    for (const s of secrets) expect((err as Error).message).not.toContain(s);
    return err as HrmsError;
  }
  throw new Error('expected an HrmsError');
}

describe('Keka simulator: handshake, envelope, throttling signal', () => {
  it('issues kekaapi tokens and refuses other grants, scopes and credentials with 400', async () => {
    const sim = await start();
    const s = sim.setup().access_credentials;
    const form = (over: Record<string, string>) =>
      fetch(`${sim.url}/connect/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'kekaapi',
          scope: 'kekaapi',
          client_id: s.client_id!,
          client_secret: s.client_secret!,
          api_key: s.api_key!,
          ...over,
        }),
      });
    const ok = await form({});
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ expires_in: 86_400, token_type: 'Bearer' });
    for (const [over, error] of [
      [{ api_key: 'nope' }, 'invalid_client'],
      [{ scope: 'other' }, 'invalid_scope'],
      [{ grant_type: 'client_credentials' }, 'unsupported_grant_type'],
    ] as const) {
      const res = await form(over);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error });
    }
  });

  it('pages with absolute nextPage links, totals, a 200 cap, and guards the API', async () => {
    const sim = await start({ employees: 230 });
    const auth = { authorization: `Bearer ${await token(sim)}`, 'user-agent': 'test' };
    const res = await fetch(`${sim.url}/api/v1/hris/employees?pageSize=500`, { headers: auth });
    const body = (await res.json()) as Record<string, unknown> & { data: unknown[] };
    expect(body).toMatchObject({ succeeded: true, pageNumber: 1, pageSize: 200, totalRecords: 230, totalPages: 2, previousPage: null });
    expect(body.data).toHaveLength(200);
    expect(body.nextPage).toBe(`${sim.url}/api/v1/hris/employees?pageSize=200&pageNumber=2`);
    const last = (await (await fetch(String(body.nextPage), { headers: auth })).json()) as { data: unknown[]; nextPage: unknown };
    expect([last.data.length, last.nextPage]).toEqual([30, null]);
    expect((await fetch(`${sim.url}/api/v1/hris/employees`, { headers: { 'user-agent': 'test' } })).status).toBe(401);
    const noAgent = await fetch(`${sim.url}/api/v1/hris/employees`, { headers: { authorization: auth.authorization, 'user-agent': '' } });
    expect([noAgent.status, noAgent.headers.get('content-type')]).toEqual([403, 'text/html']);
  });

  it('answers 429 rateLimitExceeded past the limit of the window, then refills', async () => {
    const sim = await start({ variants: { limit: 5, windowMs: 1500 } });
    const auth = { authorization: `Bearer ${await token(sim)}`, 'user-agent': 'test' };
    const statuses = [];
    for (let k = 0; k < 7; k++) statuses.push((await fetch(`${sim.url}/api/v1/hris/employees?pageSize=1`, { headers: auth })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = await fetch(`${sim.url}/api/v1/hris/employees?pageSize=1`, { headers: auth });
    expect(await limited.text()).toContain('rateLimitExceeded');
    expect(limited.headers.get('retry-after')).toBeNull();
    await new Promise((r) => setTimeout(r, 1550));
    expect((await fetch(`${sim.url}/api/v1/hris/employees?pageSize=1`, { headers: auth })).status).toBe(200);
    expect(sim.stats()).toMatchObject({ throttled: 3, maxInWindow: 8 });
  });
});

describe('Keka connector: full listing', () => {
  it('lists Working then Relieved employees equal to the ground truth, warning of untranslatable enumerations', async () => {
    const sim = await start();
    const warnings: string[] = [];
    const { pages, employees } = await listAll(connect(sim, { onWarning: (w) => warnings.push(w.field) }));
    expectSameEmployees(employees, sim.expected());
    expect(employees.some((e) => e.status === 'Inactive') && employees.some((e) => e.status === 'Active')).toBe(true);
    expect(employees.every((e) => e.gender === undefined && e.employmentType === undefined)).toBe(true);
    expect(warnings.sort()).toEqual(['bloodGroup', 'gender', 'maritalStatus', 'relationType', 'timeType', 'workerType']);
    // The minimum the paging allows: ceil(working/200) + ceil(relieved/200) pages, one token.
    const relieved = sim.expected().filter((e) => e.status === 'Inactive').length;
    expect(pages).toHaveLength(Math.ceil((450 - relieved) / 200) + Math.ceil(relieved / 200));
    expect(pages.at(-1)).toMatchObject({ total: 450 });
    expect(pages.at(-1)!.next).toBeUndefined();
    expect(sim.stats()).toMatchObject({ tokenRequests: 1, requests: pages.length + 1, throttled: 0, authFailures: 0 });
  });

  it('translates numeric enumerations through label tables that match the tenant', async () => {
    const labels = JSON.stringify({ gender: { M: 3, F: 0, O: 1 }, groupType: { department: 4, legalEntity: 1 } });
    const sim = await start({ variants: { labels, hrxKnowsLabels: true } });
    const warnings: string[] = [];
    const { employees } = await listAll(connect(sim, { enumLabels: sim.hrxLabels(), onWarning: (w) => warnings.push(w.field) }));
    expectSameEmployees(employees, sim.expected());
    expect(new Set(employees.map((e) => e.gender))).toEqual(new Set(['Male', 'Female', 'Other']));
    expect(employees.filter((e) => e.fatherName !== undefined).length).toBeGreaterThan(10);
    expect(warnings).toEqual([]);
  });

  it('guesses no group type: without a groupType table no department, and nothing Keka does not define (nationality)', async () => {
    const sim = await start({ employees: 60 });
    const warnings: string[] = [];
    const { employees } = await listAll(connect(sim, { onWarning: (w) => warnings.push(w.field) }));
    expectSameEmployees(employees, sim.expected());
    expect(employees.filter((e) => e.department !== undefined || e.nationality !== undefined)).toEqual([]);
    expect(employees.filter((e) => e.gender !== undefined || e.maritalStatus !== undefined)).toEqual([]);
    expect(warnings.sort()).toEqual(['bloodGroup', 'gender', 'maritalStatus', 'relationType', 'timeType', 'workerType']);
  });

  for (const dateFormat of ['iso', 'istInstant', 'date'] as const) {
    it(`reads dates written as ${dateFormat}`, async () => {
      const sim = await start({ employees: 120, variants: { dateFormat, zeroDates: dateFormat !== 'date' } });
      expectSameEmployees((await listAll(connect(sim))).employees, sim.expected());
    });
  }

  it('copes with relative or absent page links, an unfiltered default without relieved, and a 200 error', async () => {
    for (const variants of [{ nextPage: 'relative' }, { nextPage: 'absent', listsRelievedByDefault: false, pageSizeOver200: 'error' }] as Record<
      string,
      string | boolean
    >[]) {
      const sim = await start({ variants });
      const { employees, pages } = await listAll(connect(sim, { pageSize: 1000 }));
      expectSameEmployees(employees, sim.expected());
      expect(sim.stats().requests).toBe(pages.length + 1);
    }
  });

  it('resumes from a cursor without repeating or losing a page', async () => {
    const sim = await start();
    const all = (await listAll(connect(sim))).employees;
    const first = await connect(sim).listEmployees()[Symbol.asyncIterator]().next();
    const rest = await listAll(connect(sim), { cursor: first.value!.next });
    expectSameEmployees([...first.value!.employees, ...rest.employees], sim.expected());
    expect(all).toHaveLength(450);
    await expect(listAll(connect(sim), { cursor: 'eyJsaXN0aW5nIjo3fQ' })).rejects.toThrow(/not a cursor/);
  });
});

describe('Keka connector: refusals and faults', () => {
  it('turns wrong credentials into HrmsError auth after one token request, with no retry storm', async () => {
    const sim = await start();
    const wrong = sim.wrongSetup();
    const secrets = [wrong.access_credentials.client_secret!, wrong.access_credentials.api_key!];
    const e = await caught(connect(sim, {}, {}, wrong).verifyCredentials(), secrets);
    expect([e.kind, e.status, e.message]).toEqual(['auth', 400, 'Keka refused the API credentials (HTTP 400 invalid_client)']);
    expect((await caught(listAll(connect(sim, {}, {}, wrong)), secrets)).kind).toBe('auth');
    expect(sim.stats()).toMatchObject({ tokenRequests: 2, requests: 2, authFailures: 2 });
    const noKey = { ...sim.setup(), access_credentials: { ...sim.setup().access_credentials, api_key: '' } };
    expect((await caught(connect(sim, {}, {}, noKey).verifyCredentials(), [])).kind).toBe('auth');
    expect(sim.stats().requests).toBe(2);
  });

  it('waits throttling out: a 429 without Retry-After waits a refill interval, with it the header', async () => {
    for (const retryAfter of [false, true]) {
      const sim = await start({ employees: 300, variants: { limit: 2, windowMs: 1000, retryAfter } });
      const budget = new WindowBudget(1000, 1000);
      const { employees } = await listAll(connect(sim, { pageSize: 50, budget }, { refillMs: 1000 }));
      expectSameEmployees(employees, sim.expected());
      expect(sim.stats().throttled).toBeGreaterThan(0);
      expect(budget.holds.length).toBeGreaterThan(0);
      // With Retry-After its seconds; without, 4 times longer after each consecutive 429 (from minRetryDelayMs 5), up to the refill.
      expect(budget.holds.every((ms) => (retryAfter ? ms === 1000 : [5, 20, 80, 320, 1000].includes(ms)))).toBe(true);
    }
  });

  it('keeps two orgs of one tenant within the limit through the shared budget, never throttled', async () => {
    const sim = await start({ employees: 400, variants: { limit: 8, windowMs: 1000 } });
    const budget = new WindowBudget(8, 1000);
    const [a, b] = await Promise.all([listAll(connect(sim, { pageSize: 40, budget })), listAll(connect(sim, { pageSize: 40, budget }))]);
    expectSameEmployees(a.employees, sim.expected());
    expectSameEmployees(b.employees, sim.expected());
    expect(sim.stats().maxInWindow).toBeLessThanOrEqual(8);
    expect(sim.stats()).toMatchObject({ throttled: 0 });
    expect(sim.stats().requests).toBeGreaterThan(20);
  });

  it('refreshes a token that expires mid-listing, losing and repeating no page', async () => {
    const sim = await start();
    sim.setFaults({ tokenExpiresAfterCalls: 2 });
    const { employees, pages } = await listAll(connect(sim));
    expectSameEmployees(employees, sim.expected());
    expect(sim.stats().tokenRequests).toBe(Math.ceil(pages.length / 2));
    sim.setFaults({ tokenExpiresAfterCalls: 0 });
    const iter = connect(sim).listEmployees()[Symbol.asyncIterator]();
    const got = [(await iter.next()).value!];
    sim.revokeTokens();
    for (let n = await iter.next(); !n.done; n = await iter.next()) got.push(n.value);
    expectSameEmployees(
      got.flatMap((p) => p.employees),
      sim.expected(),
    );
  });

  it('retries 5xx answers', async () => {
    const sim = await start();
    sim.setFaults({ rate5xx: 0.3 });
    expectSameEmployees((await listAll(connect(sim))).employees, sim.expected());
  });

  /** A hostile or broken Keka answering every page with `page` (and any token request with a token). */
  async function brokenKeka(page: unknown, check: (first: Promise<unknown>) => Promise<void>): Promise<void> {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/connect/token' ? { access_token: 't', expires_in: 60 } : page));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const access = {
        credentials: { hrms_host: host, grant_type: 'kekaapi', client_id: 'c', client_secret: `s-${host}`, api_key: 'k' },
        apiConfigs: [{ api_id: 'token', access_credentials: { hrms_host: host, grant_type: 'kekaapi' } }],
      };
      await check(createKekaConnector(access, fast).listEmployees()[Symbol.asyncIterator]().next());
    } finally {
      server.close();
    }
  }

  it('follows a nextPage link only on the Keka host', async () => {
    await brokenKeka(
      { succeeded: true, data: [{ employeeNumber: 'K1' }], pageNumber: 1, totalPages: 2, nextPage: 'http://evil.invalid/api/v1/hris/employees?pageNumber=2' },
      (first) => expect(first).rejects.toMatchObject({ kind: 'bad_response', message: 'HRMS pointed to another host' }),
    );
  });

  it('never takes a page without data for the end of a listing, unless Keka says it is empty', async () => {
    await brokenKeka({ succeeded: true, data: null, totalRecords: 450 }, (first) => expect(first).rejects.toMatchObject({ kind: 'bad_response' }));
    await brokenKeka({ succeeded: true, data: null, totalRecords: 0, nextPage: null }, async (first) => {
      expect(await first).toMatchObject({ done: false, value: { employees: [] } });
    });
  });
});

describe('Keka connector: incremental listing and live reads', () => {
  it('lists changed and exited employees since an instant, with no removedIds', async () => {
    const sim = await start({ variants: { removeAs: 'exit' } });
    const since = new Date();
    await new Promise((r) => setTimeout(r, 1100));
    sim.change('EMP00007');
    sim.remove('EMP00011');
    const { employees, pages } = await listAll(connect(sim), { since });
    expect(employees.map((e) => e.employeeId).sort()).toEqual(['EMP00007', 'EMP00011']);
    expect(pages.every((p) => p.removedIds === undefined)).toBe(true);
    const truth = new Map(sim.expected().map((e) => [e.employeeId, e]));
    expectSameEmployees(employees, [truth.get('EMP00007')!, truth.get('EMP00011')!]);
    expect(employees.find((e) => e.employeeId === 'EMP00007')!.designation).toBe('Principal Consultant (revision 1)');
    const exited = employees.find((e) => e.employeeId === 'EMP00011')!;
    expect([exited.status, exited.terminationDate]).toEqual(['Inactive', new Date(Date.now() + 330 * 60_000).toISOString().slice(0, 10)]);
    // `lastModified` has whole seconds, rounded down: a later second lists nothing.
    expect((await listAll(connect(sim), { since: new Date(Date.now() + 2000) })).employees).toEqual([]);
  });

  it('cannot see a deleted employee incrementally; the full listing no longer has it', async () => {
    const sim = await start({ variants: { removeAs: 'delete' } });
    const since = new Date();
    sim.remove('EMP00011');
    expect((await listAll(connect(sim), { since })).employees).toEqual([]);
    const full = (await listAll(connect(sim))).employees;
    expect(full).toHaveLength(449);
    expect(full.some((e) => e.employeeId === 'EMP00011')).toBe(false);
  });

  it('reads one employee live, working or relieved; an unknown or comma id is null', async () => {
    const sim = await start();
    const truth = new Map(sim.expected().map((e) => [e.employeeId, e]));
    const relieved = sim.expected().find((e) => e.status === 'Inactive')!.employeeId;
    const c = connect(sim);
    expectSameEmployees([(await c.getEmployee('EMP00003'))!], [truth.get('EMP00003')!]);
    expectSameEmployees([(await c.getEmployee(relieved))!], [truth.get(relieved)!]);
    expect(await c.getEmployee('EMP99999')).toBeNull();
    sim.resetStats();
    expect(await c.getEmployee('EMP00003,EMP00004')).toBeNull();
    expect(sim.stats().requests).toBe(0);
  });
});
