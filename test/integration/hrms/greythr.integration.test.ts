/**
 * The greytHR connector against its simulator over real HTTP (the sources in src/hrms/greythr/README.md): the token host and the API host, `ACCESS-TOKEN` + `x-greythr-domain`, the HTML
 * login page for a refused token, 0- and 1-based pages, sections joined on `employeeId` in any
 * order, lookups, date and enumeration formats, 429 with Retry-After, cursors and live reads.
 * Needs neither PostgreSQL nor Redis.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsError, type ConnectorOptions, type HrmsConnector } from '../../../src/hrms/connector';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { GREYTHR_DEFINITION } from '../../../src/hrms/greythr/definition';
import { startGreythrSim } from '../../../src/hrms/greythr/sim/server';
import { greythrId } from '../../../src/hrms/greythr/sim/render';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { generateEmployee } from '../../../src/hrms/sim/data';

const FAST: ConnectorOptions = { pageSize: 200, retries: 8, minRetryDelayMs: 5, maxRetryDelayMs: 50, timeoutMs: 5_000 };
const open: (DialectSim | Server)[] = [];
afterEach(async () => {
  await Promise.all(
    open.splice(0).map((s) =>
      'stats' in s
        ? s.close()
        : new Promise<void>((r) => {
            s.close(() => r());
            s.closeAllConnections();
          }),
    ),
  );
});

async function sim(variants: Record<string, string | number | boolean> = {}, employees = 450): Promise<DialectSim> {
  const s = await startGreythrSim({ employees, seed: 'greythr-it', variants });
  open.push(s);
  return s;
}
function connector(s: DialectSim, options: ConnectorOptions = {}, wrong = false): HrmsConnector {
  const setup = wrong ? s.wrongSetup() : s.setup();
  return GREYTHR_DEFINITION.create({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, { ...FAST, ...options });
}
async function listAll(c: HrmsConnector, cursor?: string) {
  const records: PartialEmployeeRecord[] = [];
  const cursors: (string | undefined)[] = [];
  for await (const page of c.listEmployees(cursor ? { cursor } : {})) {
    records.push(...page.employees);
    cursors.push(page.next);
  }
  return { records, cursors, ids: records.map((r) => r.employeeId) };
}
/** The employee ids whose record differs from the simulator's ground truth (after normalisation). */
function differing(s: DialectSim, records: PartialEmployeeRecord[]): string[] {
  const got = new Map(records.map((r) => [r.employeeId, normalizeRecord(r, 'x')]));
  return s
    .expected()
    .filter((e) => !isDeepStrictEqual(got.get(e.employeeId), normalizeRecord(e, 'x')))
    .map((e) => e.employeeId);
}
/** A token from the simulator's token host. */
async function tokenOf(s: DialectSim): Promise<string> {
  const { client_id: user, client_secret: pw } = s.setup().access_credentials;
  const res = await fetch(`${s.url}/uas/v1/oauth2/client-token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` },
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
async function caught(p: Promise<unknown>): Promise<HrmsError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HrmsError);
    return err as HrmsError;
  }
  throw new Error('expected an HrmsError');
}

describe('greytHR handshake and the login page', () => {
  it('data calls need ACCESS-TOKEN and x-greythr-domain: without a token the API answers 200 with its HTML login page, with another domain a 400', async () => {
    const s = await sim();
    const setup = s.setup();
    const api = setup.api_configs[0]!.access_credentials.hrms_host;
    const noToken = await fetch(`${api}/employee/v2/employees?page=1&size=5`);
    expect([noToken.status, noToken.headers.get('content-type')]).toEqual([200, 'text/html; charset=UTF-8']);
    expect(await noToken.text()).toMatch(/^<!DOCTYPE html>.*Login/);
    const token = await tokenOf(s);
    const wrongDomain = await fetch(`${api}/employee/v2/employees?page=1&size=5`, {
      headers: { 'access-token': token, 'x-greythr-domain': 'other.greythr.com' },
    });
    expect(wrongDomain.status).toBe(400);
    const ok = await fetch(`${api}/employee/v2/employees?page=1&size=5`, { headers: { 'access-token': token, 'x-greythr-domain': new URL(s.url).host } });
    expect(((await ok.json()) as { data: unknown[] }).data).toHaveLength(5);
  });

  it('a full listing equals the ground truth with one token request, the data on the API host', async () => {
    const s = await sim();
    const { records, ids } = await listAll(connector(s));
    expect(new Set(ids).size).toBe(450);
    expect(differing(s, records)).toEqual([]);
    expect(s.stats().tokenRequests).toBe(1);
  });

  it('connectors of one process share the token (a sync, then live reads); the setup check always asks for a new one', async () => {
    const s = await sim({}, 30);
    await listAll(connector(s));
    await connector(s).getEmployee('EMP00004');
    expect(s.stats().tokenRequests).toBe(1);
    await connector(s).verifyCredentials();
    expect(s.stats().tokenRequests).toBe(2);
  });

  it.each(['401', '400', 'html'])('a wrong password (token endpoint answering %s) is HrmsError auth after one request, quoting no secret', async (how) => {
    const s = await sim({ badCredentials: how });
    const c = connector(s, {}, true);
    const err = await caught(c.verifyCredentials());
    expect(err.kind).toBe('auth');
    expect(err.message).not.toContain(s.wrongSetup().access_credentials.client_secret!);
    expect((await caught(listAll(c))).kind).toBe('auth');
    expect(s.stats()).toMatchObject({ requests: 2, tokenRequests: 2 });
  });

  it('a token refused mid-listing (login page) is replaced once: no page lost or repeated', async () => {
    const s = await sim();
    s.setFaults({ tokenExpiresAfterCalls: 3 });
    const { records, ids } = await listAll(connector(s));
    expect(new Set(ids).size).toBe(ids.length);
    expect(differing(s, records)).toEqual([]);
    expect(s.stats().tokenRequests).toBeGreaterThan(5);
  });

  it('a login page for a brand-new token too is HrmsError auth, after one retry (never parsed as data)', async () => {
    let tokens = 0,
      data = 0;
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/uas/')) {
        tokens++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"t"}');
        return;
      }
      data++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('<html><body>login</body></html>');
    });
    open.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const c = GREYTHR_DEFINITION.create(
      {
        credentials: { hrms_host: host, grant_type: 'client_credentials', client_id: 'u', client_secret: 'p' },
        apiConfigs: [{ api_id: 'api', access_credentials: { hrms_host: host, grant_type: 'client_credentials' } }],
      },
      FAST,
    );
    const err = await caught(listAll(c));
    expect([err.kind, tokens, data]).toEqual(['auth', 2, 2]);
    expect(err.message).toMatch(/login page/);
  });
});

describe('greytHR paging and sections', () => {
  it.each([
    ['1-based sections answering page 0 as page 1 (the default mix)', {}],
    ['1-based sections refusing page 0', { pageZero: 'error' }],
    ['every section 0-based', { oneBased: '' }],
    ['every section 1-based', { oneBased: 'employees,personal,statutory,pf,bank,separation,categories,addresses' }],
  ])('%s: every employee once, equal to the ground truth', async (_name, variants) => {
    const s = await sim(variants);
    const { records, ids } = await listAll(connector(s));
    expect([ids.length, new Set(ids).size]).toEqual([450, 450]);
    expect(differing(s, records)).toEqual([]);
  });

  it('size is at most 200 however large a page hrx would take; 450 employees are 3 pages of employees', async () => {
    const s = await sim({ oneBased: '' });
    const { cursors } = await listAll(connector(s, { pageSize: 500 }));
    expect(cursors.map((c) => c !== undefined)).toEqual([true, true, false]);
  });

  it('sections in another order than the employees list are read whole and still joined right', async () => {
    const s = await sim({ order: 'desc' });
    const { records } = await listAll(connector(s, { pageSize: 100 }));
    expect(differing(s, records)).toEqual([]);
  });

  it('a section listing every employee (not sparse) and one that is missing (404: addresses) both work; the missing one is a warning naming the section', async () => {
    const warnings: string[] = [];
    const s = await sim({ sparse: false, addresses: false });
    const { records } = await listAll(connector(s, { onWarning: (w) => warnings.push(w.field) }));
    expect(differing(s, records)).toEqual([]);
    expect(records.every((r) => r.currentAddress?.addressLine === undefined)).toBe(true);
    expect(warnings).toContain('section.addresses');
  });

  it('resumes from a cursor: pages after it, none twice', async () => {
    const s = await sim({}, 700);
    const c = connector(s, { pageSize: 150 });
    const iter = c.listEmployees()[Symbol.asyncIterator]();
    const first = (await iter.next()).value!;
    const second = (await iter.next()).value!;
    await iter.return?.(undefined);
    const rest = await listAll(connector(s, { pageSize: 150 }), second.next);
    const ids = [...first.employees, ...second.employees, ...rest.records].map((r) => r.employeeId);
    expect([ids.length, new Set(ids).size]).toEqual([700, 700]);
    expect(differing(s, [...first.employees, ...second.employees, ...rest.records])).toEqual([]);
    await expect(listAll(c, 'not-a-cursor')).rejects.toMatchObject({ kind: 'bad_response' });
  });
});

describe('greytHR lookups and formats', () => {
  it.each([
    ['ids resolved through lists of values as a map', { lovShape: 'map' }],
    ['text instead of ids, categories without descriptions (resolved through /hr/v2/categories)', { lovIds: false, categoryDescs: false }],
    [
      'dates as 01-03-2024, gender as M/F, PAN/Aadhaar under pan/aadhaar, IFSC under ifscCode',
      { dateFormat: 'dmy', gender: 'letter', idKeys: 'short', ifscKey: 'ifscCode' },
    ],
    ['dates as 01 Mar 2024, no PAN or Aadhaar at all', { dateFormat: 'dmon', idKeys: 'none' }],
  ])('%s: equal to the ground truth', async (_name, variants) => {
    const s = await sim(variants);
    expect(differing(s, (await listAll(connector(s))).records)).toEqual([]);
  });

  it('an id no list of values knows, and lists of values that are missing, leave the field empty with a warning naming it, never the value', async () => {
    const warnings: { field: string; reason: string }[] = [];
    const s = await sim({}, 200);
    await listAll(connector(s, { onWarning: (w) => warnings.push(w) }));
    expect(warnings).toEqual([{ field: 'personal.maritalStatus', reason: 'value the connector cannot translate' }]);
    warnings.length = 0;
    const none = await sim({ lovEndpoint: false }, 60);
    const { records } = await listAll(connector(none, { onWarning: (w) => warnings.push(w) }));
    expect(differing(none, records)).toEqual([]);
    expect(warnings.map((w) => w.field).sort()).toEqual([
      'bank.bankName',
      'personal.bloodGroup',
      'personal.maritalStatus',
      'separation.leavingReason',
      'statutory.nationality',
    ]);
    expect(JSON.stringify(warnings)).not.toMatch(/\d/);
  });

  it("awkward employees: zero or blank birth dates empty, rehired (an earlier stint's leaving date) active without a termination date, a moved department by its current entry", async () => {
    const s = await sim({}, 110);
    const byId = new Map((await listAll(connector(s))).records.map((r) => [r.employeeId, r]));
    expect([byId.get('EMP00053')!.dob, byId.get('EMP00106')!.dob]).toEqual([undefined, undefined]);
    // EMP00097 works (seed `greythr-it`) and was rehired: its separation record holds an earlier stint.
    expect(generateEmployee('greythr-it', 97).employment_status).toBe('ACTIVE');
    expect(byId.get('EMP00097')).toMatchObject({ status: 'Active' });
    expect(byId.get('EMP00097')?.terminationDate).toBeUndefined();
    // EMP00022 (joined 2020) moved department: an expired entry precedes its current one.
    const api = s.setup().api_configs[0]!.access_credentials.hrms_host;
    const token = await tokenOf(s);
    const listed = (await (
      await fetch(`${api}/employee/v2/employees/categories?page=0&size=50&descRequired=true`, {
        headers: { 'access-token': token, 'x-greythr-domain': new URL(s.url).host },
      })
    ).json()) as { data: { employeeId: number; categoryList: { valueDesc: string }[] }[] };
    const cats = listed.data.find((r) => r.employeeId === greythrId(22))!;
    expect(cats.categoryList[0]!.valueDesc).toBe('Transition Team');
    expect(byId.get('EMP00022')!.department).toBe(generateEmployee('greythr-it', 22).department);
    const statuses = new Set([...byId.values()].map((r) => r.status));
    expect([...statuses].sort()).toEqual(expect.arrayContaining(['Active', 'Inactive']));
  });
});

describe('greytHR throttling and live reads', () => {
  it('429 with Retry-After is waited out for the time it names', async () => {
    const s = await sim({ retryAfterSec: 1 }, 60);
    s.setFaults({ rateThrottle: 0.4 });
    const delays: number[] = [];
    const { records } = await listAll(connector(s, { onRetry: (r) => delays.push(r.delayMs), maxRetryDelayMs: 5_000, retries: 20 }));
    expect(differing(s, records)).toEqual([]);
    expect(s.stats().throttled).toBeGreaterThan(0);
    expect(delays.every((d) => d === 1000)).toBe(true);
  });

  it('over its limit the simulator answers 429 itself: without the shared budget and with one retry, hrx gives up rate_limited', async () => {
    const s = await sim({ limitPerMinute: 5 }, 30);
    expect((await caught(listAll(connector(s, { retries: 1 })))).kind).toBe('rate_limited');
    expect(s.stats().throttled).toBeGreaterThan(0);
  });

  it('reads one employee live by employeeNo; unknown or malformed numbers are null', async () => {
    const s = await sim({}, 120);
    const c = connector(s);
    const live = await c.getEmployee('EMP00097');
    expect(normalizeRecord(live!, 'x')).toEqual(normalizeRecord(s.expected()[96]!, 'x'));
    const before = s.stats().requests;
    expect(await c.getEmployee('EMP99999')).toBeNull();
    expect(await c.getEmployee('  ')).toBeNull();
    expect(await c.getEmployee('EMP\u000001')).toBeNull();
    expect(s.stats().requests - before).toBe(1);
  });
  it("lists of values: a bare array of lov:: keys, answered [id, text] pairs; one employee's categories: a bare array of ids, named through /hr/v2/categories", async () => {
    const s = await sim({}, 120);
    const api = s.setup().api_configs[0]!.access_credentials.hrms_host;
    const headers = { 'access-token': await tokenOf(s), 'x-greythr-domain': new URL(s.url).host, 'content-type': 'application/json' };
    const lov = await fetch(`${api}/hr/v2/lov`, { method: 'POST', headers, body: JSON.stringify(['lov::MaritalStatus']) });
    expect(await lov.json()).toEqual({
      'lov::MaritalStatus': [
        [1, 'Single'],
        [2, 'Married'],
        [3, 'Divorced'],
        [4, 'Widowed'],
      ],
    });
    const named = await fetch(`${api}/hr/v2/lov`, { method: 'POST', headers, body: JSON.stringify({ names: ['MaritalStatus'] }) });
    expect(named.status).toBe(400);
    const one = await fetch(`${api}/employee/v2/employees/${greythrId(11)}/categories?descRequired=true`, { headers });
    const entries = (await one.json()) as Record<string, unknown>[];
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.map((e) => Object.keys(e).sort().join())).toEqual(entries.map(() => 'category,value'));
    // Live reads equal the ground truth: lists resolved, categories named, a moved department's current entry.
    const c = connector(s);
    for (const k of [0, 11, 22, 33, 44, 96]) {
      const truth = s.expected()[k]!;
      expect(normalizeRecord((await c.getEmployee(truth.employeeId))!, 'x')).toEqual(normalizeRecord(truth, 'x'));
    }
  });
});

describe('greytHR definition', () => {
  it('names the setup-config field of every problem', () => {
    const ok = { hrms_host: 'https://acme.greythr.com', grant_type: 'client_credentials', client_id: 'api-user', client_secret: 'pw' };
    const check = (credentials: typeof ok, apiConfigs: { api_id: string; access_credentials: typeof ok }[] = []) =>
      GREYTHR_DEFINITION.checkCredentials({ credentials, apiConfigs });
    expect(check(ok)).toEqual([]);
    expect(check({ ...ok, client_secret: ' ' })).toEqual([{ field: 'access_credentials.client_secret', message: 'required for greythr' }]);
    expect(check({ ...ok, grant_type: 'api_key' })).toEqual([{ field: 'access_credentials.grant_type', message: 'must be client_credentials for greythr' }]);
    expect(check(ok, [{ api_id: 'token', access_credentials: ok }])[0]!.field).toBe('api_configs.0.api_id');
    expect(GREYTHR_DEFINITION.tenantOf({ credentials: ok, apiConfigs: [] })).toBe('https://acme.greythr.com');
    expect(GREYTHR_DEFINITION.incremental).toBe(false);
  });
});
