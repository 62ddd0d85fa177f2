/**
 * The shapes Darwinbox's ctcbreakup answer may take (the sources in src/hrms/darwinbox/README.md, `?`):
 * the darwinbox connector against each switch of the simulator's payroll route over real HTTP
 * on 127.0.0.1 (no database), and the route's own rules (≤ 500 ids, its key, its refusals).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsFieldError, type ConnectorOptions, type HrmsConnector } from '../../../src/hrms/connector';
import { createDarwinboxConnector } from '../../../src/hrms/darwinbox/connector';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { startDarwinboxSim, type DarwinboxSim } from '../../../src/hrms/darwinbox/sim';
import { PAYROLL_KEY } from '../../../src/hrms/darwinbox/sim/payroll';

const fast: ConnectorOptions = { pageSize: 100, retries: 5, minRetryDelayMs: 2, maxRetryDelayMs: 40, timeoutMs: 5_000 };
let sim: DarwinboxSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(employees: number, variants: Record<string, string | number | boolean> = {}): Promise<DarwinboxSim> {
  sim = await startDarwinboxSim({ employees, seed: 'darwinbox-payroll', throttle: false, variants });
  return sim;
}
function connect(s: DarwinboxSim, warnings: string[] = [], setup = s.setup()): HrmsConnector {
  return createDarwinboxConnector(
    { credentials: setup.access_credentials, apiConfigs: setup.api_configs },
    { ...fast, onWarning: (w) => warnings.push(w.field) },
  );
}
async function all(c: HrmsConnector): Promise<PartialEmployeeRecord[]> {
  const out: PartialEmployeeRecord[] = [];
  for await (const p of c.listEmployees()) out.push(...p.employees);
  return out;
}
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => a.employeeId.localeCompare(b.employeeId));
const withKey = (s: DarwinboxSim, key: string) => {
  const setup = s.setup();
  return {
    ...setup,
    api_configs: setup.api_configs.map((a) => (a.api_id === 'payroll' ? { ...a, access_credentials: { ...a.access_credentials, api_key: key } } : a)),
  };
};

describe('darwinbox payroll: every plausible answer shape maps to the ground truth', () => {
  for (const variants of [
    {},
    { payrollEnvelope: 'employee_data' },
    { payrollEnvelope: 'bare' },
    { payrollIdKey: 'employee_id' },
    { payrollTotals: 'alt' },
    { payrollTotals: 'derive' },
    { payrollPeriod: 'annual' },
    { payrollBreakup: 'dotted', payrollPeriod: 'annual' },
  ] as Record<string, string>[]) {
    it(`${JSON.stringify(variants)}`, async () => {
      const s = await start(130, variants);
      const warnings: string[] = [];
      const got = await all(connect(s, warnings));
      const expected = s.expected();
      expect(norm(got)).toEqual(norm(expected));
      expect(warnings).toEqual([]);
      // The ground truth has salaries to compare (not a vacuous match), in the period of the switch.
      const paid = got.filter((e) => e.salaryDetails?.ctc?.fixedPay);
      expect(paid.length).toBeGreaterThan(120);
      const annual = variants.payrollPeriod === 'annual';
      expect(paid.every((e) => (annual ? e.salaryDetails!.ctc!.basic : e.salaryDetails!.monthly!.basic)! > 0)).toBe(true);
      expect(paid.every((e) => (annual ? e.salaryDetails!.monthly : e.salaryDetails!.ctc!.basic) === undefined)).toBe(true);
    });
  }

  it('masked totals: fixed pay NOT AVAILABLE, the breakup not placed, each field named in a warning (never a value)', async () => {
    const s = await start(60, { payrollTotals: 'masked' });
    const warnings: string[] = [];
    const got = await all(connect(s, warnings));
    expect(norm(got)).toEqual(norm(s.expected()));
    expect(got.every((e) => e.salaryDetails?.ctc?.fixedPay === undefined && e.salaryDetails?.monthly === undefined)).toBe(true);
    expect(got.some((e) => e.salaryDetails?.ctc?.bonus?.performance !== undefined)).toBe(true);
    expect(warnings.sort()).toEqual(['ctc_break_up', 'ctc_total', 'fixed_ctc']);
  });
});

describe('darwinbox payroll: requests and refusals', () => {
  it('ids go 500 at a time whatever the page size; throttling and 5xx on ctcbreakup are retried', async () => {
    const s = await start(1_100);
    s.setFaults({ rate5xx: 0.2 });
    const got = await all(
      createDarwinboxConnector({ credentials: s.setup().access_credentials, apiConfigs: s.setup().api_configs }, { ...fast, pageSize: 170 }),
    );
    expect(norm(got)).toEqual(norm(s.expected()));
    const ok = s.payrollCalls().map((c) => c.ids);
    expect(ok).toEqual([500, 500, 100]);
  });

  for (const badKeyAnswer of [200, 401]) {
    it(`a wrong payroll key (answered ${badKeyAnswer}): the credential check names the entry's api_key; a listing keeps the employees, no salary, warned once`, async () => {
      const s = await start(30, { badKeyAnswer });
      await expect(connect(s, [], withKey(s, 'wrong')).verifyCredentials()).rejects.toSatisfy(
        (e) => e instanceof HrmsFieldError && e.field === 'api_configs.2.access_credentials.api_key' && !e.message.includes('wrong'),
      );
      const warnings: string[] = [];
      s.resetStats();
      const got = await all(connect(s, warnings, withKey(s, 'wrong')));
      expect(got).toHaveLength(30);
      expect(got.every((e) => e.salaryDetails === undefined)).toBe(true);
      expect(warnings).toEqual(['api_configs.payroll']);
      expect(s.stats().authFailures).toBe(1);
      await expect(connect(s).verifyCredentials()).resolves.toBeUndefined();
    });
  }

  it('a live read carries the salary', async () => {
    const s = await start(50);
    const e = s.expected().find((x) => x.salaryDetails)!;
    expect(normalizeRecord((await connect(s).getEmployee(e.employeeId))!, 'x')).toEqual(normalizeRecord(e, 'x'));
  });

  it('the simulator refuses more than 500 ids, a wrong password and a request without last_modified', async () => {
    const s = await start(5);
    const auth = `Basic ${Buffer.from('hrx-api-user:dbx-api-password').toString('base64')}`;
    const ask = (body: unknown, authorization = auth) =>
      fetch(`${s.url}/payrollapi/ctcbreakup`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ids = (k: number) => Array.from({ length: k }, (_, i) => `EMP${String(i + 1).padStart(5, '0')}`);
    const base = { api_key: PAYROLL_KEY, last_modified: '01-01-2020', proration_type: 'monthly' };
    expect((await ask({ ...base, employee_no: ids(501) })).status).toBe(400);
    const ok = await ask({ ...base, employee_no: ids(500) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: unknown[] }).data.length).toBeGreaterThan(3);
    expect((await ask({ ...base, employee_no: ids(1) }, 'Basic eDp5')).status).toBe(401);
    expect((await ask({ api_key: PAYROLL_KEY, employee_no: ids(1) })).status).toBe(400);
  });
});
