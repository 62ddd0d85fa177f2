/**
 * BambooHR's quirks (src/hrms/bamboohr/README.md; its published description in
 * src/hrms/bamboohr/openapi/): the bamboohr connector against the BambooHR simulator over real
 * HTTP on 127.0.0.1 (no mocks, no database). Each request checked against the description:
 * vendor-contract.integration.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsError, type ConnectorOptions, type EmployeePage, type HrmsConnector } from '../../../src/hrms/connector';
import { createBambooHrConnector } from '../../../src/hrms/bamboohr/connector';
import { BAMBOOHR_DEFINITION } from '../../../src/hrms/bamboohr/definition';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { startBambooHrSim, type BambooHrSim } from '../../../src/hrms/bamboohr/sim';
import { listAll } from '../../support/dialect';

const fast: ConnectorOptions = { pageSize: 100, retries: 5, minRetryDelayMs: 2, maxRetryDelayMs: 2_000, timeoutMs: 5_000 };
let sim: BambooHrSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(employees: number, variants: Record<string, string | number | boolean> = {}): Promise<BambooHrSim> {
  sim = await startBambooHrSim({ employees, seed: 'bamboohr-quirks', throttle: false, variants });
  return sim;
}
const connect = (s: BambooHrSim, o: ConnectorOptions = fast, setup = s.setup()): HrmsConnector =>
  createBambooHrConnector({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, o);
async function pagesOf(c: HrmsConnector, since?: Date): Promise<EmployeePage[]> {
  const out: EmployeePage[] = [];
  for await (const p of c.listEmployees(since ? { since } : {})) out.push(p);
  return out;
}
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => Number(a.employeeId) - Number(b.employeeId));

describe('bamboohr: auth and paging', () => {
  it('an unknown API key is an auth error after one request, never retried', async () => {
    const s = await start(10);
    await expect(connect(s, fast, s.wrongSetup()).verifyCredentials()).rejects.toSatisfy((e) => e instanceof HrmsError && e.kind === 'auth');
    await expect(pagesOf(connect(s, fast, s.wrongSetup()))).rejects.toMatchObject({ kind: 'auth' });
    expect(s.stats()).toMatchObject({ requests: 2, authFailures: 2 });
    expect(BAMBOOHR_DEFINITION.checkCredentials({ credentials: { hrms_host: 'https://acme.bamboohr.com', grant_type: 'api_key' }, apiConfigs: [] })).toEqual([
      { field: 'access_credentials.api_key', message: 'required for bamboohr' },
    ]);
  });

  it('one custom report holds every employee whatever the status, read in pages; Terminated is a status, never a type', async () => {
    const s = await start(450);
    const pages = await pagesOf(connect(s));
    const all = pages.flatMap((p) => p.employees);
    expect(norm(all)).toEqual(norm(s.expected()));
    expect(pages).toHaveLength(5);
    expect(pages.slice(0, -1).map((p) => p.next)).toEqual(['report:100', 'report:200', 'report:300', 'report:400']);
    expect(s.paths()).toEqual(['/api/v1/reports/custom?format=json']);
    const terminated = all.filter((e) => e.status === 'Terminated');
    expect(terminated.length).toBeGreaterThan(10);
    expect(terminated.every((e) => e.employmentType === undefined)).toBe(true);
    expect(all.some((e) => e.employmentType === 'Terminated')).toBe(false);
    // terminationDate "0000-00-00" of active employees is empty, never a date.
    expect(all.filter((e) => e.status === 'Active' && e.terminationDate === undefined).length).toBeGreaterThan(300);
  });

  it('a listing resumed at its cursor asks for the report again and skips what it had', async () => {
    const s = await start(250);
    const all = (await listAll(connect(s), { cursor: 'report:200' })).employees;
    expect(all.map((e) => e.employeeId)).toEqual(s.employeeIds().slice(200));
  });

  it("refuses a cursor of the other listing: an incremental one's on a full listing, and the reverse", async () => {
    const s = await start(5);
    await expect(listAll(connect(s), { cursor: 'changes:2' })).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'not a cursor of the BambooHR connector',
    });
    await expect(listAll(connect(s), { cursor: 'report:2', since: new Date(0) })).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it('the API key on list-employees (OAuth only in the description) is refused, as BambooHR refuses it', async () => {
    const s = await start(5);
    const auth = Buffer.from(`${s.setup().access_credentials.api_key}:x`).toString('base64');
    expect((await fetch(`${s.url}/api/v1/employees?page%5Blimit%5D=1`, { headers: { authorization: `Basic ${auth}` } })).status).toBe(401);
  });

  for (const variants of [{ prefix: 'gateway' }, { supervisorFormat: 'last-first' }, { restrictedFields: 'homeEmail,birthDate,employmentStatus' }] as Record<
    string,
    string | boolean
  >[]) {
    it(`maps ${JSON.stringify(variants)} to the ground truth`, async () => {
      const s = await start(120, variants);
      expect(norm((await pagesOf(connect(s))).flatMap((p) => p.employees))).toEqual(norm(s.expected()));
    });
  }

  it('a company host whose API answers only on the legacy gateway is found there', async () => {
    const s = await start(30, { prefix: 'gateway' });
    const setup = s.setup();
    setup.access_credentials.hrms_host = setup.access_credentials.hrms_host.replace(/\/api\/gateway\.php\/acme$/, '');
    const all = (await pagesOf(connect(s, fast, setup))).flatMap((p) => p.employees);
    expect(all).toHaveLength(30);
    expect(s.paths()[0]).toBe('/api/v1/reports/custom?format=json');
    expect(s.paths()[1]).toBe('/api/gateway.php/127/v1/reports/custom?format=json');
  });
});

describe('bamboohr: salary from payRate / payPeriod', () => {
  /** The raw `payRate`/`payPeriod` the simulator serves for employee `id` (read past the connector). */
  async function rawPay(s: BambooHrSim, id: string): Promise<Record<string, unknown>> {
    const auth = Buffer.from(`${s.setup().access_credentials.api_key}:x`).toString('base64');
    const res = await fetch(`${s.url}/api/v1/employees/${id}?fields=payRate,payType,payPeriod`, { headers: { authorization: `Basic ${auth}` } });
    return (await res.json()) as Record<string, unknown>;
  }
  const salaried = (all: PartialEmployeeRecord[]) => all.filter((e) => e.salaryDetails !== undefined);

  for (const [variants, per] of [
    [{}, 'ctc'],
    [{ payPer: 'month', payRateFormat: 'code-amount' }, 'monthly'],
  ] as const) {
    it(`${JSON.stringify(variants)}: the rate lands in salaryDetails.${per}.fixedPay, equal to the served payRate`, async () => {
      const s = await start(60, variants);
      const warnings: string[] = [];
      const all = (await pagesOf(connect(s, { ...fast, onWarning: (w) => warnings.push(w.field) }))).flatMap((p) => p.employees);
      expect(norm(all)).toEqual(norm(s.expected()));
      expect(salaried(all).length).toBeGreaterThan(50);
      const one = salaried(all)[0]!;
      const raw = await rawPay(s, one.employeeId);
      expect(raw.payPeriod).toBe(per === 'ctc' ? 'Year' : 'Month');
      expect(raw.payType).toBe('Salary');
      const served = Number(String(raw.payRate).replace(/INR/, '').trim());
      expect(served).toBeGreaterThan(per === 'ctc' ? 100_000 : 10_000);
      expect(normalizeRecord(one, 'x').salaryDetails[per].fixedPay).toBe(served);
      expect(normalizeRecord(one, 'x').salaryDetails[per === 'ctc' ? 'monthly' : 'ctc'].fixedPay).toBeNull();
      expect(warnings).toEqual([]);
    });
  }

  it('a payRate in another currency leaves salary empty and warns payRate naming the currency, never the amount (once)', async () => {
    const s = await start(60, { payCurrency: 'USD' });
    const warnings: string[] = [];
    const reasons: string[] = [];
    const onWarning = (w: { field: string; reason: string }) => (warnings.push(w.field), reasons.push(w.reason));
    const all = (await pagesOf(connect(s, { ...fast, onWarning }))).flatMap((p) => p.employees);
    expect(reasons).toEqual(['salary left empty: payRate is in USD, not INR']);
    expect(String((await rawPay(s, all[0]!.employeeId)).payRate)).toMatch(/^\d+\.\d{2} USD$/);
    expect(salaried(all)).toEqual([]);
    expect(normalizeRecord(all[0]!, 'x').salaryDetails.ctc.fixedPay).toBeNull();
    expect(warnings).toEqual(['payRate']);
    expect(norm(all)).toEqual(norm(s.expected()));
  });
});

describe('bamboohr: throttling and changes', () => {
  for (const throttleStatus of [429, 503]) {
    it(`throttling answered ${throttleStatus} + Retry-After is waited out`, async () => {
      const s = await start(300, { throttleStatus, retryAfterSec: 1 });
      s.setFaults({ rateThrottle: 0.5 });
      const t0 = Date.now();
      const all = (await pagesOf(connect(s))).flatMap((p) => p.employees);
      expect(all).toHaveLength(300);
      expect(s.stats().throttled).toBeGreaterThanOrEqual(1);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000 * s.stats().throttled - 100);
    });
  }

  it('/employees/changed: updated ones are read by a custom report of their ids, deleted ones are removedIds', async () => {
    const s = await start(300);
    const since = new Date(Date.now() - 1_000);
    s.change('7');
    s.change('250');
    s.remove('9');
    s.resetStats();
    const pages = await pagesOf(connect(s), since);
    expect(pages.flatMap((p) => p.removedIds ?? [])).toEqual(['9']);
    const changed = pages.flatMap((p) => p.employees);
    expect(norm(changed)).toEqual(norm(s.expected().filter((e) => ['7', '250'].includes(e.employeeId))));
    expect(s.paths()[0]).toMatch(/^\/api\/v1\/employees\/changed\?since=\d{4}-\d{2}-\d{2}T\d{2}%3A\d{2}%3A\d{2}Z$/);
    expect(s.paths().slice(1)).toEqual(['/api/v1/reports/custom?format=json']);
  });

  it('a live read of a deleted or unknown id is null; a known one equals the ground truth', async () => {
    const s = await start(20);
    s.remove('3');
    expect(await connect(s).getEmployee('3')).toBeNull();
    expect(await connect(s).getEmployee('EMP00004')).toBeNull();
    expect(normalizeRecord((await connect(s).getEmployee('4'))!, 'x')).toEqual(
      normalizeRecord(
        s.expected().find((e) => e.employeeId === '4')!,
        'x',
      ),
    );
  });
});
