/**
 * Darwinbox salary through hrx end to end (the sources in src/hrms/darwinbox/README.md): setup-config
 * over HTTP with the `payroll` api_configs entry, the real sync service, PostgreSQL, the vendor
 * API's read; the Darwinbox simulator's payroll route (`darwinbox/sim/payroll.ts`) counts the
 * ctcbreakup requests and the ids each carried.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskRecord } from '../../../src/domain/masking';
import { normalizeRecord, NOT_AVAILABLE } from '../../../src/domain/record';
import { startDarwinboxSim, type DarwinboxSim } from '../../../src/hrms/darwinbox/sim';
import { storesOf } from '../../support/db';
import { expectError, invalid } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { storedRecords } from '../../support/stored';

let app: TestApp;
const lines: string[] = [];
const sims: DarwinboxSim[] = [];
let n = 0;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await startTestApp({ worker: false, env: { LOG_LEVEL: 'info' }, logStream: sink });
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await app?.stop();
});

async function sim(employees: number, variants: Record<string, string | boolean> = {}): Promise<DarwinboxSim> {
  const s = await startDarwinboxSim({ employees, seed: `dbx-salary-${++n}`, throttle: false, variants });
  sims.push(s);
  return s;
}
const post = (body: unknown) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A vendor connected to a new client org (live reads allowed). */
async function orgs() {
  const v = await f.vendor(app.ctx);
  const c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
  return { v, c };
}
const run = (orgId: number, trigger: 'setup' | 'schedule' = 'setup') => app.ctx.services.sync.run(orgId, trigger, `dbx-salary-${++n}`);

describe('darwinbox salary through hrx', () => {
  it('setup-config with the payroll entry, a sync of 600 employees in ctcbreakup batches of 500, salaries equal to the ground truth', async () => {
    const s = await sim(600);
    const { v, c } = await orgs();
    const res = await post({ client_id: c.org.appKey, client_secret: c.appSecret, ...s.setup() });
    expect(res.status).toBe(200);
    expect(res.body.data.configured_apis).toEqual(['employees_active', 'employees_inactive', 'payroll']);
    // The credential check asked for one employee's CTC with the payroll key.
    expect(s.payrollCalls()).toEqual([{ ids: 1 }]);
    s.resetStats();
    expect(await run(c.org.id)).toMatchObject({ status: 'succeeded', kind: 'full', employees: 600 });
    expect(s.payrollCalls()).toEqual([{ ids: 500 }, { ids: 100 }]);

    const stored = await storedRecords(app, c.org.id);
    const expected = s.expected();
    const withSalary = expected.filter((e) => e.salaryDetails);
    expect(withSalary.length).toBeGreaterThan(550);
    for (const e of expected) expect(stored.get(e.employeeId)?.record, e.employeeId).toEqual(normalizeRecord(e, stored.get(e.employeeId)!.record.id));

    // The vendor API serves them: the fixed CTC, the variable pay and a month's breakup.
    for (const e of withSalary.slice(0, 3)) {
      const got = await call(`${app.url}/api/employee_details/${e.employeeId}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(maskRecord(normalizeRecord(e, got.body.data.id)));
      expect(got.body.data.salaryDetails.ctc.fixedPay).toBe(e.salaryDetails!.ctc!.fixedPay);
      expect(got.body.data.salaryDetails.ctc.fixedPay).toBeGreaterThan(100_000);
      expect(got.body.data.salaryDetails.monthly.basic).toBeGreaterThan(1_000);
      expect(got.body.data.salaryDetails.ctc.basic).toBeNull();
    }
    // A live read asks ctcbreakup for that one employee.
    s.resetStats();
    const one = withSalary[7]!;
    const live = await call(`${app.url}/api/employee_details/${one.employeeId}?org=${c.org.uuid}&vendor_org=${v.org.uuid}&source=hrms`, {
      headers: { username: v.apiKey },
    });
    expect(live.body.data).toEqual(maskRecord(normalizeRecord(one, live.body.data.id)));
    expect(s.payrollCalls()).toEqual([{ ids: 1 }]);
  });

  it('an incremental sync asks the salaries of the changed employees only', async () => {
    const s = await sim(120);
    const { c } = await orgs();
    expect((await post({ client_id: c.org.appKey, client_secret: c.appSecret, ...s.setup() })).status).toBe(200);
    expect(await run(c.org.id)).toMatchObject({ status: 'succeeded', kind: 'full' });
    s.change('EMP00042');
    s.resetStats();
    expect(await run(c.org.id, 'schedule')).toMatchObject({ status: 'succeeded', kind: 'incremental', employees: 1 });
    expect(s.payrollCalls()).toEqual([{ ids: 1 }]);
    const e = s.expected().find((x) => x.employeeId === 'EMP00042')!;
    const stored = (await storedRecords(app, c.org.id)).get('EMP00042')!.record;
    expect(stored).toEqual(normalizeRecord(e, stored.id));
  });

  it('a wrong payroll key: setup-config answers 400 naming the entry’s api_key; one stored later leaves salary empty, employees synced, warned', async () => {
    const s = await sim(50);
    const { c } = await orgs();
    const good = s.setup();
    const wrong = {
      ...good,
      api_configs: good.api_configs.map((a) => (a.api_id === 'payroll' ? { ...a, access_credentials: { ...a.access_credentials, api_key: 'nope' } } : a)),
    };
    expectError(
      await post({ client_id: c.org.appKey, client_secret: c.appSecret, ...wrong }),
      400,
      invalid('api_configs.2.access_credentials.api_key', 'Darwinbox refused this payroll API key (or has no payroll API at this address)'),
    );
    expect(await storesOf(app).hrmsConfigs.load(c.org.id)).toBeNull();

    await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId: 'darwinbox', credentials: wrong.access_credentials, apiConfigs: wrong.api_configs });
    s.resetStats();
    const before = lines.length;
    expect(await run(c.org.id)).toMatchObject({ status: 'succeeded', employees: 50 });
    // One refused request, then no more salary requests for that sync.
    expect(s.payrollCalls()).toEqual([]);
    expect(s.stats().authFailures).toBe(1);
    const stored = await storedRecords(app, c.org.id);
    expect(stored.size).toBe(50);
    for (const { record } of stored.values()) {
      expect(record.salaryDetails.ctc.fixedPay).toBeNull();
      expect(record.name).not.toBe(NOT_AVAILABLE);
    }
    const warned = lines.slice(before).filter((l) => l.includes('HRMS value left empty'));
    expect(warned.map((l) => JSON.parse(l).field)).toEqual(['api_configs.payroll']);
    expect(warned.join('\n')).not.toContain('nope');
  });

  it('without the payroll entry salary stays NOT AVAILABLE and ctcbreakup is never asked', async () => {
    const s = await sim(40, { payroll: false });
    const { c } = await orgs();
    const setup = s.setup();
    expect(setup.api_configs.map((a) => a.api_id)).toEqual(['employees_active', 'employees_inactive']);
    expect((await post({ client_id: c.org.appKey, client_secret: c.appSecret, ...setup })).status).toBe(200);
    expect(await run(c.org.id)).toMatchObject({ status: 'succeeded', employees: 40 });
    expect(s.payrollCalls()).toEqual([]);
    const stored = await storedRecords(app, c.org.id);
    for (const e of s.expected()) {
      const r = stored.get(e.employeeId)!.record;
      expect(r).toEqual(normalizeRecord(e, r.id));
      expect([r.salaryDetails.ctc.fixedPay, r.salaryDetails.monthly.basic]).toEqual([null, null]);
    }
  });

  it('setup-config names a payroll entry without a key, and a second payroll entry', async () => {
    const s = await sim(5);
    const { c } = await orgs();
    const good = s.setup();
    const noKey = good.api_configs.map((a) => (a.api_id === 'payroll' ? { ...a, access_credentials: { ...a.access_credentials, api_key: '' } } : a));
    expectError(
      await post({ client_id: c.org.appKey, client_secret: c.appSecret, ...good, api_configs: noKey }),
      400,
      invalid('api_configs.2.access_credentials.api_key', 'required for darwinbox (the payroll API key)'),
    );
    expectError(
      await post({ client_id: c.org.appKey, client_secret: c.appSecret, ...good, api_configs: [...good.api_configs, good.api_configs[2]!] }),
      400,
      invalid('api_configs.3.api_id', 'payroll given twice'),
    );
  });
});
