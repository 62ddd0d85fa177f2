/**
 * The employee update webhook (docs/api.md "Employee update webhook") end to end over real HTTP and PostgreSQL: create,
 * merge rules, exact `updated_fields`, idempotency (nothing written the second time), array
 * bodies, the three stored parts rewritten together (masked plain read, unmasked record), audit,
 * revival of a removed employee, and no lost writes under concurrent updates and sync upserts.
 * Error rows, credentials, BOLA and all-or-nothing validation: employee-update-errors.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEmployee } from '../../../src/employees/codec';
import { maskRecord } from '../../../src/domain/masking';
import { emptyDependent, normalizeRecord, NOT_AVAILABLE, type EmployeeRecord } from '../../../src/domain/record';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { UUID_V4 } from '../../support/expect-error';
import { dbQuery, storesOf } from '../../support/db';

const DEPENDENT_POINTS = Object.keys(emptyDependent()).map((k) => `dependentDetails_${k}`);

let app: TestApp;
let c: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  c = await f.client(app.ctx);
  v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
});
afterAll(async () => app?.stop());

const update = (body: unknown, who: { org: { appKey: string }; appSecret: string } = c) =>
  call(`${app.url}/api/webhook/v1/employee/update/`, {
    method: 'POST',
    headers: { authorization: f.appBasic(who), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const read = (id: string) => call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
/** The stored row, its record decoded from its envelope (what V2 serves). */
const row = async (employeeId: string, orgId = c.org.id) => {
  const r = await dbQuery(app, `select * from employees where org_id = $1 and employee_id = $2`, [orgId, employeeId]);
  const x = r.rows[0];
  if (!x) return null;
  const record = decodeEmployee({ id: x.id, employeeId: x.employee_id, recordEnc: x.record_enc }, orgId, app.ctx.cipher);
  return { record, updatedAt: (x.updated_at as Date).getTime(), removedAt: x.removed_at as Date | null, lastSyncRunId: x.last_sync_run_id as string | null };
};
const expectOk = (res: Awaited<ReturnType<typeof call>>, data: unknown) => {
  expect(res.headers.get('x-request-id')).toMatch(UUID_V4);
  expect({ status: res.status, body: res.body }).toStrictEqual({ status: 200, body: { requestId: res.headers.get('x-request-id'), message: 'success', data } });
};

describe('employee update webhook: creating and merging', () => {
  it('creates an unknown employee with the record defaults and serves it masked', async () => {
    const res = await update({
      employeeId: 'N1',
      name: 'Asha Rao',
      pan: 'ABCPR1234K',
      bankDetails: { accountNumber: '001234567890' },
      salaryDetails: { ctc: { basic: 600000 } },
      dependentDetails: [{ name: 'Ravi', mobileNumber: '9876543210' }],
    });
    const id = res.body.data?.id as string;
    expectOk(res, {
      employeeId: 'N1',
      id,
      // From no dependents to one: every dependent data point's values changed ([] → [...]).
      updated_fields: ['name', 'pan', 'bankDetails_accountNumber', 'ctc_basic', ...DEPENDENT_POINTS],
    });
    expect(id).toMatch(UUID_V4);
    const expected = normalizeRecord(
      {
        employeeId: 'N1',
        name: 'Asha Rao',
        pan: 'ABCPR1234K',
        bankDetails: { accountNumber: '001234567890' },
        salaryDetails: { ctc: { basic: 600000 } },
        dependentDetails: [{ name: 'Ravi', mobileNumber: '9876543210' }],
      },
      id,
    );
    expect((await row('N1'))!.record).toEqual(expected);
    const got = await read('N1');
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(maskRecord(expected));
    expect(got.body.data).toMatchObject({ pan: '**********', email: NOT_AVAILABLE, terminationDate: '', salaryDetails: { ctc: { basic: 600000, hra: null } } });
    // Readable by its new store id too.
    expect((await read(id)).body.data.employeeId).toBe('N1');
  });

  it('merges nested objects field by field, replaces arrays, and lists exactly the changed points', async () => {
    const [seeded] = await f.employees(app.ctx, c.org.id, [{ employeeId: 'M1', name: 'Vikram Shah' }]);
    await update({
      employeeId: 'M1',
      bankDetails: { accountNumber: '11112222', ifscCode: 'SBIN0000001', bankName: 'SBI' },
      dependentDetails: [{ name: 'A' }, { name: 'B' }],
    });
    const res = await update({
      employeeId: 'M1',
      bankDetails: { bankName: 'State Bank of India' },
      currentAddress: { addressCity: 'Pune' },
      salaryDetails: { monthly: { month: 4, year: 2026, deductions: { tds: 1200.5 } } },
      dependentDetails: [{ name: 'C', relation: 'Spouse' }],
      name: 'Vikram Shah',
    });
    expectOk(res, {
      employeeId: 'M1',
      id: seeded!.id,
      updated_fields: ['bankDetails_bankName', 'currentAddress_addressCity', 'monthly_month', 'monthly_year', 'monthly_deductions_tds', ...DEPENDENT_POINTS],
    });
    const stored = (await row('M1'))!.record;
    expect(stored.bankDetails).toEqual({ accountNumber: '11112222', ifscCode: 'SBIN0000001', bankName: 'State Bank of India' });
    expect(stored.currentAddress).toEqual({ ...normalizeRecord({ employeeId: 'x' }, 'x').currentAddress, addressCity: 'Pune' });
    expect(stored.dependentDetails).toEqual([{ ...emptyDependent(), name: 'C', relation: 'Spouse' }]);
    expect(stored.salaryDetails.monthly).toMatchObject({ month: 4, year: 2026, basic: null, deductions: { tds: 1200.5, pf: null } });
    expect(stored.name).toBe('Vikram Shah');
    // The masked plain read follows.
    expect((await read('M1')).body.data.bankDetails).toEqual({ accountNumber: '********', ifscCode: '***********', bankName: 'State Bank of India' });
  });

  it('writes nothing for a repeated body: updated_fields [] and updated_at unchanged', async () => {
    const body = { employeeId: 'I1', name: 'Neha Gupta', salaryDetails: { ctc: { basic: 700000 } }, dependentDetails: [{ name: 'Dev' }] };
    const first = await update(body);
    expect(first.body.data.updated_fields).toEqual(['name', 'ctc_basic', ...DEPENDENT_POINTS]);
    const before = (await row('I1'))!;
    await new Promise((r) => setTimeout(r, 20));
    const second = await update(body);
    expectOk(second, { employeeId: 'I1', id: first.body.data.id, updated_fields: [] });
    const after = (await row('I1'))!;
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.record).toEqual(before.record);
    // null and blank leave values alone, so they write nothing either.
    expect((await update({ employeeId: 'I1', name: ' ', pan: null, salaryDetails: { ctc: { basic: null } } })).body.data.updated_fields).toEqual([]);
    expect((await row('I1'))!.updatedAt).toBe(before.updatedAt);
  });

  it('answers an array body with one result per record, in request order', async () => {
    const [known] = await f.employees(app.ctx, c.org.id, [{ employeeId: 'A2', name: 'Known' }]);
    const res = await update([
      { employeeId: 'A3', name: 'New Person' },
      { employeeId: 'A2', designation: 'Engineer' },
      { employeeId: 'A2', designation: 'Senior Engineer', grade: 'L5' },
      { employeeId: 'A2', name: 'Known' },
    ]);
    expect(res.status).toBe(200);
    const data = res.body.data as { employeeId: string; id: string; updated_fields: string[] }[];
    expect(data).toEqual([
      { employeeId: 'A3', id: data[0]!.id, updated_fields: ['name'] },
      { employeeId: 'A2', id: known!.id, updated_fields: ['designation'] },
      { employeeId: 'A2', id: known!.id, updated_fields: ['designation', 'grade'] },
      { employeeId: 'A2', id: known!.id, updated_fields: [] },
    ]);
    expect(data[0]!.id).toMatch(UUID_V4);
    expect((await row('A2'))!.record).toMatchObject({ name: 'Known', designation: 'Senior Engineer', grade: 'L5' });
    expect((await row('A3'))!.record.name).toBe('New Person');
    // An array of one is still an array.
    const one = await update([{ employeeId: 'A3' }]);
    expectOk(one, [{ employeeId: 'A3', id: data[0]!.id, updated_fields: [] }]);
  });
});

describe('employee update webhook: audit, revival and concurrent writes', () => {
  it('audits each employee written as employee.update by the client org, with the changed points', async () => {
    const res = await update([
      { employeeId: 'U1', name: 'Audit Me', uan: '100200300400' },
      { employeeId: 'A2', name: 'Known' },
    ]);
    const audit = await dbQuery(
      app,
      `select actor_org_id, action, client_org_id, connection_id, employee_id, data_points from audit_log where request_id = $1`,
      [res.headers.get('x-request-id')],
    );
    // A2 did not change: not written, not audited.
    expect(audit.rows).toEqual([
      { actor_org_id: c.org.id, action: 'employee.update', client_org_id: c.org.id, connection_id: null, employee_id: 'U1', data_points: ['name', 'uan'] },
    ]);
  });

  it('revives an employee a full sync removed, keeping its id', async () => {
    const other = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, other.org.uuid);
    const [gone] = await f.employees(app.ctx, other.org.id, [{ employeeId: 'R1', name: 'Left Once' }]);
    expect(await f.removeAllEmployees(app.ctx, other.org.id)).toBe(1);
    const readOther = () => call(`${app.url}/api/employee_details/R1?org=${other.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
    expect((await readOther()).status).toBe(404);
    const res = await update({ employeeId: 'R1', status: 'Active' }, other);
    expectOk(res, { employeeId: 'R1', id: gone!.id, updated_fields: ['status'] });
    expect((await row('R1', other.org.id))!.removedAt).toBeNull();
    const got = await readOther();
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id: gone!.id, name: 'Left Once', status: 'Active' });
  });

  it('loses no write under concurrent requests for the same employee', async () => {
    await update({ employeeId: 'C1', name: 'Busy' });
    const fields = [
      'managerEmail',
      'managerEmail2',
      'managerEmail3',
      'managerEmail4',
      'managerEmail5',
      'designation',
      'department',
      'grade',
      'groupName',
      'costCenter',
    ];
    const results = await Promise.all(
      fields.map((k) =>
        update([
          { employeeId: 'C1', [k]: `${k}-value` },
          { employeeId: 'C2', [k]: `${k}-value` },
        ]),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(fields.map(() => 200));
    // C2 did not exist: ten concurrent creators, one row, every field kept.
    for (const id of ['C1', 'C2']) {
      const stored = (await row(id))!.record as unknown as Record<string, string>;
      for (const k of fields) expect(stored[k]).toBe(`${k}-value`);
    }
    const c2Ids = new Set(results.map((r) => r.body.data[1].id));
    expect(c2Ids.size).toBe(1);
    expect((await dbQuery(app, `select count(*)::int as n from employees where org_id = $1 and employee_id = 'C2'`, [c.org.id])).rows[0].n).toBe(1);
  });
});

describe('employee update webhook: interleaves with sync upserts without deadlock, and a sync keeps a webhook-created id', () => {
  it('interleaves with sync upserts without deadlock, and a sync keeps a webhook-created id', async () => {
    // A sync page whose ids were looked up before the webhook created S1 (a fresh id for it).
    const created = await update({ employeeId: 'S1', name: 'From Webhook' });
    const runId = randomUUID();
    const page = [normalizeRecord({ employeeId: 'S1', name: 'From HRMS', designation: 'Analyst' }, randomUUID())];
    await storesOf(app).employees.upsertBatch(c.org.id, runId, page);
    const synced = (await row('S1'))!;
    expect(synced.record).toMatchObject({ id: created.body.data.id, name: 'From HRMS', designation: 'Analyst' });
    expect(synced.lastSyncRunId).toBe(runId);
    // The masked form carries the stored id too (its envelope was re-encoded with it).
    expect((await read('S1')).body.data.id).toBe(created.body.data.id);
    // Webhook updates racing sync upserts of the same rows (given in opposite orders): both lock
    // rows in employee_id order, so they queue instead of deadlocking, and every call succeeds.
    // The sync writes whole records and the webhook merges onto whatever is committed.
    const syncRecords = ['S1', 'S2', 'S3'].map((id) => normalizeRecord({ employeeId: id, name: `HRMS ${id}` }, randomUUID()));
    const [syncs, hooks] = await Promise.all([
      Promise.all(Array.from({ length: 5 }, () => storesOf(app).employees.upsertBatch(c.org.id, runId, [...syncRecords].reverse()))),
      Promise.all(
        Array.from({ length: 5 }, () =>
          update([
            { employeeId: 'S3', uan: '999988887777' },
            { employeeId: 'S2', uan: '999988887777' },
            { employeeId: 'S1', uan: '999988887777' },
          ]),
        ),
      ),
    ]);
    expect(syncs).toEqual([3, 3, 3, 3, 3]);
    expect(hooks.map((h) => h.status)).toEqual([200, 200, 200, 200, 200]);
    for (const id of ['S1', 'S2', 'S3']) {
      const r = (await row(id))!;
      expect(r.record.name).toBe(`HRMS ${id}`);
      expect(r.lastSyncRunId).toBe(runId);
      expect((await read(id)).body.data.name).toBe(`HRMS ${id}`);
    }
    // A webhook write after the sync's last write is never overwritten by it.
    const after = await update([{ employeeId: 'S2', uan: '111122223333' }]);
    expect(after.body.data[0].updated_fields).toEqual(['uan']);
    expect((await row('S2'))!.record.uan).toBe('111122223333');
  });

  it('rewrites the unmasked record that V2 and consent serve', async () => {
    await update({ employeeId: 'V1', aadhar: '234567890123', mobileNumber: '9000000001' });
    await update({ employeeId: 'V1', mobileNumber: '9000000002' });
    const rec: EmployeeRecord = await app.ctx.services.employees.read({
      vendorOrgId: v.org.id,
      clientOrgUuid: c.org.uuid,
      employeeRef: 'V1',
      source: 'db',
      requestId: randomUUID(),
      mask: false,
    });
    expect(rec).toMatchObject({ employeeId: 'V1', aadhar: '234567890123', mobileNumber: '9000000002' });
    expect((await read('V1')).body.data).toMatchObject({ aadhar: '************', mobileNumber: '**********' });
  });
});
