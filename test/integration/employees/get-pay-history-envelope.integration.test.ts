/**
 * The pay envelope (employees/pay-envelope.ts, docs/pay-history.md "What is kept") stays what the
 * pay months say, on a real PostgreSQL: after new months, a correction, a trim past 36 and a
 * month the sync's guard leaves to the webhook, the envelope's `n` newest months equal those read
 * from `pay_months` for every `n`; an employee whose months were written before envelopes existed
 * is read from `pay_months` over HTTP and gets an envelope of all its months at its next write;
 * concurrent writes of one employee's months each merge into the other's (none lost); and the
 * envelope is bound to its employee row (another row's cannot be opened as its own).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../../src/domain/record';
import { newestMonthsJson, openPayEnvelope, PAY_POINTS, projectPayMonth } from '../../../src/employees/pay-envelope';
import { createPayMonthStore, type PayMonthStore, type PayMonthWrite } from '../../../src/employees/pay-months';
import { dbQuery, storesOf, testPool } from '../../support/db';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
let c: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;
let rows: { id: string; employeeId: string }[];

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  c = await f.client(app.ctx);
  v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  const records = Array.from({ length: 4 }, (_, i) => normalizeRecord({ employeeId: `PE${i}` }, randomUUID()));
  const store = storesOf(app).employees;
  await store.upsertPage(c.org.id, randomUUID(), records, { writtenUpTo: await store.writeMark() });
  rows = records.map((r) => ({ id: r.id, employeeId: r.employeeId }));
});
afterAll(async () => app?.stop());

let store: PayMonthStore | undefined;
/** A pay month store over the test's pool and the app's cipher (the digest key is the test's own). */
const payMonths = () => (store ??= createPayMonthStore(testPool(app.ctx), app.ctx.cipher, randomBytes(32)));

/** Month `k` (counted from 2022-01 = 0) of `row`, gross `gross`. */
const month = (row: { id: string; employeeId: string }, k: number, gross: number): PayMonthWrite => ({
  employeeRowId: row.id,
  employeeId: row.employeeId,
  month: { year: 2022 + Math.floor(k / 12), month: (k % 12) + 1, grossPay: gross, netPay: gross - 1000, paidOn: '2024-01-31', basic: gross / 2 },
});

/** The stored envelope of `row`, opened (null when there is none, or it is not built). */
async function envelopeText(row: { id: string }): Promise<string | null> {
  const r = (await dbQuery(app, `select value_enc from pay_envelopes where employee_row_id = $1`, [row.id])).rows[0] as
    { value_enc: string | null } | undefined;
  return r?.value_enc ? openPayEnvelope(app.ctx.cipher, r.value_enc, c.org.id, row.id) : null;
}

/** Expects `row`'s envelope to serve, for every `n`, exactly the `n` newest months of `pay_months`. */
async function expectEnvelopeMatchesMonths(row: { id: string }): Promise<void> {
  const text = await envelopeText(row);
  expect(text).not.toBeNull();
  for (const n of [1, 2, 11, 12, 13, 35, 36]) {
    const stored = await payMonths().latestPayMonths(c.org.id, row.id, n);
    expect(JSON.parse(newestMonthsJson(text!, n))).toStrictEqual(stored.map((m) => projectPayMonth(m, PAY_POINTS)));
  }
}

const history = (employeeId: string, months: number) =>
  call(`${app.url}/api/employee_details/${employeeId}/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}&months=${months}`, {
    headers: { username: v.apiKey },
  });

describe('the pay envelope', () => {
  it('equals the pay months after new months, a correction, a trim past 36 and a month the guard leaves alone', async () => {
    const [a] = rows;
    await payMonths().record(
      c.org.id,
      Array.from({ length: 14 }, (_, k) => month(a!, k, 100_000 + k)),
    );
    await expectEnvelopeMatchesMonths(a!);
    const corrected = await payMonths().record(c.org.id, [month(a!, 5, 7)]);
    expect(corrected).toMatchObject([{ correction: true }]);
    await expectEnvelopeMatchesMonths(a!);
    expect(
      JSON.parse(newestMonthsJson((await envelopeText(a!))!, 36)).find((m: { month: number; year: number }) => m.year === 2022 && m.month === 6),
    ).toMatchObject({
      grossPay: 7,
    });
    // 30 newer months: 44 in all, the 36 newest kept (months 8..43), in the envelope too.
    await payMonths().record(
      c.org.id,
      Array.from({ length: 30 }, (_, k) => month(a!, 14 + k, 200_000 + k)),
    );
    await expectEnvelopeMatchesMonths(a!);
    expect(JSON.parse(newestMonthsJson((await envelopeText(a!))!, 40))).toHaveLength(36);
    // The webhook writes month 43 after a sync's mark: the sync's value is dropped, the envelope keeps the webhook's.
    const guard = { writtenUpTo: await storesOf(app).employees.writeMark() };
    await payMonths().record(c.org.id, [month(a!, 43, 999)]);
    expect(await payMonths().record(c.org.id, [month(a!, 43, 1), month(a!, 42, 2)], undefined, guard)).toHaveLength(1);
    await expectEnvelopeMatchesMonths(a!);
    expect(JSON.parse(newestMonthsJson((await envelopeText(a!))!, 2))).toMatchObject([{ grossPay: 999 }, { grossPay: 2 }]);
  });

  it('months written before envelopes existed: read from pay_months, and built whole at the next write', async () => {
    const b = rows[1]!;
    await payMonths().record(
      c.org.id,
      Array.from({ length: 20 }, (_, k) => month(b, k, 300_000 + k)),
    );
    const withEnvelope = await history(b.employeeId, 36);
    expect(withEnvelope.status).toBe(200);
    // As a row of before the envelopes: none.
    await dbQuery(app, `delete from pay_envelopes where employee_row_id = $1`, [b.id]);
    const without = await history(b.employeeId, 36);
    expect(without.status).toBe(200);
    expect((without.body as { data: { months: unknown[] } }).data.months).toHaveLength(20);
    expect((without.body as { data: unknown }).data).toStrictEqual((withEnvelope.body as { data: unknown }).data);
    await payMonths().record(c.org.id, [month(b, 20, 1)]);
    await expectEnvelopeMatchesMonths(b);
    expect(JSON.parse(newestMonthsJson((await envelopeText(b))!, 36))).toHaveLength(21);
    const after = await history(b.employeeId, 12);
    expect((after.body as { data: { months: { grossPay: number }[] } }).data.months.map((m) => m.grossPay)).toStrictEqual([
      1,
      ...Array.from({ length: 11 }, (_, k) => 300_019 - k),
    ]);
  });

  it('concurrent writes of one employee each merge into the other: no month is lost', async () => {
    const d = rows[2]!;
    await Promise.all(Array.from({ length: 24 }, (_, k) => payMonths().record(c.org.id, [month(d, k, 400_000 + k)])));
    await expectEnvelopeMatchesMonths(d);
    expect(JSON.parse(newestMonthsJson((await envelopeText(d))!, 36))).toHaveLength(24);
  });

  it("is bound to its employee row: another row's envelope does not open as its own", async () => {
    const [a, , , e] = rows;
    await payMonths().record(c.org.id, [month(e!, 0, 1)]);
    await dbQuery(app, `update pay_envelopes set value_enc = (select value_enc from pay_envelopes where employee_row_id = $1) where employee_row_id = $2`, [
      a!.id,
      e!.id,
    ]);
    await expect(envelopeText(e!)).rejects.toThrow();
    expect((await history(e!.employeeId, 12)).status).toBe(500);
  });
});
