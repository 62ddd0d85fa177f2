/**
 * The Personio connector against its simulator over real HTTP (the sources in src/hrms/personio/README.md): v1 auth and its 60-a-minute limit with a cool-down, stable and rotating tokens,
 * `limit`/`offset` pages whatever `offset` means, attribute wrappers, `updated_since` ignoring
 * paging, tenant attributes in English or German, v2 persons with employments, 429 with
 * Retry-After, cursors and live reads. Needs neither PostgreSQL nor Redis.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsError, type ConnectorOptions, type HrmsConnector, type ListOptions } from '../../../src/hrms/connector';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { PERSONIO_DEFINITION } from '../../../src/hrms/personio/definition';
import { startPersonioSim } from '../../../src/hrms/personio/sim/server';
import type { DialectSim } from '../../../src/hrms/sim/dialect';

const FAST: ConnectorOptions = { pageSize: 100, retries: 8, minRetryDelayMs: 5, maxRetryDelayMs: 50, timeoutMs: 5_000 };
const open: DialectSim[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function sim(variants: Record<string, string | number | boolean> = {}, employees = 250): Promise<DialectSim> {
  const s = await startPersonioSim({ employees, seed: 'personio-it', variants });
  open.push(s);
  return s;
}
function connector(s: DialectSim, options: ConnectorOptions = {}, wrong = false): HrmsConnector {
  const setup = wrong ? s.wrongSetup() : s.setup();
  return PERSONIO_DEFINITION.create({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, { ...FAST, ...options });
}
async function listAll(c: HrmsConnector, options: ListOptions = {}) {
  const records: PartialEmployeeRecord[] = [];
  const nexts: (string | undefined)[] = [];
  for await (const page of c.listEmployees(options)) {
    records.push(...page.employees);
    nexts.push(page.next);
  }
  return { records, nexts, ids: records.map((r) => r.employeeId) };
}
function differing(s: DialectSim, records: PartialEmployeeRecord[]): string[] {
  const got = new Map(records.map((r) => [r.employeeId, normalizeRecord(r, 'x')]));
  return s
    .expected()
    .filter((e) => !isDeepStrictEqual(got.get(e.employeeId), normalizeRecord(e, 'x')))
    .map((e) => e.employeeId);
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
const auth = (s: DialectSim, body: Record<string, string>) =>
  fetch(`${s.url}/v1/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('Personio v1 auth', () => {
  it('answers a papi- token in the body and the Authorization header; one token serves a whole listing and a live read', async () => {
    const s = await sim();
    const { client_id, client_secret } = s.setup().access_credentials;
    const res = await auth(s, { client_id: client_id!, client_secret: client_secret! });
    const body = (await res.json()) as { success: boolean; data: { token: string } };
    expect(body.success).toBe(true);
    expect(body.data.token).toMatch(/^papi-/);
    expect(res.headers.get('authorization')).toBe(`Bearer ${body.data.token}`);
    s.resetStats();
    const c = connector(s);
    const { records } = await listAll(c);
    expect(differing(s, records)).toEqual([]);
    expect(await c.getEmployee(records[0]!.employeeId)).toEqual(records[0]);
    expect(s.stats().tokenRequests).toBe(1);
  });

  it('connectors of one process share a token (60 auth requests a minute at Personio): a sync and a live read ask once; the setup check always asks', async () => {
    const s = await sim({}, 30);
    await listAll(connector(s));
    await connector(s).getEmployee(s.employeeIds()[3]!);
    expect(s.stats().tokenRequests).toBe(1);
    await connector(s).verifyCredentials();
    expect(s.stats().tokenRequests).toBe(2);
    s.revokeTokens();
    expect((await listAll(connector(s))).ids).toHaveLength(30);
    expect(s.stats().tokenRequests).toBe(3);
  });

  it.each(['401', '403', '200'])('wrong credentials (v1 answering %s) are HrmsError auth after v1 and v2 refuse them, without a data call', async (status) => {
    const s = await sim({ authFailStatus: status });
    const err = await caught(connector(s, {}, true).verifyCredentials());
    expect(err.kind).toBe('auth');
    expect(err.message).not.toContain(s.wrongSetup().access_credentials.client_secret!);
    expect(s.stats()).toMatchObject({ requests: 2, tokenRequests: 2, authFailures: 2 });
  });

  it('over 60 auth requests a minute: 429 and a cool-down, which the connector waits out instead of hammering', async () => {
    const s = await sim({ authCooldownMs: 400 }, 20);
    const { client_id, client_secret } = s.setup().access_credentials;
    for (let k = 0; k < 60; k++) await auth(s, { client_id: client_id!, client_secret: client_secret! });
    expect((await auth(s, { client_id: client_id!, client_secret: client_secret! })).status).toBe(429);
    const before = s.stats().tokenRequests;
    const delays: number[] = [];
    const { records } = await listAll(connector(s, { maxRetryDelayMs: 300, onRetry: (r) => delays.push(r.delayMs) }));
    expect(differing(s, records)).toEqual([]);
    // The connector's wait is the documented 60-s cool-down, capped by maxRetryDelayMs.
    expect(delays.length).toBeGreaterThan(0);
    expect(delays.every((d) => d === 300)).toBe(true);
    expect(s.stats().tokenRequests - before).toBeLessThanOrEqual(4);
  });

  it('rotating tokens (every answer carries the next, the used one dies) are followed: one auth request', async () => {
    const s = await sim({ rotateTokens: true });
    const { records } = await listAll(connector(s));
    expect(differing(s, records)).toEqual([]);
    expect(s.stats()).toMatchObject({ tokenRequests: 1, authFailures: 0 });
  });

  it('a token that stops working mid-listing is replaced once: no page lost or repeated', async () => {
    const s = await sim();
    s.setFaults({ tokenExpiresAfterCalls: 1 });
    const { records, ids } = await listAll(connector(s));
    expect(new Set(ids).size).toBe(250);
    expect(differing(s, records)).toEqual([]);
    expect(s.stats().tokenRequests).toBe(3);
  });
});

describe('Personio v1 listing', () => {
  it.each([
    ['offset counting rows', {}, 3],
    ['offset counting pages (one page asked twice to find out)', { offsetMeans: 'pages' }, 4],
  ])('%s: every employee once in limit-100 pages', async (_name, variants, dataRequests) => {
    const s = await sim(variants);
    const { records, ids, nexts } = await listAll(connector(s, { pageSize: 500 }));
    expect([ids.length, new Set(ids).size]).toEqual([250, 250]);
    expect(nexts.map(Boolean)).toEqual([true, true, false]);
    expect(differing(s, records)).toEqual([]);
    expect(s.stats().requests - s.stats().tokenRequests).toBe(dataRequests);
  });

  it('updated_since ignores limit and offset: more changes than a page come in one answer, listed once', async () => {
    const s = await sim({}, 300);
    const since = new Date(Date.now() - 1000);
    const changed = s.employeeIds().slice(0, 150);
    for (const id of changed) s.change(id);
    s.resetStats();
    const { ids } = await listAll(connector(s), { since });
    expect(ids.sort()).toEqual([...changed].sort());
    expect(s.stats().requests - s.stats().tokenRequests).toBe(1);
  });

  it('exactly a page of changes, paging ignored and no metadata to tell: the repeated answer is not listed twice', async () => {
    const s = await sim({}, 300);
    const since = new Date(Date.now() - 1000);
    for (const id of s.employeeIds().slice(0, 100)) s.change(id);
    const { ids } = await listAll(connector(s), { since });
    expect([ids.length, new Set(ids).size]).toEqual([100, 100]);
  });

  it('updated_since honouring limit and offset (a variant) is paged', async () => {
    const s = await sim({ updatedSincePaging: 'honoured' }, 300);
    const since = new Date(Date.now() - 1000);
    const changed = s.employeeIds().slice(50, 260);
    for (const id of changed) s.change(id);
    const { ids, records } = await listAll(connector(s), { since });
    expect(ids.sort()).toEqual([...changed].sort());
    expect(records.every((r) => r.designation?.startsWith('Principal Consultant'))).toBe(true);
  });

  it('resumes from a cursor; a foreign cursor is refused', async () => {
    const s = await sim();
    const c = connector(s);
    const iter = c.listEmployees()[Symbol.asyncIterator]();
    const first = (await iter.next()).value!;
    await iter.return?.(undefined);
    const rest = await listAll(connector(s), { cursor: first.next! });
    expect([...first.employees, ...rest.records].map((r) => r.employeeId)).toEqual(s.employeeIds());
    await expect(listAll(c, { cursor: 'v3:x' })).rejects.toMatchObject({ kind: 'bad_response' });
  });
});

describe('Personio attributes', () => {
  it.each([
    ['German attribute labels and values, plain dates', { labels: 'de', dateStyle: 'date' }],
    ['salary per month', { salaryInterval: 'monthly' }],
    ['a tenant without the Indian attributes (fields left empty)', { dynamicAttributes: false }],
  ])('%s: equal to the ground truth', async (_name, variants) => {
    const s = await sim(variants, 120);
    expect(differing(s, (await listAll(connector(s))).records)).toEqual([]);
  });

  it('a salary in EUR is not stored as rupees (empty, one warning naming fix_salary and EUR); part-timers are never Full Time', async () => {
    const s = await sim({ salaryCurrency: 'EUR' }, 60);
    const warnings: string[] = [];
    const { records } = await listAll(connector(s, { onWarning: (w) => warnings.push(`${w.field}: ${w.reason}`) }));
    expect(differing(s, records)).toEqual([]);
    expect(records.filter((r) => r.salaryDetails !== undefined)).toEqual([]);
    expect(warnings).toContain('fix_salary: salary left empty: fix_salary is in EUR, not INR');
    expect(warnings.filter((w) => w.startsWith('fix_salary'))).toHaveLength(1);
    expect(new Set(records.map((r) => r.employmentType))).toEqual(new Set(['Contract', undefined]));
  });

  it('dates written as midnight in Berlin (+01:00/+02:00) keep their calendar day; wrappers, supervisor and cost centre unwrapped', async () => {
    const s = await sim({}, 60);
    const raw = await fetch(`${s.url}/v1/company/employees/${s.employeeIds()[9]}`, { headers: { authorization: `Bearer ${await tokenOf(s)}` } });
    const attrs = ((await raw.json()) as { data: { attributes: Record<string, { value: unknown }> } }).data.attributes;
    expect(String(attrs.hire_date!.value)).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\+0[12]:00$/);
    const live = await connector(s).getEmployee(s.employeeIds()[9]!);
    expect(live!.doj).toBe(String(attrs.hire_date!.value).slice(0, 10));
    expect(live).toMatchObject({ manager: expect.any(String), managerEmail: expect.stringContaining('@') });
  });
});

async function tokenOf(s: DialectSim): Promise<string> {
  const { client_id, client_secret } = s.setup().access_credentials;
  return ((await (await auth(s, { client_id: client_id!, client_secret: client_secret! })).json()) as { data: { token: string } }).data.token;
}

describe('Personio v2 (v1 gone)', () => {
  it('falls back to /v2/auth/token and assembles persons with their employments, departments and supervisors', async () => {
    const s = await sim({ api: 'v2' }, 120);
    const { records, ids, nexts } = await listAll(connector(s, { pageSize: 500 }));
    expect([ids.length, new Set(ids).size, nexts.length]).toEqual([120, 120, 3]);
    expect(differing(s, records)).toEqual([]);
    const rehired = records.find((r) => r.employeeId === String(5000 + 97 * 3))!;
    expect(rehired.designation).not.toBe('Associate');
    expect(rehired.terminationDate).toBeUndefined();
  });

  it('custom attributes without labels leave those fields empty; changes since an instant come through updated_at.gt', async () => {
    const s = await sim({ api: 'v2', v2Labels: false }, 80);
    const c = connector(s);
    expect(differing(s, (await listAll(c)).records)).toEqual([]);
    const since = new Date(Date.now() - 1000);
    s.change(s.employeeIds()[4]!);
    const { ids } = await listAll(c, { since });
    expect(ids).toEqual([s.employeeIds()[4]]);
  });

  it('reads a person live; an unknown or malformed id is null', async () => {
    const s = await sim({ api: 'v2' }, 40);
    const c = connector(s);
    expect(normalizeRecord((await c.getEmployee(s.employeeIds()[12]!))!, 'x')).toEqual(normalizeRecord(s.expected()[12]!, 'x'));
    expect(await c.getEmployee('999999')).toBeNull();
    expect(await c.getEmployee('../v1/auth')).toBeNull();
  });
});

describe('Personio throttling and definition', () => {
  it('data 429s are waited out (Retry-After when sent)', async () => {
    const s = await sim({ retryAfterSec: 1 }, 120);
    s.setFaults({ rateThrottle: 0.5 });
    const delays: number[] = [];
    const { records } = await listAll(connector(s, { retries: 20, maxRetryDelayMs: 5_000, onRetry: (r) => delays.push(r.delayMs) }));
    expect(differing(s, records)).toEqual([]);
    expect(delays.length).toBe(s.stats().throttled);
    expect(delays.every((d) => d === 1000)).toBe(true);
  });

  it('names the setup-config field of every problem; one budget per company (host and client id)', () => {
    const ok = { hrms_host: 'https://api.personio.de', grant_type: 'client_credentials', client_id: 'id-1', client_secret: 's' };
    expect(PERSONIO_DEFINITION.checkCredentials({ credentials: ok, apiConfigs: [] })).toEqual([]);
    expect(PERSONIO_DEFINITION.checkCredentials({ credentials: { ...ok, client_id: '' }, apiConfigs: [] })).toEqual([
      { field: 'access_credentials.client_id', message: 'required for personio' },
    ]);
    expect(PERSONIO_DEFINITION.checkCredentials({ credentials: ok, apiConfigs: [{ api_id: 'api', access_credentials: ok }] })[0]!.field).toBe(
      'api_configs.0.api_id',
    );
    const a = PERSONIO_DEFINITION.tenantOf({ credentials: ok, apiConfigs: [] });
    expect(a).not.toBe(PERSONIO_DEFINITION.tenantOf({ credentials: { ...ok, client_id: 'id-2' }, apiConfigs: [] }));
    expect(a).toBe(PERSONIO_DEFINITION.tenantOf({ credentials: { ...ok, client_secret: 'other' }, apiConfigs: [] }));
    expect(a).toBe('https://api.personio.de#id-1');
    expect([PERSONIO_DEFINITION.budget, PERSONIO_DEFINITION.incremental, PERSONIO_DEFINITION.reportsRemovals]).toEqual([
      { requests: 300, windowMs: 60_000 },
      true,
      false,
    ]);
  });
});

describe('Personio stored = live', () => {
  // A synced record (the full listing's) holds what a live read of the same employee holds, value
  // for value, whichever API answers and whatever the tenant's attributes look like.
  for (const [label, variants] of [
    ['v1, English labels, date-times', {}],
    ['v1, German labels, plain dates, monthly salary', { labels: 'de', dateStyle: 'date', salaryInterval: 'monthly' }],
    ['v2 (v1 gone)', { api: 'v2' }],
  ] as const) {
    it(`${label}: every employee's stored record equals its live read and the ground truth`, async () => {
      const s = await sim(variants, 30);
      const { records } = await listAll(connector(s));
      expect(differing(s, records)).toEqual([]);
      const c = connector(s);
      const live: PartialEmployeeRecord[] = [];
      for (const r of records) live.push((await c.getEmployee(r.employeeId))!);
      expect(live.map((r) => normalizeRecord(r, 'x'))).toEqual(records.map((r) => normalizeRecord(r, 'x')));
      // Not vacuous: the records carry the text fields a live read could lose (names, tenant attributes, manager).
      expect(records.filter((r) => r.managerEmail && r.pan && r.dob && r.currentAddress?.addressCity).length).toBeGreaterThan(10);
    });
  }
});
