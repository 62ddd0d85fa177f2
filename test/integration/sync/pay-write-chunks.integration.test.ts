/**
 * A sync page's pay month write at payroll-page size (employees/pay-months.ts `record`): more
 * months than one statement carries (`PAY_WRITE_CHUNK`) are all stored and reported new; a
 * rewrite reports exactly the changed months as corrections and leaves equal ones untouched
 * (`recorded_at` unchanged); months past the newest 36 are trimmed in the same write and not
 * reported (a real PostgreSQL).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../../src/domain/record';
import { createPayMonthStore, PAY_MONTHS_KEPT, PAY_WRITE_CHUNK, type PayMonthWrite } from '../../../src/employees/pay-months';
import { dbQuery, storesOf, testPool } from '../../support/db';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';

const EMPLOYEES = 100;
let app: TestApp;
let c: Awaited<ReturnType<typeof f.client>>;
let rows: { id: string; employeeId: string }[];

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  c = await f.client(app.ctx);
  const records = Array.from({ length: EMPLOYEES }, (_, i) => normalizeRecord({ employeeId: `W${i}` }, randomUUID()));
  const store = storesOf(app).employees;
  await store.upsertPage(c.org.id, randomUUID(), records, { writtenUpTo: await store.writeMark() });
  rows = records.map((r) => ({ id: r.id, employeeId: r.employeeId }));
});
afterAll(async () => app?.stop());

/** Months `from`..`to` (counted from 2020-01 = 0) of every employee, gross `gross(k)`. */
const months = (from: number, to: number, gross: (k: number) => number): PayMonthWrite[] =>
  rows.flatMap((r) =>
    Array.from({ length: to - from + 1 }, (_, j) => {
      const k = from + j;
      return { employeeRowId: r.id, employeeId: r.employeeId, month: { year: 2020 + Math.floor(k / 12), month: (k % 12) + 1, grossPay: gross(k) } };
    }),
  );
const count = async () => (await dbQuery(app, `select count(*)::int as n from pay_months where org_id = $1`, [c.org.id])).rows[0].n as number;

describe('pay month writes of a payroll page', () => {
  it('stores more months than one statement carries, reports corrections exactly, trims past 36', async () => {
    const store = createPayMonthStore(testPool(app.ctx), app.ctx.cipher, randomBytes(32));
    const guard = { writtenUpTo: await storesOf(app).employees.writeMark() };
    const first = months(0, 29, () => 100);
    expect(first.length).toBeGreaterThan(2 * PAY_WRITE_CHUNK);
    const recorded = await store.record(c.org.id, first, undefined, guard);
    expect(recorded.length).toBe(first.length);
    expect(recorded.every((r) => !r.correction)).toBe(true);
    expect(await count()).toBe(first.length);

    // Months 0..14 changed, 15..29 equal: only the changed ones are corrections; equal rows untouched.
    const before = (await dbQuery(app, `select max(recorded_at) as at from pay_months where org_id = $1 and year * 12 + month - 1 - 24240 >= 15`, [c.org.id]))
      .rows;
    const again = await store.record(
      c.org.id,
      months(0, 29, (k) => (k < 15 ? 200 : 100)),
      undefined,
      guard,
    );
    expect(again.length).toBe(EMPLOYEES * 15);
    expect(again.every((r) => r.correction && r.year * 12 + r.month - 1 - 2020 * 12 < 15)).toBe(true);
    expect(
      (await dbQuery(app, `select max(recorded_at) as at from pay_months where org_id = $1 and year * 12 + month - 1 - 24240 >= 15`, [c.org.id])).rows,
    ).toStrictEqual(before);

    // Ten newer months: the newest 36 are kept (months 4..39), and months 0..3 go.
    const newer = await store.record(
      c.org.id,
      months(30, 39, () => 300),
      undefined,
      guard,
    );
    expect(newer.length).toBe(EMPLOYEES * 10);
    expect(await count()).toBe(EMPLOYEES * PAY_MONTHS_KEPT);
    const oldest = await store.latestPayMonths(c.org.id, rows[0]!.id, 36);
    expect(oldest.at(-1)).toMatchObject({ year: 2020, month: 5, grossPay: 200 });
    expect(oldest[0]).toMatchObject({ year: 2023, month: 4, grossPay: 300 });
  });
});
