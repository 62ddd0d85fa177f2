/**
 * The pay history read `GET /api/employee_details/{id}/pay_history/` (docs/pay-history.md "Read")
 * over real HTTP and PostgreSQL, fed by the update webhook's `salaryHistory`: 14 months pushed,
 * `months=12` the 12 newest newest first, `months=36` all 14; a correction replaces the month and
 * sends `employee.pay_recorded` with `correction: true` (verified with the `standardwebhooks`
 * package), an equal rewrite sends nothing; the data-point filter (only `monthly_grossPay`
 * shared: only that field; no `monthly_*` shared: `[]`); consent withdrawn: 403 as the plain read;
 * another vendor, an unknown org, an unknown employee: the plain read's 404s; `months` out of
 * range: 400 naming it; the audit entry. Values at rest: pay-history-at-rest.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { consentBody } from '../../support/setups';
import { startReceiver, type Receiver } from '../../support/receiver';

let app: TestApp;
let rx: Receiver;
let c: Awaited<ReturnType<typeof f.client>>;
/** Shares every data point, consent not required, listens for `employee.pay_recorded`. */
let v: Awaited<ReturnType<typeof f.vendor>>;
/** Shares only `monthly_grossPay` (and `name`). */
let gross: Awaited<ReturnType<typeof f.vendor>>;
/** Shares no `monthly_*` point; listens for `employee.pay_recorded` too (and must hear nothing). */
let none: Awaited<ReturnType<typeof f.vendor>>;
/** Consent required. */
let consented: Awaited<ReturnType<typeof f.vendor>>;
/** No connection with the client. */
let stranger: Awaited<ReturnType<typeof f.vendor>>;
let secret: string;

/** The 14 months from 2025-01 to 2026-02, gross 100,000 + 1,000 × index, net 80 % of it. */
const HISTORY = Array.from({ length: 14 }, (_, i) => {
  const month = (i % 12) + 1;
  const year = 2025 + Math.floor(i / 12);
  return { month, year, grossPay: 100_000 + 1000 * i, netPay: 80_000 + 800 * i, paidOn: `${year}-${String(month).padStart(2, '0')}-28`, basic: 50_000 };
});

const post = (path: string, body: unknown, authorization: string) =>
  call(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });
const update = (body: unknown) => post('/api/webhook/v1/employee/update/', body, f.appBasic(c));
const history = (who: { org: { uuid: string }; apiKey: string }, id: string, extra = '', org = c.org.uuid) =>
  call(`${app.url}/api/employee_details/${encodeURIComponent(id)}/pay_history/?org=${org}&vendor_org=${who.org.uuid}${extra}`, {
    headers: { username: who.apiKey },
  });
const read = (who: { org: { uuid: string }; apiKey: string }, id: string) =>
  call(`${app.url}/api/employee_details/${encodeURIComponent(id)}?org=${c.org.uuid}&vendor_org=${who.org.uuid}`, { headers: { username: who.apiKey } });

/** A received event verified as a vendor would, with the `standardwebhooks` package (throws on a bad signature). */
function verified(r: { body: string; headers: Record<string, string | string[] | undefined> }) {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));
  return new Webhook(secret).verify(r.body, headers) as { type: string; data: Record<string, unknown> };
}

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200' } });
  await app.startEventsWorker();
  rx = await startReceiver();
  c = await f.client(app.ctx);
  [v, gross, none, consented, stranger] = [
    await f.vendor(app.ctx),
    await f.vendor(app.ctx),
    await f.vendor(app.ctx),
    await f.vendor(app.ctx),
    await f.vendor(app.ctx),
  ];
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await f.connection(app.ctx, gross.org.uuid, c.org.uuid, { shared: ['name', 'monthly_grossPay'] });
  await f.connection(app.ctx, none.org.uuid, c.org.uuid, { shared: ['name', 'ctc_grossPay', 'monthly_month', 'monthly_year'] });
  await f.connection(app.ctx, consented.org.uuid, c.org.uuid, { consentRequired: true });
  secret = (await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/v'), events: ['employee.pay_recorded'] })).secret;
  await app.ctx.services.endpoints.add({ orgUuid: none.org.uuid, url: rx.url('/none'), events: ['employee.pay_recorded'] });
  expect((await update({ employeeId: 'PAY1', name: 'Meera Pai', salaryHistory: HISTORY })).status).toBe(200);
  await rx.waitForCount('/v', 14, 'employee.pay_recorded');
}, 90_000);
afterAll(async () => {
  await rx?.close();
  await app?.stop();
});

describe('pay history: months served', () => {
  it('months=12 answers the 12 newest, newest first, with netPay and paidOn; default is 12', async () => {
    const res = await history(v, 'PAY1', '&months=12');
    expect(res.status).toBe(200);
    const months = res.body.data.months as Record<string, unknown>[];
    expect(months.map((m) => `${m.year as number}-${m.month as number}`)).toStrictEqual(
      HISTORY.slice(2)
        .reverse()
        .map((m) => `${m.year}-${m.month}`),
    );
    expect(months[0]).toMatchObject({ month: 2, year: 2026, grossPay: 113_000, netPay: 90_400, paidOn: '2026-02-28', basic: 50_000, hra: null });
    expect(res.body.data).toMatchObject({ employeeId: 'PAY1', as_of: null });
    expect((await history(v, 'PAY1')).body.data.months).toStrictEqual(months);
  });

  it('months=36 answers all 14; the record id finds the same history', async () => {
    const res = await history(v, 'PAY1', '&months=36');
    expect(res.body.data.months).toHaveLength(14);
    expect(res.body.data.months.at(-1)).toMatchObject({ month: 1, year: 2025, grossPay: 100_000 });
    const id = (await read(v, 'PAY1')).body.data.id as string;
    expect((await history(v, id, '&months=36')).body.data.months).toStrictEqual(res.body.data.months);
  });

  it('each new month was announced to the vendor sharing pay, signed, without values; none to the vendor sharing no pay point', () => {
    const events = rx.at('/v').map(verified);
    expect(events.filter((e) => e.type === 'employee.pay_recorded').map((e) => e.data)).toContainEqual({
      client_org: c.org.uuid,
      employeeId: 'PAY1',
      year: 2026,
      month: 2,
      correction: false,
    });
    expect(rx.at('/v').some((r) => r.body.includes('113000'))).toBe(false);
    expect(rx.at('/none')).toStrictEqual([]);
  });

  it('a correction replaces the month and is announced with correction: true; an equal rewrite changes nothing', async () => {
    const before = rx.at('/v').length;
    const fixed = { ...HISTORY[13]!, grossPay: 113_500 };
    expect((await update({ employeeId: 'PAY1', salaryHistory: [fixed] })).status).toBe(200);
    const [event] = (await rx.waitForCount('/v', before + 1)).slice(before).map(verified);
    expect(event).toStrictEqual({
      type: 'employee.pay_recorded',
      timestamp: expect.any(String),
      data: { client_org: c.org.uuid, employeeId: 'PAY1', year: 2026, month: 2, correction: true },
    });
    const months = (await history(v, 'PAY1', '&months=36')).body.data.months as Record<string, unknown>[];
    expect(months).toHaveLength(14);
    expect(months[0]).toMatchObject({ month: 2, year: 2026, grossPay: 113_500 });
    expect((await update({ employeeId: 'PAY1', salaryHistory: [fixed] })).status).toBe(200);
    expect(await dbQuery(app, `select count(*)::int as n from events where type = 'employee.pay_recorded'`)).toMatchObject({ rows: [{ n: 15 }] });
  });

  it("the record's monthly records its month too", async () => {
    const monthly = { month: 3, year: 2026, grossPay: 114_000, netPay: 91_000 };
    expect((await update({ employeeId: 'PAY1', salaryDetails: { monthly } })).status).toBe(200);
    expect((await history(v, 'PAY1', '&months=1')).body.data.months).toMatchObject([monthly]);
  });
});

describe('pay history: the data-point filter and the audit', () => {
  it('a vendor sharing only monthly_grossPay sees month, year and grossPay in every month', async () => {
    const res = await history(gross, 'PAY1', '&months=36');
    expect(res.status).toBe(200);
    expect(res.body.data.months).toHaveLength(15);
    for (const m of res.body.data.months) expect(Object.keys(m).sort()).toStrictEqual(['grossPay', 'month', 'year']);
  });

  it('a vendor sharing no monthly_* point but month and year gets months: []', async () => {
    const res = await history(none, 'PAY1');
    expect(res.status).toBe(200);
    expect(res.body.data).toStrictEqual({ employeeId: 'PAY1', as_of: null, months: [] });
  });

  it('each read is audited with the pay points it served', async () => {
    const res = await history(gross, 'PAY1', '&months=2');
    const audit = await dbQuery(app, `select action, data_points from audit_log where request_id = $1`, [res.headers.get('x-request-id')]);
    expect(audit.rows).toStrictEqual([{ action: 'employee.read', data_points: ['monthly_month', 'monthly_year', 'monthly_grossPay'] }]);
  });
});

describe('pay history: refusals as the plain read', () => {
  it('consent required: none in force, then given, then withdrawn: 403, 200, 403', async () => {
    const missing = plain('Consent not found or expired');
    expectError(await history(consented, 'PAY1'), 403, missing);
    const consent = consentBody(c.org.uuid, { employeeId: 'PAY1', language: 'I agree that my employer shares my pay.' });
    expect((await post('/api/v1/employee/consent-data/', consent, consented.apiKey)).status).toBe(200);
    expect((await history(consented, 'PAY1')).body.data.months).toHaveLength(12);
    expect((await post('/api/v1/employee/consent-data/revoke/', { org: c.org.uuid, employee_id: 'PAY1' }, consented.apiKey)).status).toBe(200);
    expectError(await history(consented, 'PAY1'), 403, missing);
    expectError(await read(consented, 'PAY1'), 403, missing);
  });

  it('another vendor, an unknown org, an unknown employee: the 404s of the plain read', async () => {
    expectError(await history(stranger, 'PAY1'), 404, plain('Invalid Organisation ID'));
    expectError(await history(v, 'PAY1', '', '00000000-0000-4000-8000-000000000000'), 404, plain('Invalid Organisation ID'));
    expectError(await history(v, 'NOBODY'), 404, plain('Employee not found'));
    // The key's org must be vendor_org.
    expect(
      (await call(`${app.url}/api/employee_details/PAY1/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: stranger.apiKey } }))
        .status,
    ).toBe(401);
  });

  it('months 0, 37 and abc: 400 naming months', async () => {
    for (const m of ['0', '37', 'abc', '1.5']) {
      const res = await history(v, 'PAY1', `&months=${m}`);
      expect(res.status).toBe(400);
      expect(res.body.data.errors.map((e: { field: string }) => e.field)).toStrictEqual(['months']);
    }
  });
});

describe('salaryHistory: a bad item is a 400 naming it, and nothing of the request is written', () => {
  const good = { month: 6, year: 2024, grossPay: 1 };
  const cases: [string, unknown[], string][] = [
    ['a month outside 1..12', [good, { month: 13, year: 2024 }], 'salaryHistory.1.month'],
    ['a year before 1990', [{ month: 1, year: 1989 }], 'salaryHistory.0.year'],
    ['a year after next year', [good, good].map((g, i) => (i === 1 ? { month: 1, year: new Date().getUTCFullYear() + 2 } : g)), 'salaryHistory.1.year'],
    ['a duplicate (year, month)', [good, { month: 7, year: 2024 }, { ...good, grossPay: 2 }], 'salaryHistory.2.month'],
    ['a non-numeric amount', [{ ...good, grossPay: '12000' }], 'salaryHistory.0.grossPay'],
    ['a month missing', [{ year: 2024, grossPay: 5 }], 'salaryHistory.0.month'],
  ];
  for (const [what, items, field] of cases) {
    it(what, async () => {
      const res = await update({ employeeId: 'BAD1', name: 'Never Written', salaryHistory: items });
      expect(res.status).toBe(400);
      expect(res.body.data.errors.map((e: { field: string }) => e.field)).toStrictEqual([field]);
      expect((await dbQuery(app, `select count(*)::int as n from employees where employee_id = 'BAD1'`)).rows[0].n).toBe(0);
    });
  }

  it('more than 36 months is refused', async () => {
    const many = Array.from({ length: 37 }, (_, i) => ({ month: (i % 12) + 1, year: 2020 + Math.floor(i / 12) }));
    const res = await update({ employeeId: 'BAD1', salaryHistory: many });
    expect(res.status).toBe(400);
    expect(res.body.data.errors.map((e: { field: string }) => e.field)).toStrictEqual(['salaryHistory']);
  });
});
