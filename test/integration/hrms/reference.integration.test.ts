/**
 * The reference connector against the reference HRMS simulator, both over real HTTP on
 * 127.0.0.1 (no mocks). Needs neither PostgreSQL nor Redis.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HrmsError, type ConnectorOptions, type HrmsCredentials } from '../../../src/hrms/connector';
import { createReferenceConnector } from '../../../src/hrms/reference/connector';
import { mapEmployee } from '../../../src/hrms/reference/mapping';
import { generateEmployee } from '../../../src/hrms/sim/data';
import { startHrmsSimulator } from '../../../src/hrms/sim/server';

const SEED = 'integration-seed';
const CLIENT_ID = 'hrx-client-7Q2';
const SECRET = 'S3cr3t-Zx9-do-not-log';
const COUNT = 1234;

let sim: Awaited<ReturnType<typeof startHrmsSimulator>>;
const creds = (over: Partial<HrmsCredentials> = {}): HrmsCredentials => ({
  hrms_host: sim.url,
  grant_type: 'client_credentials',
  client_id: CLIENT_ID,
  client_secret: SECRET,
  ...over,
});
/** The reference connector bound to `c` and no `api_configs`. */
const ref = (c: HrmsCredentials, o?: ConnectorOptions) => createReferenceConnector({ credentials: c, apiConfigs: [] }, o);
const fast: ConnectorOptions = { pageSize: 100, retries: 20, minRetryDelayMs: 2, maxRetryDelayMs: 40, timeoutMs: 5_000 };

async function listAll(options: ConnectorOptions, c: HrmsCredentials = creds()): Promise<{ ids: string[]; pages: number[]; totals: (number | undefined)[] }> {
  const out = { ids: [] as string[], pages: [] as number[], totals: [] as (number | undefined)[] };
  // Pages are numbered by the cursor that fetched them (the reference connector's cursors are page numbers).
  let cursor = '1';
  for await (const page of ref(c, options).listEmployees()) {
    out.pages.push(Number(cursor));
    cursor = page.next ?? 'end';
    out.totals.push(page.total);
    out.ids.push(...page.employees.map((e) => e.employeeId));
  }
  return out;
}
const codes = (n: number): string[] => Array.from({ length: n }, (_, k) => `EMP${String(k + 1).padStart(5, '0')}`);

async function caught(p: Promise<unknown>): Promise<HrmsError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HrmsError);
    const e = err as HrmsError;
    for (const secret of [SECRET, CLIENT_ID, 'Bearer']) expect(e.message).not.toContain(secret);
    return e;
  }
  throw new Error('expected an HrmsError');
}

beforeAll(async () => {
  sim = await startHrmsSimulator({ employees: COUNT, seed: SEED, clientId: CLIENT_ID, clientSecret: SECRET, retryAfterSec: 0 });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  sim.control.set({ latencyMs: 0, rate429: 0, rate5xx: 0, retryAfterSec: 0 });
  sim.control.setEmployeeCount(COUNT);
  for (const code of ['EMP00005', 'EMP00010', 'EMP01234']) sim.control.restore(code);
  sim.control.resetStats();
});

describe('simulator endpoints', () => {
  it('issues client-credentials tokens (RFC 6749 §4.4) and guards the API', async () => {
    const form = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${sim.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    const ok = await form(`grant_type=client_credentials&client_id=${CLIENT_ID}&client_secret=${SECRET}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const tok = (await ok.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(tok.token_type).toBe('Bearer');
    expect(tok.expires_in).toBe(3600);
    expect(tok.access_token.length).toBeGreaterThanOrEqual(20);

    const basic = `Basic ${Buffer.from(`${CLIENT_ID}:wrong`).toString('base64')}`;
    const bad = await form('grant_type=client_credentials', { authorization: basic });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: 'invalid_client' });
    const good = `Basic ${Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64')}`;
    const grant = await form('grant_type=password', { authorization: good });
    expect(grant.status).toBe(400);
    expect(await grant.json()).toEqual({ error: 'unsupported_grant_type' });

    const none = await fetch(`${sim.url}/api/v1/employees`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: 'invalid_token' });
    const list = await fetch(`${sim.url}/api/v1/employees?page=2&per_page=1000`, { headers: { authorization: `Bearer ${tok.access_token}` } });
    const body = (await list.json()) as { employees: { employee_code: string }[]; meta: unknown };
    expect(body.meta).toEqual({ page: 2, per_page: 500, total: COUNT, total_pages: 3 });
    expect(body.employees[0]!.employee_code).toBe('EMP00501');
    const past = await fetch(`${sim.url}/api/v1/employees?page=99`, { headers: { 'x-api-key': SECRET } });
    expect(((await past.json()) as { employees: unknown[] }).employees).toEqual([]);
    const missing = await fetch(`${sim.url}/api/v1/employees/EMP99999`, { headers: { 'x-api-key': SECRET } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not_found' });
    expect(sim.control.stats()).toMatchObject({ tokenRequests: 3, pageRequests: 3, employeeRequests: 1, served401: 2 });
  });

  it('is controlled over HTTP at /__sim/control', async () => {
    const res = await fetch(`${sim.url}/__sim/control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ drop: 'EMP00010', latencyMs: 5 }),
    });
    expect(res.status).toBe(200);
    const snap = (await res.json()) as { dropped: string[]; settings: { latencyMs: number }; result: { dropped: boolean[] } };
    expect(snap.dropped).toEqual(['EMP00010']);
    expect(snap.settings.latencyMs).toBe(5);
    expect(snap.result.dropped).toEqual([true]);
    const bad = await fetch(`${sim.url}/__sim/control`, { method: 'POST', body: JSON.stringify({ rate429: 2 }) });
    expect(bad.status).toBe(400);
    const { ids } = await listAll(fast);
    expect(ids).toHaveLength(COUNT - 1);
    expect(ids).not.toContain('EMP00010');
  });
});

describe('reference connector: paging', () => {
  it('lists every employee once, in order, one page per HRMS page', async () => {
    const { ids, pages, totals } = await listAll({ pageSize: 100 });
    expect(ids).toEqual(codes(COUNT));
    expect(pages).toEqual(Array.from({ length: 13 }, (_, k) => k + 1));
    expect(new Set(totals)).toEqual(new Set([COUNT]));
    expect(sim.control.stats()).toMatchObject({ tokenRequests: 1, pageRequests: 13, served401: 0 });
  });

  it('resumes after the page whose next cursor it is given, and the last page has none', async () => {
    const pages: { first: string | undefined; next: string | undefined }[] = [];
    for await (const page of ref(creds(), { pageSize: 500 }).listEmployees({ cursor: '2' }))
      pages.push({ first: page.employees[0]?.employeeId, next: page.next });
    expect(pages).toEqual([
      { first: 'EMP00501', next: '3' },
      { first: 'EMP01001', next: undefined },
    ]);
    expect(
      (
        await caught(
          (async () => {
            for await (const _ of ref(creds()).listEmployees({ cursor: 'x' })) {
              /* none */
            }
          })(),
        )
      ).kind,
    ).toBe('bad_response');
  });

  it('requests the next page only when the consumer asks for it', async () => {
    const it = ref(creds(), { pageSize: 50 }).listEmployees()[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    expect(first.value.employees).toHaveLength(50);
    expect(sim.control.stats().pageRequests).toBe(1);
    await it.next();
    expect(sim.control.stats().pageRequests).toBe(2);
    await it.return?.();
    expect(sim.control.stats().pageRequests).toBe(2);
  });
});

describe('reference connector: retries, failures, credentials and live reads', () => {
  it('returns every employee exactly once through 429s and 5xx', async () => {
    sim.control.set({ rate429: 0.3, rate5xx: 0.2 });
    const retries: { attempt: number; delayMs: number; reason: string }[] = [];
    // 25 pages (~50 attempts) make "no 429 / no 5xx at all" vanishingly unlikely (0.8^50).
    const { ids, pages } = await listAll({ ...fast, pageSize: 50, onRetry: (r) => retries.push(r) });
    expect(pages).toHaveLength(25);
    expect(ids).toEqual(codes(COUNT));
    const stats = sim.control.stats();
    expect(stats.served429).toBeGreaterThan(0);
    expect(stats.served5xx).toBeGreaterThan(0);
    expect(retries).toHaveLength(stats.served429 + stats.served5xx);
    expect(retries.some((r) => r.reason === 'rate_limited (HTTP 429)')).toBe(true);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(40);
  });

  it('waits what Retry-After says (capped at maxRetryDelayMs), then gives up as rate_limited', async () => {
    sim.control.set({ rate429: 1, retryAfterSec: 1 });
    const delays: number[] = [];
    const started = Date.now();
    const err = await caught(
      ref(creds({ grant_type: 'api_key', api_key: SECRET }), {
        retries: 1,
        minRetryDelayMs: 1,
        onRetry: (r) => delays.push(r.delayMs),
      }).getEmployee('EMP00001'),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(delays).toEqual([1000]);
    expect(err.kind).toBe('rate_limited');
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(1000);
    const capped: number[] = [];
    const apiKey = creds({ grant_type: 'api_key', api_key: SECRET });
    const again = await caught(ref(apiKey, { retries: 2, maxRetryDelayMs: 30, onRetry: (r) => capped.push(r.delayMs) }).getEmployee('EMP00001'));
    expect(again.kind).toBe('rate_limited');
    expect(capped).toEqual([30, 30]);
    // verifyCredentials is one attempt: a 429 answers at once instead of waiting.
    expect((await caught(ref(creds(), { retries: 5 }).verifyCredentials())).kind).toBe('rate_limited');
    expect(sim.control.stats().tokenRequests).toBe(1);
  });

  it('gives up with unavailable after its retries on persistent 5xx', async () => {
    sim.control.set({ rate5xx: 1 });
    const err = await caught(listAll({ retries: 2, minRetryDelayMs: 1 }, creds({ grant_type: 'api_key', api_key: SECRET })));
    expect(err.kind).toBe('unavailable');
    expect([500, 503]).toContain(err.status);
    expect(sim.control.stats().pageRequests).toBe(3);
  });

  it('fails with auth and no retries on a wrong secret', async () => {
    const retried: unknown[] = [];
    const opts = { ...fast, onRetry: (r: unknown) => retried.push(r) };
    const err = await caught(listAll(opts, creds({ client_secret: 'wrong-secret' })));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.message).toContain('invalid_client');
    expect(sim.control.stats().tokenRequests).toBe(1);
    expect(sim.control.stats().pageRequests).toBe(0);
    expect(retried).toEqual([]);
    const badKey = await caught(ref(creds({ grant_type: 'api_key', api_key: 'nope' }), opts).getEmployee('EMP00001'));
    expect(badKey.kind).toBe('auth');
    expect(sim.control.stats().employeeRequests).toBe(1);
    expect((await caught(ref(creds({ grant_type: 'password' })).verifyCredentials())).kind).toBe('auth');
  });

  it('verifies credentials with one call', async () => {
    await ref(creds()).verifyCredentials();
    expect(sim.control.stats()).toMatchObject({ tokenRequests: 1, pageRequests: 0 });
    await ref(creds({ grant_type: 'api_key', api_key: SECRET })).verifyCredentials();
    expect(sim.control.stats()).toMatchObject({ tokenRequests: 1, pageRequests: 1 });
    expect((await caught(ref(creds({ client_id: 'someone-else' })).verifyCredentials())).kind).toBe('auth');
    expect((await caught(ref(creds({ grant_type: 'api_key', api_key: 'x' })).verifyCredentials())).kind).toBe('auth');
    expect(sim.control.stats()).toMatchObject({ tokenRequests: 2, pageRequests: 2 });
  });

  it('reads one employee live, null when unknown', async () => {
    const c = ref(creds(), fast);
    expect(await c.getEmployee('EMP00042')).toStrictEqual(mapEmployee(generateEmployee(SEED, 42)));
    expect((await c.getEmployee('EMP00042'))?.name).toMatch(/^\S+( \S+)* \S+$/);
    expect(await c.getEmployee('EMP99999')).toBeNull();
    expect(await c.getEmployee('../oauth/token')).toBeNull();
    expect(await c.getEmployee('')).toBeNull();
    expect(sim.control.stats().tokenRequests).toBe(1);
  });

  it('refreshes a revoked token once and carries on', async () => {
    const c = ref(creds(), fast);
    expect(await c.getEmployee('EMP00001')).not.toBeNull();
    sim.control.revokeTokens();
    expect((await c.getEmployee('EMP00002'))?.employeeId).toBe('EMP00002');
    expect(sim.control.stats()).toMatchObject({ tokenRequests: 2, employeeRequests: 3, served401: 1 });
  });

  it('stops serving dropped employees and serves them again once restored', async () => {
    expect(sim.control.drop('EMP00005')).toBe(true);
    expect(sim.control.drop('EMP01234')).toBe(true);
    expect(sim.control.drop('EMP99999')).toBe(false);
    const c = ref(creds(), fast);
    const { ids, totals } = await listAll(fast);
    expect(ids).toEqual(codes(COUNT).filter((x) => x !== 'EMP00005' && x !== 'EMP01234'));
    expect(totals[0]).toBe(COUNT - 2);
    expect(await c.getEmployee('EMP00005')).toBeNull();
    sim.control.restore('EMP00005');
    expect((await c.getEmployee('EMP00005'))?.employeeId).toBe('EMP00005');
    sim.control.setEmployeeCount(250);
    expect((await listAll({ pageSize: 100 })).ids).toEqual(codes(250));
  });

  it('reports timeouts and refused connections as unavailable', async () => {
    sim.control.set({ latencyMs: 300 });
    const slow = await caught(ref(creds(), { timeoutMs: 100, retries: 0 }).verifyCredentials());
    expect(slow.kind).toBe('unavailable');
    expect(slow.message).toContain('ETIMEDOUT');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await caught(ref(creds({ hrms_host: `http://127.0.0.1:${port}` }), { retries: 1, minRetryDelayMs: 1 }).verifyCredentials());
    expect(refused.kind).toBe('unavailable');
    expect(refused.message).toContain('ECONNREFUSED');
  });
});

describe('reference connector: reports malformed JSON as bad_response without retrying', () => {
  it('reports malformed JSON as bad_response without retrying', async () => {
    let hits = 0;
    const broken: Server = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"access_token": ');
    });
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/`;
      const err = await caught(ref(creds({ hrms_host: url }), fast).getEmployee('EMP00001'));
      expect(err.kind).toBe('bad_response');
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((r) => broken.close(() => r()));
    }
  });
});
