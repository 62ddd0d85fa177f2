/**
 * A sync never reverts the webhook (docs/pay-history.md "A sync never reverts the webhook"), over
 * HTTP with the reference simulator: a pay month the update webhook corrects while the sync's
 * payroll page is at the HRMS (after the page's write mark) keeps the webhook's value when the
 * page lands; a month the webhook corrected before the sync asked for its page takes the HRMS's
 * value again (the HRMS is newer), announced as a correction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payHistory } from '../../../src/hrms/sim/payroll';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const SEED = 'pay-guard';
const creds = { clientId: 'pay-guard-client', clientSecret: 'pay-guard-secret-3q' };
let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let c: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;

const update = (body: unknown) =>
  call(`${app.url}/api/webhook/v1/employee/update/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: f.appBasic(c) },
    body: JSON.stringify(body),
  });
/** EMP00001's two newest months as the read serves them: `[year, month, grossPay, netPay]`. */
const newestTwo = async (): Promise<[number, number, number | null, number | null][]> => {
  const res = await call(`${app.url}/api/employee_details/EMP00001/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}&months=2`, {
    headers: { username: v.apiKey },
  });
  expect(res.status).toBe(200);
  return (res.body.data.months as { year: number; month: number; grossPay: number | null; netPay: number | null }[]).map((m) => [
    m.year,
    m.month,
    m.grossPay,
    m.netPay,
  ]);
};

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 3, seed: SEED, ...creds });
  c = await f.client(app.ctx);
  v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await app.ctx.syncQueue.queue.drain(true);
  await f.hrmsAt(app.ctx, c.org.id, sim, creds);
  expect(await app.ctx.services.sync.run(c.org.id, 'test', 'guard-1', { full: true })).toMatchObject({ status: 'succeeded' });
}, 90_000);
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

describe('pay months: a sync page does not revert a later webhook correction', () => {
  it('keeps the month corrected while the payroll page was at the HRMS; takes back the one corrected before', async () => {
    const [newest, older] = payHistory(SEED, 1, 2);
    const hrms = [newest!, older!].map((m) => [m.year, m.month, m.gross_salary, m.net_pay]);
    expect(await newestTwo()).toStrictEqual(hrms);
    // Corrected before the sync: the sync's page is newer and takes the HRMS's value back.
    expect((await update({ employeeId: 'EMP00001', salaryHistory: [{ year: older!.year, month: older!.month, grossPay: 1, netPay: 1 }] })).status).toBe(200);
    expect((await newestTwo())[1]).toStrictEqual([older!.year, older!.month, 1, 1]);

    // Every HRMS answer now takes 1.5 s: the payroll page is at the HRMS while the webhook corrects the newest month.
    sim.control.set({ latencyMs: 1500 });
    sim.control.resetStats();
    const running = app.ctx.services.sync.run(c.org.id, 'test', 'guard-2', { full: true });
    await expect.poll(() => sim.control.stats().payrollRequests, { timeout: 30_000, interval: 20 }).toBe(1);
    const corrected = { year: newest!.year, month: newest!.month, grossPay: 2, netPay: 2 };
    expect((await update({ employeeId: 'EMP00001', salaryHistory: [corrected] })).status).toBe(200);
    expect(sim.control.stats()).toMatchObject({ payrollRequests: 1, payMonthsServed: 0 });
    expect(await running).toMatchObject({ status: 'succeeded' });
    expect(sim.control.stats().payMonthsServed).toBeGreaterThan(0);

    expect(await newestTwo()).toStrictEqual([[newest!.year, newest!.month, 2, 2], hrms[1]]);
  }, 60_000);
});
