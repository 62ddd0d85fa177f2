/**
 * Request limits of docs/limits.md over HTTP: JSON nesting deeper than 32 and U+0000 in any text
 * (JSON strings and keys, form fields, query parameters) are 400 validation failures naming the
 * field, before anything is stored; an employee id with NUL in the path is 404 (it names no
 * employee); ids made only of dots are never looked up (live reads never reach the HRMS) and are
 * refused in bodies; live reads check consent before the HRMS is asked; `consent_expiry` is at
 * most 10 years after `consent_timestamp`; API responses are `no-store` and `nosniff`.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid, plain } from '../../support/expect-error';
import { dbQuery } from '../../support/db';

const simCreds = { clientId: 'limits-client', clientSecret: 'limits-secret-value-1f3' };
const NUL = 'must not contain NUL characters';

/** `{"k":{"k":...{"k":1}...}}` nested `levels` objects deep (built as text: no recursion). */
const nested = (levels: number, leaf = '1'): string => '{"k":'.repeat(levels - 1) + `{"k":${leaf}}` + '}'.repeat(levels - 1);
/** `{"k":[[...[]...]]}`: an object holding arrays, `levels` deep in all (1 byte a level: 200k fits in 1 MiB). */
const nestedArrays = (levels: number): string => `{"k":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

/**
 * A GET sent with its path exactly as given: fetch (WHATWG URL) would resolve `%2E` segments as
 * dot-segments before sending, an attacker's client does not.
 */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => {
        const h = new Headers();
        for (const [k, val] of Object.entries(res.headers)) if (typeof val === 'string') h.set(k, val);
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: h, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let v: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
let live: Awaited<ReturnType<typeof f.client>>;
let liveConsent: Awaited<ReturnType<typeof f.client>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 5, ...simCreds });
  v = await f.vendor(app.ctx);
  c = await f.client(app.ctx);
  live = await f.client(app.ctx);
  liveConsent = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await f.connection(app.ctx, v.org.uuid, live.org.uuid, { liveSource: true });
  await f.connection(app.ctx, v.org.uuid, liveConsent.org.uuid, { liveSource: true, consentRequired: true });
  for (const org of [live, liveConsent]) {
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(f.setupBody(org, sim, simCreds)),
    });
    expect(res.status).toBe(200);
  }
  await f.employees(app.ctx, c.org.id, [{ employeeId: 'E1', name: 'Stored One' }]);
  await f.employees(app.ctx, liveConsent.org.id, [{ employeeId: 'EMP00001' }, { employeeId: 'EMP00002' }]);
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const json = (path: string, body: string, headers: Record<string, string>) =>
  call(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
const update = (body: string) => json('/api/webhook/v1/employee/update/', body, { authorization: f.appBasic(c) });
const sdkToken = (body: string) => json('/api/sdk/token/', body, { authorization: v.apiKey });
const setup = (body: string) => json('/api/webhook/v1/setup-config/', body, {});
const consent = (body: Record<string, unknown>) => json('/api/v1/employee/consent-data/', JSON.stringify(body), { authorization: v.apiKey });
const read = (org: { org: { uuid: string } }, id: string, extra = '') =>
  call(`${app.url}/api/employee_details/${id}?org=${org.org.uuid}&vendor_org=${v.org.uuid}${extra}`, { headers: { username: v.apiKey } });
const tokenBody = (over: Record<string, unknown> = {}) => ({ email: 'hr@limits-corp.example', org_name: 'Limits Corp', fullname: 'Asha Rao', ...over });
const employeeCount = async (orgId: number) => Number((await dbQuery(app, 'select count(*) from employees where org_id = $1', [orgId])).rows[0].count);
const sdkTokenRows = async () => Number((await dbQuery(app, 'select count(*) from connections')).rows[0].count);

describe('request limits (docs/limits.md): JSON depth and NUL', () => {
  describe('JSON nesting depth 32', () => {
    it('64 and 200,000 levels in corporate_reference_data: 400 naming it, no token, no org, no connection', async () => {
      const before = await sdkTokenRows();
      for (const deep of [nested(64), nestedArrays(200_000)]) {
        const body = `{"email":"hr@limits-corp.example","org_name":"Deep Corp","fullname":"Asha Rao","corporate_reference_data":${deep}}`;
        expectError(await sdkToken(body), 400, invalid('corporate_reference_data', 'nested deeper than 32 levels'));
      }
      expect(await sdkTokenRows()).toBe(before);
      expect((await dbQuery(app, `select count(*) from orgs where org_name = 'Deep Corp'`)).rows[0].count).toBe('0');
      expect((await call(`${app.url}/healthz`)).status).toBe(200);
    });

    it('the update webhook: a deep record is 400 naming its index in a batch, or its field; nothing stored', async () => {
      const before = await employeeCount(c.org.id);
      expectError(await update(`[{"employeeId":"D1"},{"employeeId":"D2","name":${nestedArrays(200_000)}}]`), 400, invalid('1', 'nested deeper than 32 levels'));
      expectError(await update(`{"employeeId":"D3","salaryDetails":${nested(64)}}`), 400, invalid('salaryDetails', 'nested deeper than 32 levels'));
      // A whole body of deep arrays.
      expectError(await update('['.repeat(100_000) + ']'.repeat(100_000)), 400, invalid('0', 'nested deeper than 32 levels'));
      expectError(await update('{"a":1,' + '"b":'.repeat(1) + '['.repeat(40) + ']'.repeat(40) + '}'), 400, invalid('b', 'nested deeper than 32 levels'));
      expect(await employeeCount(c.org.id)).toBe(before);
    });

    it('32 levels pass the depth check (the schema then judges them), brackets inside strings do not count', async () => {
      // Depth 32 exactly: not a depth failure; corporate_reference_data is a loose object.
      const ok32 = `{"email":"hr@limits-corp.example","org_name":"Depth Ok","fullname":"Asha Rao","corporate_reference_data":${nested(31)}}`;
      expect((await sdkToken(ok32)).status).toBe(200);
      const deep33 = `{"email":"hr@limits-corp.example","org_name":"Depth Ok","fullname":"Asha Rao","corporate_reference_data":${nested(32)}}`;
      expectError(await sdkToken(deep33), 400, invalid('corporate_reference_data', 'nested deeper than 32 levels'));
      const brackets = JSON.stringify(tokenBody({ org_name: 'Depth Ok', corporate_reference_data: { unique_id: '{['.repeat(1000) + '\\"' } }));
      expect((await sdkToken(brackets)).status).toBe(200);
    });
  });

  describe('U+0000 in text', () => {
    it('consent_language, fullname, remote_org_id, setup-config client_id: 400 naming the field, nothing stored', async () => {
      const before = await sdkTokenRows();
      expectError(await sdkToken(JSON.stringify(tokenBody({ fullname: 'Asha\u0000Rao' }))), 400, invalid('fullname', NUL));
      expectError(await sdkToken(JSON.stringify(tokenBody({ remote_org_id: 'R\u00001' }))), 400, invalid('remote_org_id', NUL));
      expectError(
        await sdkToken(JSON.stringify(tokenBody({ corporate_reference_data: { unique_id: 'x', nested: ['ok', 'b\u0000'] } }))),
        400,
        invalid('corporate_reference_data.nested.1', NUL),
      );
      expect(await sdkTokenRows()).toBe(before);
      const consentBody = {
        org: c.org.uuid,
        employee_id: 'E1',
        consent_language: 'I agree\u0000',
        consent_timestamp: new Date().toISOString(),
        consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
      };
      expectError(await consent(consentBody), 400, invalid('consent_language', NUL));
      expect((await dbQuery(app, 'select count(*) from consents')).rows[0].count).toBe('0');
      const s = f.setupBody(c, sim, simCreds);
      expectError(await setup(JSON.stringify({ ...s, client_id: `${c.org.appKey}\u0000` })), 400, invalid('client_id', NUL));
      expectError(
        await setup(JSON.stringify({ ...s, access_credentials: { ...s.access_credentials, client_secret: 's\u0000' } })),
        400,
        invalid('access_credentials.client_secret', NUL),
      );
      expect((await dbQuery(app, 'select count(*) from hrms_configs where org_id = $1', [c.org.id])).rows[0].count).toBe('0');
    });

    it('an object key holding NUL is named with the NUL written \\u0000', async () => {
      expectError(await update(JSON.stringify({ employeeId: 'K1', 'na\u0000me': 'x' })), 400, invalid('na\\u0000me', NUL));
    });

    it('a form field and a query parameter holding NUL: 400 naming them', async () => {
      const form = await call(`${app.url}/api/terminate_connection/`, {
        method: 'POST',
        headers: { authorization: v.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
        body: `client_org=${c.org.uuid}%00`,
      });
      expectError(form, 400, invalid('client_org', NUL));
      expectError(
        await call(`${app.url}/api/employee_details/E1?org=${c.org.uuid}&vendor_org=${v.org.uuid}%00`, { headers: { username: v.apiKey } }),
        400,
        invalid('vendor_org', NUL),
      );
      expectError(await call(`${app.url}/api/vendor/connections/?status=approved%00`, { headers: { authorization: v.apiKey } }), 400, invalid('status', NUL));
      // The connection is still approved.
      expect((await read(c, 'E1')).status).toBe(200);
    });

    it('an employee id holding NUL in the path is 404 Employee not found (it names no employee), live too, HRMS not asked', async () => {
      sim.control.resetStats();
      expectError(await read(c, 'E1%00'), 404, plain('Employee not found'));
      expectError(await read(live, 'EMP00001%00', '&source=hrms'), 404, plain('Employee not found'));
      expect(sim.control.stats().employeeRequests).toBe(0);
    });
  });
});

describe('request limits (docs/limits.md): dot ids, live reads and consent', () => {
  describe('employee ids made only of dots', () => {
    it('a live read of `.` or `..` is 404 and never reaches the HRMS; the same read of a real id does (control)', async () => {
      sim.control.resetStats();
      for (const id of ['%2E', '%2E%2E', '...', '.', '..']) {
        const path = `/api/employee_details/${id}?org=${live.org.uuid}&vendor_org=${v.org.uuid}&source=hrms`;
        expectError(await rawGet(app.url, path, { username: v.apiKey }), 404, plain('Employee not found'));
      }
      expect(sim.control.stats()).toMatchObject({ employeeRequests: 0, pageRequests: 0 });
      const ok = await read(live, 'EMP00001', '&source=hrms');
      expect(ok.status).toBe(200);
      expect(ok.body.data.employeeId).toBe('EMP00001');
      expect(sim.control.stats().employeeRequests).toBe(1);
    });

    it('the update webhook and consent refuse them (400 naming the field)', async () => {
      expectError(await update(JSON.stringify({ employeeId: '..' })), 400, invalid('employeeId', 'must not be made only of dots'));
      expectError(await update(JSON.stringify([{ employeeId: 'OK1' }, { employeeId: ' . ' }])), 400, invalid('1.employeeId', 'must not be made only of dots'));
      expectError(
        await consent({
          org: c.org.uuid,
          employee_id: '.',
          consent_language: 'I agree',
          consent_timestamp: new Date().toISOString(),
          consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
        }),
        400,
        invalid('employee_id', 'must not be made only of dots'),
      );
    });
  });

  describe('consent before a live read', () => {
    it('without consent: 403 for a stored employee and for an unknown id alike, and the HRMS is not asked', async () => {
      sim.control.resetStats();
      expectError(await read(liveConsent, 'EMP00001', '&source=hrms'), 403, plain('Consent not found or expired'));
      expectError(await read(liveConsent, 'EMP00004', '&source=hrms'), 403, plain('Consent not found or expired'));
      expectError(await read(liveConsent, 'NOBODY', '&source=hrms'), 403, plain('Consent not found or expired'));
      expect(sim.control.stats()).toMatchObject({ employeeRequests: 0, tokenRequests: 0 });
    });

    it('with consent in force the live read is served from the HRMS (control)', async () => {
      const res = await consent({
        org: liveConsent.org.uuid,
        employee_id: 'EMP00002',
        consent_language: 'I agree',
        consent_timestamp: new Date().toISOString(),
        consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
      });
      expect(res.status).toBe(200);
      sim.control.resetStats();
      const ok = await read(liveConsent, 'EMP00002', '&source=hrms');
      expect(ok.status).toBe(200);
      expect(ok.body.data.employeeId).toBe('EMP00002');
      expect(sim.control.stats().employeeRequests).toBe(1);
    });
  });

  describe('consent_expiry at most 10 years after consent_timestamp', () => {
    const at = new Date();
    const years = (n: number, plusMs = 0) => {
      const d = new Date(at);
      d.setUTCFullYear(d.getUTCFullYear() + n);
      return new Date(d.getTime() + plusMs).toISOString();
    };
    const body = (expiry: string) => ({
      org: c.org.uuid,
      employee_id: 'E1',
      consent_language: 'I agree',
      consent_timestamp: at.toISOString(),
      consent_expiry: expiry,
    });

    it('10 years and one second: 400 naming consent_expiry, nothing stored; exactly 10 years: accepted', async () => {
      const before = (await dbQuery(app, 'select count(*) from consents')).rows[0].count;
      expectError(await consent(body(years(10, 1000))), 400, invalid('consent_expiry', 'must be at most 10 years after consent_timestamp'));
      expectError(await consent(body(years(100))), 400, invalid('consent_expiry', 'must be at most 10 years after consent_timestamp'));
      expect((await dbQuery(app, 'select count(*) from consents')).rows[0].count).toBe(before);
      expect((await consent(body(years(10)))).status).toBe(200);
    });
  });
});

describe('request limits (docs/limits.md): response headers', () => {
  describe('response headers', () => {
    it('JSON answers, success and error, personal data or not, are no-store and nosniff', async () => {
      const answers = [
        await read(c, 'E1'),
        await read(c, 'NOPE'),
        await call(`${app.url}/api/org_details/${c.org.uuid}/`, { headers: { authorization: v.apiKey } }),
        await call(`${app.url}/healthz`),
        await call(`${app.url}/no/such/path`),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 404, 200, 200, 404]);
      for (const r of answers) {
        expect(r.headers.get('cache-control')).toBe('no-store');
        expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });
  });
});
