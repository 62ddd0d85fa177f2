/**
 * V2's pay history (docs/v2.md "Pay history") over real HTTP, PostgreSQL and Redis: the claim
 * `resource: "pay_history"` (with `months`) answers `{pay_history, iat, jti}` sealed, the same
 * data as the plain pay history read; without `resource` the employee read as before; an unknown
 * `resource`, `months` out of 1..36 or `months` without `resource`: `400 Invalid encrypted
 * payload`. Through V2 too: the data-point filter (only `monthly_grossPay` shared: only that field;
 * no `monthly_*` point: `[]`), consent (403 without, 200 with), another vendor's connection and an
 * unknown employee (the V2 404s), and the audit entry. `hrx client employee --pay-history
 * [--months N]` prints the opened answer.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompactEncrypt, CompactSign, importJWK, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { hrxJson, runHrx } from '../../support/cli';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { consentBody } from '../../support/setups';

type V2Vendor = Awaited<ReturnType<typeof f.v2Vendor>>;
let app: TestApp;
let c: Awaited<ReturnType<typeof f.client>>;
/** Shares every data point. */
let v: V2Vendor;
let connV: string;
/** Shares only `monthly_grossPay` (and `name`). */
let gross: V2Vendor;
let connGross: string;
/** Shares no `monthly_*` point but month and year. */
let none: V2Vendor;
let connNone: string;
/** Consent required. */
let consented: V2Vendor;
let connConsented: string;
let jwks: JSONWebKeySet;

/** 14 months from 2025-01 to 2026-02, gross 100,000 + 1,000 × index. */
const HISTORY = Array.from({ length: 14 }, (_, i) => {
  const month = (i % 12) + 1;
  const year = 2025 + Math.floor(i / 12);
  return { month, year, grossPay: 100_000 + 1000 * i, netPay: 80_000 + 800 * i, paidOn: `${year}-${String(month).padStart(2, '0')}-28`, basic: 50_000 };
});

const encJwk = () => jwks.keys.find((k) => k.use === 'enc')!;
const post = (who: V2Vendor, payload: string) =>
  call(`${app.url}/api/external/employee/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: who.authorization },
    body: JSON.stringify({ encrypted_payload: payload }),
  });
const payRequest = (who: V2Vendor, connectionId: string, opts: { months?: number; employeeId?: string } = {}) =>
  buildEncryptedRequest({
    connectionId,
    employeeId: opts.employeeId ?? 'PAY1',
    resource: 'pay_history',
    ...(opts.months === undefined ? {} : { months: opts.months }),
    vendorPrivateKey: who.privateKey,
    vendorKid: who.kid,
    servicePublicJwk: encJwk(),
  });
/** A request with claims of the test's choosing (values the client helper would not build). */
async function rawRequest(who: V2Vendor, claims: Record<string, unknown>): Promise<string> {
  const t = Math.floor(Date.now() / 1000);
  const body = { connection_id: connV, employee_id: 'PAY1', iat: t - 5, exp: t + 115, jti: randomUUID(), ...claims };
  const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(body)))
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: who.kid })
    .sign(who.privateKey);
  const { kid, ...material } = encJwk();
  return new CompactEncrypt(new TextEncoder().encode(jws))
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid })
    .encrypt(await importJWK({ ...material, alg: 'RSA-OAEP-256' }, 'RSA-OAEP-256'));
}
/** The sealed answer of a 200, opened and verified as the vendor would. */
async function opened(res: Awaited<ReturnType<typeof post>>, who: V2Vendor) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return openEncryptedResponse({ data: res.body.data as string, vendorPrivateKey: who.privateJwk, serviceSigningJwks: jwks });
}
const plainHistory = async (who: V2Vendor, months: number) =>
  (
    await call(`${app.url}/api/employee_details/PAY1/pay_history/?org=${c.org.uuid}&vendor_org=${who.org.uuid}&months=${months}`, {
      headers: { username: who.apiKey },
    })
  ).body.data as Record<string, unknown>;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  c = await f.client(app.ctx);
  [v, gross, none, consented] = [await f.v2Vendor(app.ctx), await f.v2Vendor(app.ctx), await f.v2Vendor(app.ctx), await f.v2Vendor(app.ctx)];
  connV = (await f.connection(app.ctx, v.org.uuid, c.org.uuid)).id;
  connGross = (await f.connection(app.ctx, gross.org.uuid, c.org.uuid, { shared: ['name', 'monthly_grossPay'] })).id;
  connNone = (await f.connection(app.ctx, none.org.uuid, c.org.uuid, { shared: ['name', 'ctc_grossPay', 'monthly_month', 'monthly_year'] })).id;
  connConsented = (await f.connection(app.ctx, consented.org.uuid, c.org.uuid, { consentRequired: true })).id;
  const pushed = await call(`${app.url}/api/webhook/v1/employee/update/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: f.appBasic(c) },
    body: JSON.stringify({ employeeId: 'PAY1', name: 'Meera Pai', salaryHistory: HISTORY }),
  });
  expect(pushed.status).toBe(200);
  jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

describe('V2 pay history: the sealed answer', () => {
  it('resource pay_history, months 12: {pay_history, iat, jti} sealed, the same data as the plain read, newest first', async () => {
    const res = await post(v, await payRequest(v, connV, { months: 12 }));
    const body = await opened(res, v);
    expect(body.employee).toBeUndefined();
    expect(body.jti).toBe(res.headers.get('x-request-id'));
    const history = body.pay_history as { employeeId: string; as_of: string | null; months: Record<string, unknown>[] };
    expect(history).toStrictEqual(await plainHistory(v, 12));
    expect(history.months.map((m) => `${m.year as number}-${m.month as number}`)).toStrictEqual(
      HISTORY.slice(2)
        .reverse()
        .map((m) => `${m.year}-${m.month}`),
    );
    expect(history.months[0]).toMatchObject({ month: 2, year: 2026, grossPay: 113_000, netPay: 90_400, paidOn: '2026-02-28', basic: 50_000 });
  });

  it('months defaults to 12; months 36 answers all 14; months 1 the newest', async () => {
    const months = async (n?: number) =>
      ((await opened(await post(v, await payRequest(v, connV, n === undefined ? {} : { months: n })), v)).pay_history as { months: unknown[] }).months;
    expect(await months()).toHaveLength(12);
    expect(await months(36)).toHaveLength(14);
    expect(await months(1)).toStrictEqual([expect.objectContaining({ year: 2026, month: 2, grossPay: 113_000 })]);
  });

  it('without resource: the employee read as before, no pay_history', async () => {
    const req = await buildEncryptedRequest({
      connectionId: connV,
      employeeId: 'PAY1',
      vendorPrivateKey: v.privateKey,
      vendorKid: v.kid,
      servicePublicJwk: encJwk(),
    });
    const body = await opened(await post(v, req), v);
    expect(body).not.toHaveProperty('pay_history');
    expect(body.employee).toMatchObject({ employeeId: 'PAY1', name: 'Meera Pai' });
    expect(body.employee).not.toHaveProperty('months');
  });

  it('an unknown resource, months 0, 37, 1.5 or "12", months without resource: 400 Invalid encrypted payload', async () => {
    const refusals: Record<string, unknown>[] = [
      { resource: 'payslips' },
      { resource: 'employee' },
      { resource: 'pay_history', months: 0 },
      { resource: 'pay_history', months: 37 },
      { resource: 'pay_history', months: 1.5 },
      { resource: 'pay_history', months: '12' },
      { months: 12 },
    ];
    for (const claims of refusals) expectError(await post(v, await rawRequest(v, claims)), 400, plain('Invalid encrypted payload'));
    // The same builder with an accepted claim set answers 200 (the refusals above are the claims').
    expect((await post(v, await rawRequest(v, { resource: 'pay_history', months: 36 }))).status).toBe(200);
  });
});

describe('V2 pay history: filtering, consent and refusals as the plain read', () => {
  it('a connection sharing only monthly_grossPay sees only month, year and grossPay in every month', async () => {
    const history = (await opened(await post(gross, await payRequest(gross, connGross, { months: 36 })), gross)).pay_history as {
      months: Record<string, unknown>[];
    };
    expect(history.months).toHaveLength(14);
    for (const m of history.months) expect(Object.keys(m).sort()).toStrictEqual(['grossPay', 'month', 'year']);
    expect(history.months[0]).toStrictEqual({ month: 2, year: 2026, grossPay: 113_000 });
  });

  it('a connection sharing no monthly_* point gets months: []', async () => {
    const history = (await opened(await post(none, await payRequest(none, connNone)), none)).pay_history as { employeeId: string; months: unknown[] };
    expect(history).toMatchObject({ employeeId: 'PAY1', months: [] });
  });

  it('consent required: 403 without consent, the months once given, 403 once withdrawn', async () => {
    const missing = plain('Consent not found or expired');
    expectError(await post(consented, await payRequest(consented, connConsented)), 403, missing);
    const consent = consentBody(c.org.uuid, { employeeId: 'PAY1', language: 'I agree that my employer shares my pay.' });
    const give = await call(`${app.url}/api/v1/employee/consent-data/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: consented.apiKey },
      body: JSON.stringify(consent),
    });
    expect(give.status).toBe(200);
    const history = (await opened(await post(consented, await payRequest(consented, connConsented)), consented)).pay_history as { months: unknown[] };
    expect(history.months).toHaveLength(12);
    const revoke = await call(`${app.url}/api/v1/employee/consent-data/revoke/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: consented.apiKey },
      body: JSON.stringify({ org: c.org.uuid, employee_id: 'PAY1' }),
    });
    expect(revoke.status).toBe(200);
    expectError(await post(consented, await payRequest(consented, connConsented)), 403, missing);
  });

  it("another vendor's connection: 404 Invalid Connection ID; an unknown employee: 404 Employee not found", async () => {
    expectError(await post(gross, await payRequest(gross, connV)), 404, plain('Invalid Connection ID'));
    expectError(await post(v, await payRequest(v, connV, { employeeId: 'NOBODY' })), 404, plain('Employee not found'));
  });

  it('the read is audited as the plain pay history read: the monthly points served', async () => {
    const res = await post(gross, await payRequest(gross, connGross, { months: 2 }));
    expect(res.status).toBe(200);
    const audit = await dbQuery(app, 'select action, data_points from audit_log where request_id = $1', [res.headers.get('x-request-id')]);
    expect(audit.rows).toStrictEqual([{ action: 'employee.read', data_points: ['monthly_month', 'monthly_year', 'monthly_grossPay'] }]);
  });
});

describe('V2 pay history through the CLI', () => {
  const args = (keyFile: string, ...extra: string[]) => [
    'client',
    'employee',
    '--base-url',
    app.url,
    '--username',
    gross.username,
    `--password=${gross.password}`,
    '--key',
    keyFile,
    '--connection',
    connGross,
    '--employee',
    'PAY1',
    ...extra,
  ];

  it('hrx client employee --pay-history --months 3 prints {pay_history, iat, jti}, opened, verified and filtered', async () => {
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'hrx-v2-pay-')), 'vendor-private.json');
    writeFileSync(keyFile, JSON.stringify(gross.privateJwk));
    const out = await hrxJson(args(keyFile, '--pay-history', '--months', '3'), app.env);
    expect(Object.keys(out)).toStrictEqual(['pay_history', 'iat', 'jti']);
    expect(out.pay_history).toStrictEqual({
      employeeId: 'PAY1',
      as_of: null,
      months: [
        { month: 2, year: 2026, grossPay: 113_000 },
        { month: 1, year: 2026, grossPay: 112_000 },
        { month: 12, year: 2025, grossPay: 111_000 },
      ],
    });
    const refused = await runHrx(args(keyFile, '--months', '3'), app.env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--months needs --pay-history/);
    const outOfRange = await runHrx(args(keyFile, '--pay-history', '--months', '37'), app.env);
    expect(outOfRange.code).not.toBe(0);
  }, 60_000);
});
