/**
 * `GET /api/webhook/v1/employee/access-log/?employee_id=` (docs/consent.md "Access log (employer)", docs/api.md "Vendor connections"): the employer sees
 * every read of its employee's data from the audit every read writes: vendor org, data points,
 * source (`db` or a live `hrms` read), time and request id, newest first, paged. Another
 * employer's credentials see nothing of it (an empty page, the same as for an id it never had),
 * and a refused read leaves nothing to see.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_DATA_POINTS } from '../../../src/domain/data-points';
import { appBasic, client, connection, employees, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import { expectError, invalid, plain } from '../../support/expect-error';

const simCreds = { clientId: 'access-log-client', clientSecret: `access-log-secret-${randomUUID()}` };
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const V_SHARES = ['gender', 'dob', 'bankDetails_bankName'];
const EMPTY = { totalPages: 0, totalItems: 0, items: 0, next: false, previous: false };

type Vendor = Awaited<ReturnType<typeof vendor>>;
type Client = Awaited<ReturnType<typeof client>>;

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let v: Vendor;
let w: Vendor;
let c: Client;
let d: Client;
let storeIdOfC1: string;
/** Request ids of the reads below. */
const rid: Record<string, string> = {};
let started = 0;

const read = async (name: string, who: Vendor, employer: Client, id: string, extra = '') => {
  const res = await call(`${app.url}/api/employee_details/${id}?org=${employer.org.uuid}&vendor_org=${who.org.uuid}${extra}`, {
    headers: { username: who.apiKey },
  });
  rid[name] = res.headers.get('x-request-id')!;
  return res.status;
};
const accessLog = (authorization: string | undefined, query: Record<string, string>) =>
  call(`${app.url}/api/webhook/v1/employee/access-log/?${new URLSearchParams(query).toString()}`, { headers: authorization ? { authorization } : {} });

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 3, ...simCreds });
  v = await vendor(app.ctx, 'Lender V');
  w = await vendor(app.ctx, 'Insurer W');
  c = await client(app.ctx);
  d = await client(app.ctx);
  await connection(app.ctx, v.org.uuid, c.org.uuid, { shared: V_SHARES, liveSource: true });
  await connection(app.ctx, w.org.uuid, c.org.uuid);
  await connection(app.ctx, v.org.uuid, d.org.uuid);
  // A live read needs the employer's HRMS configuration (the simulator's EMP00001 is the same person).
  const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(setupBody(c, sim, simCreds)),
  });
  expect(setup.status).toBe(200);
  [{ id: storeIdOfC1 }] = (await employees(app.ctx, c.org.id, [{ employeeId: 'EMP00001' }, { employeeId: 'EMP00002' }])) as [{ id: string }, ...unknown[]];
  // Both employers have an EMP00001: two different people.
  await employees(app.ctx, d.org.id, [{ employeeId: 'EMP00001' }]);

  started = Date.now();
  expect(await read('v-db', v, c, 'EMP00001')).toBe(200);
  expect(await read('w-db', w, c, storeIdOfC1)).toBe(200);
  expect(await read('v-live', v, c, 'EMP00001', '&source=hrms')).toBe(200);
  expect(await read('v-other-employee', v, c, 'EMP00002')).toBe(200);
  expect(await read('v-other-employer', v, d, 'EMP00001')).toBe(200);
  // Refused reads (no live source for w, unknown employee) are not reads of anything.
  expect(await read('w-live-refused', w, c, 'EMP00001', '&source=hrms')).toBe(403);
  expect(await read('w-unknown', w, c, 'EMP00009')).toBe(404);
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

describe('access log of an employee', () => {
  it('lists the reads by two vendors with their data points and sources, newest first', async () => {
    const res = await accessLog(appBasic(c), { employee_id: 'EMP00001' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      requestId: res.headers.get('x-request-id'),
      message: 'success',
      pageInfo: { totalPages: 1, totalItems: 3, items: 3, next: false, previous: false },
      data: [
        {
          vendor_org: v.org.uuid,
          vendor_org_name: 'Lender V',
          data_points: expect.any(Array),
          source: 'hrms',
          read_at: expect.stringMatching(ISO_MS),
          request_id: rid['v-live'],
        },
        {
          vendor_org: w.org.uuid,
          vendor_org_name: 'Insurer W',
          data_points: [...ALL_DATA_POINTS],
          source: 'db',
          read_at: expect.stringMatching(ISO_MS),
          request_id: rid['w-db'],
        },
        {
          vendor_org: v.org.uuid,
          vendor_org_name: 'Lender V',
          data_points: expect.any(Array),
          source: 'db',
          read_at: expect.stringMatching(ISO_MS),
          request_id: rid['v-db'],
        },
      ],
    });
    for (const i of [0, 2]) expect([...res.body.data[i].data_points].sort()).toEqual([...V_SHARES].sort());
    const times = res.body.data.map((e: any) => Date.parse(e.read_at));
    expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
    expect(times[2]).toBeGreaterThanOrEqual(started - 1000);
    expect(times[0]).toBeLessThanOrEqual(Date.now() + 1000);
    // Another employee of the same employer has its own log.
    const other = await accessLog(appBasic(c), { employee_id: 'EMP00002' });
    expect(other.body.data.map((e: any) => e.request_id)).toEqual([rid['v-other-employee']]);
  });

  it('pages as docs/api.md "Vendor connections" says', async () => {
    const page = (n: string) => accessLog(appBasic(c), { employee_id: 'EMP00001', page: n, page_size: '2' });
    const p1 = await page('1');
    expect(p1.body.pageInfo).toEqual({ totalPages: 2, totalItems: 3, items: 2, next: true, previous: false });
    expect(p1.body.data.map((e: any) => e.request_id)).toEqual([rid['v-live'], rid['w-db']]);
    const p2 = await page('2');
    expect(p2.body.pageInfo).toEqual({ totalPages: 2, totalItems: 3, items: 1, next: false, previous: true });
    expect(p2.body.data.map((e: any) => e.request_id)).toEqual([rid['v-db']]);
    expectError(await page('3'), 404, plain('Invalid page.'));
    expectError(await accessLog(appBasic(c), { employee_id: 'EMP00001', page_size: '101' }), 400, invalid('page_size', 'must be at most 100'));
  });
});

describe('access log: another employer and other credentials', () => {
  it("another employer's credentials see nothing of it: only their own employee of the same id", async () => {
    const mine = await accessLog(appBasic(d), { employee_id: 'EMP00001' });
    expect(mine.body.data.map((e: any) => e.request_id)).toEqual([rid['v-other-employer']]);
    expect(mine.body.pageInfo.totalItems).toBe(1);
    // An id d never had answers exactly as an id nobody has: an empty page, no 404.
    for (const employeeId of ['EMP00002', 'NOBODY']) {
      const res = await accessLog(appBasic(d), { employee_id: employeeId });
      expect({ status: res.status, pageInfo: res.body.pageInfo, data: res.body.data }).toEqual({ status: 200, pageInfo: EMPTY, data: [] });
    }
  });

  it("refuses vendors' credentials, a wrong secret, no credential and bad ids", async () => {
    const q = { employee_id: 'EMP00001' };
    expectError(await accessLog(v.apiKey, q), 401, plain('Invalid token.'));
    expectError(await accessLog(appBasic(v), q), 401, plain('Invalid token.'));
    expectError(await accessLog(appBasic({ org: c.org, appSecret: `${c.appSecret}x` }), q), 401, plain('Invalid token.'));
    expectError(await accessLog(undefined, q), 401, plain('Authentication credentials were not provided.'));
    expectError(await accessLog(appBasic(c), { employee_id: '..' }), 400, invalid('employee_id', 'must not be made only of dots'));
    expectError(await accessLog(appBasic(c), { employee_id: ' ' }), 400, invalid('employee_id', 'required'));
    expect((await accessLog(appBasic(c), {})).body.data.errors[0].field).toBe('employee_id');
  });
});
