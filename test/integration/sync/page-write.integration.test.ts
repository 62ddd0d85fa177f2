/**
 * A page's write (docs/sync.md "Memory and throughput"): the rows go as a VALUES list of bind
 * parameters, at most MAX_ROWS_PER_STATEMENT per statement. A page larger than that (an HRMS that
 * lists everyone at once) is written in several statements of the page's transaction, and every
 * row of it is stored, seen by the run, and counted in the page's write mark.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEmployee, MAX_ROWS_PER_STATEMENT } from '../../../src/employees/codec';
import { normalizeRecord } from '../../../src/domain/record';
import { newEmployeeRowId } from '../../../src/employees/store';
import { startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { dbQuery, storesOf } from '../../support/db';

let app: TestApp;
let orgId: number;
const PAGE = 2 * MAX_ROWS_PER_STATEMENT + 17;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  orgId = (await f.client(app.ctx, 'Everyone At Once')).org.id;
}, 60_000);
afterAll(async () => app?.stop());

/** An employee id from the HRMS that would break SQL or an array literal were it ever spliced in. */
const HOSTILE_ID = `E0'),('x"},{\\`;
const page = (name: string) => [
  ...Array.from({ length: PAGE - 1 }, (_, i) => normalizeRecord({ employeeId: `E${i + 1}`, name: `${name} ${i + 1}` }, newEmployeeRowId())),
  normalizeRecord({ employeeId: HOSTILE_ID, name: `${name} hostile` }, newEmployeeRowId()),
];

describe(`a page of ${PAGE} employees (three statements)`, () => {
  it('stores every row once, each stamped with the run, and the write mark covers the last of them', async () => {
    const runId = '00000000-0000-4000-8000-000000000001';
    const writes = await storesOf(app).employees.upsertPage(orgId, runId, page('First'), { writtenUpTo: await storesOf(app).employees.writeMark() });
    expect(writes.written).toBe(PAGE);
    expect(new Set(writes.employeeIds).size).toBe(PAGE);
    const stored = await dbQuery(
      app,
      `select count(*)::int as n, count(distinct employee_id)::int as ids, max(write_seq)::text as top,
              count(*) filter (where last_sync_run_id = $2)::int as seen from employees where org_id = $1`,
      [orgId, runId],
    );
    expect(stored.rows[0]).toEqual({ n: PAGE, ids: PAGE, top: writes.upTo, seen: PAGE });
    const hostile = await dbQuery(app, `select count(*)::int as n from employees where org_id = $1 and employee_id = $2`, [orgId, HOSTILE_ID]);
    expect(hostile.rows[0].n).toBe(1);
  });

  it('a second run rewrites every row of the page, keeping each store id', async () => {
    const before = await dbQuery(app, `select employee_id, id from employees where org_id = $1`, [orgId]);
    const ids = new Map(before.rows.map((r: { employee_id: string; id: string }) => [r.employee_id, r.id]));
    const runId = '00000000-0000-4000-8000-000000000002';
    const records = page('Second').map((r) => normalizeRecord(r, ids.get(r.employeeId)!));
    const writes = await storesOf(app).employees.upsertPage(orgId, runId, records, { writtenUpTo: await storesOf(app).employees.writeMark() });
    expect(writes.written).toBe(PAGE);
    const after = await dbQuery(app, `select employee_id, id, last_sync_run_id from employees where org_id = $1`, [orgId]);
    expect(after.rows).toHaveLength(PAGE);
    for (const r of after.rows as { employee_id: string; id: string; last_sync_run_id: string }[]) {
      expect(r.id).toBe(ids.get(r.employee_id));
      expect(r.last_sync_run_id).toBe(runId);
    }
    const last = (await dbQuery(app, `select id, record_enc from employees where org_id = $1 and employee_id = $2`, [orgId, HOSTILE_ID])).rows[0];
    const decoded = decodeEmployee({ id: last.id, employeeId: HOSTILE_ID, recordEnc: last.record_enc }, orgId, app.ctx.cipher);
    expect(decoded.name).toBe('Second hostile');
  });
});
