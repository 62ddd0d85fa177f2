/**
 * No personal data, secret or SQL bound value in any log line, at any level (docs/privacy.md).
 * One hrx (API and sync worker) logs at `debug` into this test's memory; the test seeds known
 * personal data and credentials (names, e-mails, PAN, Aadhaar, bank account, app_key,
 * app_secret, API key, HRMS client secret, SDK token), exercises the main endpoints with them:
 * setup-config and a sync from the simulator (whose employees' PAN, Aadhaar and e-mails join the
 * list), the update webhook, stored and live reads, consent, the SDK token, org details, the
 * NUL-byte requests that used to be 500s with the whole SQL statement in the log, and a forced
 * database error (a table renamed away) that is a 500 through the router's error handler; then
 * asserts that no seeded value appears in any line, and that the lines expected are there (so a
 * silent logger cannot pass).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';

const simCreds = { clientId: 'pii-client', clientSecret: 'pii-hrms-secret-Zq81vT' };

const PERSON = {
  name: 'Meera Lakshmi Krishnan',
  email: 'meera.krishnan.pii@example.in',
  pan: 'BQKPK4821M',
  aadhar: '482915736204',
  accountNumber: '50100492837465',
  mobileNumber: '9845012377',
};

describe('logs hold no personal data, secrets or SQL values (docs/privacy.md)', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const lines: string[] = [];
  const seeded: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    app = await startTestApp({ env: { LOG_LEVEL: 'debug' }, logStream: sink });
    sim = await startSim({ employees: 12, ...simCreds });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  it('a run over the main endpoints, error paths included, logs none of the seeded values', async () => {
    expect(app.config.LOG_LEVEL).toBe('debug');
    const v = await f.vendor(app.ctx, 'Vendor Pii Lending');
    const c = await f.client(app.ctx, 'Client Pii Employer');
    await f.connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true, consentRequired: true });
    seeded.push(v.apiKey, c.appSecret, c.org.appKey, simCreds.clientSecret, ...Object.values(PERSON));

    // The simulator's own employees: their identifiers become seeded values too.
    const token = await call(`${sim.url}/oauth/token`, {
      method: 'POST',
      body: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${simCreds.clientId}:${simCreds.clientSecret}`).toString('base64')}`,
      },
    });
    const page = await call(`${sim.url}/api/v1/employees?page=1&per_page=12`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    for (const e of page.body.employees as { pan_number: string; aadhaar_number: string; official_email: string; mobile: string }[]) {
      seeded.push(e.pan_number, e.aadhaar_number, e.official_email, e.mobile);
    }
    sim.control.resetStats();

    const json = (path: string, body: unknown, headers: Record<string, string>) =>
      call(`${app.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const basic = { authorization: f.appBasic(c) };

    // setup-config (and a wrong secret), then the sync it queues.
    expect((await json('/api/webhook/v1/setup-config/', { ...f.setupBody(c, sim, simCreds), client_secret: 'x' + c.appSecret }, {})).status).toBe(401);
    expect((await json('/api/webhook/v1/setup-config/', f.setupBody(c, sim, simCreds), {})).status).toBe(200);
    await waitFor(async () => (await dbQuery(app, `select 1 from sync_runs where org_id = $1 and status = 'succeeded'`, [c.org.id])).rowCount, 60_000);

    // The update webhook with a person's values; stored and live reads; consent.
    const upd = await json(
      '/api/webhook/v1/employee/update/',
      { employeeId: 'PII1', name: PERSON.name, pan: PERSON.pan, aadhar: PERSON.aadhar, mobileNumber: PERSON.mobileNumber },
      basic,
    );
    expect(upd.status).toBe(200);
    const read = (id: string, extra = '') =>
      call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}${extra}`, { headers: { username: v.apiKey } });
    expect((await read('PII1')).status).toBe(403);
    const consent = (over: Record<string, unknown> = {}) =>
      json(
        '/api/v1/employee/consent-data/',
        {
          org: c.org.uuid,
          employee_id: 'PII1',
          consent_language: `I, ${PERSON.name}, agree to share my data`,
          consent_timestamp: new Date().toISOString(),
          consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
          ...over,
        },
        { authorization: v.apiKey },
      );
    expect((await consent()).status).toBe(200);
    expect((await read('PII1')).status).toBe(200);
    expect((await read('EMP00001', '&source=hrms')).status).toBe(403);

    // The NUL-byte requests that were 500s logging whole statements.
    expect((await consent({ consent_language: `I, ${PERSON.name}\u0000` })).status).toBe(400);
    const sdk = (over: Record<string, unknown>) =>
      json('/api/sdk/token/', { email: PERSON.email, org_name: 'Pii Employer Two', fullname: PERSON.name, ...over }, { authorization: v.apiKey });
    expect((await sdk({ fullname: `${PERSON.name}\u0000` })).status).toBe(400);
    expect((await sdk({ remote_org_id: `${PERSON.pan}\u0000` })).status).toBe(400);
    expect((await json('/api/webhook/v1/setup-config/', { ...f.setupBody(c, sim, simCreds), client_id: `${c.org.appKey}\u0000` }, {})).status).toBe(400);
    const issued = await sdk({});
    expect(issued.status).toBe(200);
    seeded.push(issued.body.data.access_token);
    expect((await call(`${app.url}/api/org_details/${c.org.uuid}/`, { headers: { authorization: v.apiKey } })).status).toBe(200);
    expect(
      (await call(`${app.url}/api/employee_details/PII1?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: `${v.apiKey}x` } })).status,
    ).toBe(401);

    // A forced database error: the consents table renamed away for one request, a 500.
    await dbQuery(app, 'alter table consents rename to consents_away');
    try {
      const failed = await consent({ employee_id: 'PII1', consent_language: `Consent of ${PERSON.name} <${PERSON.email}> PAN ${PERSON.pan}` });
      expect(failed.status).toBe(500);
      expect(failed.body).toMatchObject({ message: 'Internal Server Error', data: null });
      expect(JSON.stringify(failed.body)).not.toContain(PERSON.pan);
    } finally {
      await dbQuery(app, 'alter table consents_away rename to consents');
    }
    // A driver error carrying SQL and values in its message, logged as the code does.
    const driverError = Object.assign(new Error(`insert into "orgs" ("email") values ('${PERSON.email}') - invalid byte sequence`), {
      code: '22021',
      name: 'DriverException',
    });
    app.ctx.log.error({ err: driverError, orgName: 'x' }, 'forced driver error');
    app.ctx.log.warn({ err: new Error(`duplicate key ${PERSON.aadhar}`, { cause: driverError }) }, 'forced wrapped error');

    await new Promise((r) => setTimeout(r, 200));
    // And no seeded value in any line (reported by kind and line number, never the value).
    expect(seeded.length).toBeGreaterThan(40);
    const leaks: string[] = [];
    lines.forEach((line, n) => {
      seeded.forEach((value, k) => {
        if (value && line.includes(value)) leaks.push(`line ${n} holds seeded value #${k}: ${JSON.parse(line).msg}`);
      });
      // SQL text at all is a leak too.
      if (/\b(insert into|select .* from|update .* set|delete from)\b/i.test(line)) leaks.push(`line ${n} holds SQL: ${JSON.parse(line).msg}`);
    });
    expect(leaks).toEqual([]);

    // The lines expected are there: the 500 by its SQLSTATE, the driver error by its code.
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, any>);
    const failedLine = parsed.find((l) => l.msg === 'request failed');
    expect(failedLine?.err).toMatchObject({ code: '42P01' });
    expect(parsed.find((l) => l.msg === 'forced driver error')?.err).toMatchObject({ name: 'DriverException', code: '22021' });
    expect(parsed.find((l) => l.msg === 'forced wrapped error')?.err).toMatchObject({ name: 'Error', cause: { code: '22021' } });
    expect(parsed.some((l) => l.msg === 'sync succeeded')).toBe(true);
    expect(lines.length).toBeGreaterThan(5);
  });
});
