/**
 * Pay history from the reference product's payroll API (docs/pay-history.md "Where months come
 * from"): the first full sync of an org backfills 24 months per employee, each later sync
 * re-reads the last 2, counted at the simulator (payroll requests and pay months served) and in
 * the `pay_months` table; the read over HTTP then serves 12 months newest first, the newest equal
 * to the record's `monthly`. A product without a payroll API (its definition names none) reads
 * nothing and records only the record's month.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payHistory } from '../../../src/hrms/sim/payroll';
import { dbQuery } from '../../support/db';
import { client, connection, hrmsAt, vendor } from '../../support/factories';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const N = 12;
const SEED = 'pay-backfill';
const creds = { clientId: 'pay-client', clientSecret: 'pay-secret-8k1' };
let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let c: Awaited<ReturnType<typeof client>>;
let v: Awaited<ReturnType<typeof vendor>>;

/** Pay months the simulator holds for its employees, `months` back at most. */
const expectedMonths = (months: number): number => Array.from({ length: N }, (_, k) => payHistory(SEED, k + 1, months).length).reduce((a, b) => a + b, 0);
const stored = async (): Promise<number> => (await dbQuery(app, `select count(*)::int as n from pay_months where org_id = $1`, [c.org.id])).rows[0].n as number;
const sync = (id: string) => app.ctx.services.sync.run(c.org.id, 'test', id, { full: true });

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '5' } });
  sim = await startSim({ employees: N, seed: SEED, ...creds });
  c = await client(app.ctx);
  v = await vendor(app.ctx);
  await connection(app.ctx, v.org.uuid, c.org.uuid);
  await app.ctx.syncQueue.queue.drain(true);
  await hrmsAt(app.ctx, c.org.id, sim, creds);
}, 90_000);
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

describe('reference payroll backfill', () => {
  it('the first full sync reads 24 months per employee (3 payroll pages of 5 employees) and stores them all', async () => {
    sim.control.resetStats();
    expect(await sync('pay-1')).toMatchObject({ status: 'succeeded', employees: N });
    const stats = sim.control.stats();
    expect(expectedMonths(24)).toBeGreaterThan(N * 12);
    expect({ requests: stats.payrollRequests, served: stats.payMonthsServed }).toStrictEqual({ requests: 3, served: expectedMonths(24) });
    expect(await stored()).toBe(expectedMonths(24));
  });

  it('the next sync re-reads only the last 2 months, and changes nothing', async () => {
    sim.control.resetStats();
    const before = await dbQuery(app, `select max(recorded_at) as at from pay_months where org_id = $1`, [c.org.id]);
    expect(await sync('pay-2')).toMatchObject({ status: 'succeeded' });
    expect(sim.control.stats()).toMatchObject({ payrollRequests: 3, payMonthsServed: expectedMonths(2) });
    expect(await stored()).toBe(expectedMonths(24));
    // Equal values are no correction: no row rewritten.
    expect((await dbQuery(app, `select max(recorded_at) as at from pay_months where org_id = $1`, [c.org.id])).rows).toStrictEqual(before.rows);
  });

  it('the read serves 12 months, newest first, the newest being the record’s monthly', async () => {
    const id = 'EMP00001';
    const res = await call(`${app.url}/api/employee_details/${id}/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
      headers: { username: v.apiKey },
    });
    expect(res.status).toBe(200);
    const months = res.body.data.months as { month: number; year: number; netPay: number; paidOn: string }[];
    const native = payHistory(SEED, 1, 12);
    expect(months.map((m) => [m.year, m.month, m.netPay, m.paidOn])).toStrictEqual(native.map((m) => [m.year, m.month, m.net_pay, m.paid_on]));
    expect(months.length).toBe(12);
    const record = await call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
    expect(months[0]).toStrictEqual(record.body.data.salaryDetails.monthly);
    // `as_of`: the org's last succeeded sync, ISO 8601 UTC to the millisecond (as a Date would print it).
    const [last] = (await dbQuery(app, `select max(finished_at) as at from sync_runs where org_id = $1 and status = 'succeeded'`, [c.org.id])).rows;
    expect(res.body.data.as_of).toBe((last.at as Date).toISOString());
  });
});
