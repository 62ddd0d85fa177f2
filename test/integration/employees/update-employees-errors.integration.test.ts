/**
 * The employee update webhook's error rows (docs/errors.md, docs/behaviour.md "Failed authentications", docs/api.md "Employee update webhook") with exact bodies: the client
 * org's Basic credential (missing, wrong, unknown, vendor-only), validation failures naming the
 * first bad field (unknown field, wrong type, batch size, unstorable text), all or nothing for an
 * array with one bad record, and BOLA: a client org's credential reaches only its own employees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEmployee } from '../../../src/employees/codec';
import { checkAppCredentials } from '../../../src/orgs/app-credentials';
import { call, medianMs, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid, plain } from '../../support/expect-error';
import { dbQuery, storesOf } from '../../support/db';

let app: TestApp;
let a: Awaited<ReturnType<typeof f.client>>;
let b: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;
let aEmployee: { id: string };

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  a = await f.client(app.ctx, 'Employer A');
  b = await f.client(app.ctx, 'Employer B');
  v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, a.org.uuid);
  await f.connection(app.ctx, v.org.uuid, b.org.uuid);
  aEmployee = (await f.employees(app.ctx, a.org.id, [{ employeeId: 'E1', name: 'Meera Iyer' }]))[0]!;
});
afterAll(async () => app?.stop());

const URL_PATH = '/api/webhook/v1/employee/update/';
const post = (body: unknown, headers: Record<string, string>) =>
  call(`${app.url}${URL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const asA = (body: unknown) => post(body, { authorization: f.appBasic(a) });
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const readAs = (client: { org: { uuid: string } }, id: string) =>
  call(`${app.url}/api/employee_details/${id}?org=${client.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
const rowsOf = async (orgId: number) =>
  (await dbQuery(app, `select id, employee_id, record_enc, masked_enc, updated_at from employees where org_id = $1 order by employee_id`, [orgId])).rows.map(
    (x) => ({ ...x, record: decodeEmployee({ id: x.id, employeeId: x.employee_id, recordEnc: x.record_enc }, orgId, app.ctx.cipher) }),
  );
const auditCount = async (orgId: number) =>
  (await dbQuery(app, `select count(*)::int as n from audit_log where actor_org_id = $1 and action = 'employee.update'`, [orgId])).rows[0].n as number;

describe('employee update webhook: errors and credentials', () => {
  describe('credentials (docs/api.md "Credentials")', () => {
    const body = { employeeId: 'E1', name: 'Changed' };

    it('401 Authentication credentials were not provided. without an Authorization header', async () => {
      expectError(await post(body, {}), 401, plain('Authentication credentials were not provided.'));
      expectError(await post(body, { authorization: '  ' }), 401, plain('Authentication credentials were not provided.'));
      // Credentials come before the body: a malformed body without them is still a 401.
      expectError(await post('{"employeeId":', {}), 401, plain('Authentication credentials were not provided.'));
    });

    it('401 Invalid token. for a wrong secret, an unknown app key, a malformed or non-Basic value', async () => {
      const invalidToken = plain('Invalid token.');
      expectError(await post(body, { authorization: basic(a.org.appKey, `${a.appSecret}x`) }), 401, invalidToken);
      expectError(await post(body, { authorization: basic(a.org.appKey, b.appSecret) }), 401, invalidToken);
      expectError(await post(body, { authorization: basic('app_unknown', a.appSecret) }), 401, invalidToken);
      expectError(await post(body, { authorization: basic(a.org.appKey, '') }), 401, invalidToken);
      expectError(await post(body, { authorization: `Basic ${Buffer.from(a.org.appKey).toString('base64')}` }), 401, invalidToken);
      expectError(await post(body, { authorization: 'Basic %%%' }), 401, invalidToken);
      expectError(await post(body, { authorization: v.apiKey }), 401, invalidToken);
      expectError(await post(body, { authorization: `Bearer ${a.appSecret}` }), 401, invalidToken);
    });

    it("401 Invalid token. for a vendor-only org's own application credentials", async () => {
      expectError(await post(body, { authorization: f.appBasic(v) }), 401, plain('Invalid token.'));
    });

    it('nothing was written by any refused request', async () => {
      expect((await rowsOf(a.org.id)).map((r) => r.record.name)).toEqual(['Meera Iyer']);
      expect(await auditCount(a.org.id)).toBe(0);
    });

    it('an unknown app key costs the same slow hash as a known one (no timing oracle)', async () => {
      const orgs = storesOf(app).orgs;
      expect(await checkAppCredentials(orgs, a.org.appKey, a.appSecret)).toMatchObject({ id: a.org.id });
      expect(await checkAppCredentials(orgs, 'app_unknown', a.appSecret)).toBeNull();
      const known = await medianMs(() => checkAppCredentials(orgs, a.org.appKey, 'wrong'));
      const unknown = await medianMs(() => checkAppCredentials(orgs, 'app_unknown', 'wrong'));
      // Without keyed-hash peppers (this direct call passes none) every check is scrypt: ~20 ms
      // dominates both; without the decoy hash an unknown key would answer in ~1 ms. With them,
      // both are cheap alike: auth-failures.integration.test.ts.
      expect(unknown).toBeGreaterThan(known * 0.5);
    });
  });

  describe('validation failures (docs/api.md "Conventions", docs/api.md "Employee update webhook")', () => {
    it('400 naming an unknown field, at the top or nested', async () => {
      expectError(await asA({ employeeId: 'E1', salary: 5 }), 400, invalid('salary', 'unknown field'));
      expectError(await asA({ employeeId: 'E1', bankDetails: { iban: 'DE00' } }), 400, invalid('bankDetails.iban', 'unknown field'));
      expectError(await asA({ employeeId: 'E1', dependentDetails: [{ name: 'A', age: 3 }] }), 400, invalid('dependentDetails.0.age', 'unknown field'));
    });

    it('400 naming a field of the wrong type, or a missing employeeId', async () => {
      expectError(await asA({ employeeId: 'E1', salaryDetails: { ctc: { basic: '600000' } } }), 400, invalid('salaryDetails.ctc.basic', 'must be a number'));
      expectError(await asA({ employeeId: 'E1', name: 42 }), 400, invalid('name', 'must be a string'));
      expectError(await asA({ employeeId: 'E1', dependentDetails: { name: 'A' } }), 400, invalid('dependentDetails', 'must be an array'));
      expectError(await asA({ employeeId: 'E1', doj: '01/02/2020' }), 400, invalid('doj', 'must be a date YYYY-MM-DD'));
      expectError(await asA({ name: 'No Id' }), 400, invalid('employeeId', 'required'));
      expectError(await asA({ employeeId: ' ' }), 400, invalid('employeeId', 'required'));
      expectError(await asA({ employeeId: 'E1', name: 'A\u0000' }), 400, invalid('name', 'must not contain NUL characters'));
      expectError(await asA('"E1"'), 400, invalid('body', 'must be an object'));
      expectError(await asA(''), 400, invalid('body', 'required'));
    });

    it('400 for an empty array or one over 1,000 records', async () => {
      const many = Array.from({ length: 1001 }, (_, i) => ({ employeeId: `B${i}` }));
      expectError(await asA(many), 400, invalid('body', 'must hold 1 to 1000 employee records'));
      expectError(await asA([]), 400, invalid('body', 'must hold 1 to 1000 employee records'));
      expect((await rowsOf(a.org.id)).length).toBe(1);
    });

    it('400 Malformed JSON body and 415 Unsupported media type', async () => {
      expectError(await asA('{"employeeId":'), 400, { code: 400, message: 'Malformed JSON body', data: null });
      expectError(
        await post('employeeId=E1', { authorization: f.appBasic(a), 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        plain('Unsupported media type'),
      );
    });

    it('writes nothing when one record of an array is invalid (all or nothing)', async () => {
      const before = await rowsOf(a.org.id);
      const res = await asA([
        { employeeId: 'E1', name: 'Should Not Stick' },
        { employeeId: 'NEW1', name: 'Should Not Exist' },
        { employeeId: 'NEW2', pan: 1234 },
        { employeeId: 'NEW3', mobile: '9' },
      ]);
      expectError(res, 400, {
        code: 400,
        message: '2.pan: must be a string',
        data: {
          errors: [
            { field: '2.pan', message: 'must be a string' },
            { field: '3.mobile', message: 'unknown field' },
          ],
        },
      });
      expect(await rowsOf(a.org.id)).toEqual(before);
      expect((await readAs(a, 'E1')).body.data.name).toBe('Meera Iyer');
      expect((await readAs(a, 'NEW1')).status).toBe(404);
      expect(await auditCount(a.org.id)).toBe(0);
    });
  });
});

describe('employee update webhook: BOLA and routing', () => {
  describe("BOLA: a client org's credential reaches only its own org", () => {
    it("B posting A's employeeId creates B's own employee and leaves A's untouched", async () => {
      const aBefore = await rowsOf(a.org.id);
      const res = await post({ employeeId: 'E1', name: 'Hijacker', pan: 'ZZZPZ9999Z' }, { authorization: f.appBasic(b) });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ employeeId: 'E1', updated_fields: ['name', 'pan'] });
      expect(res.body.data.id).not.toBe(aEmployee.id);
      expect(await rowsOf(a.org.id)).toEqual(aBefore);
      expect((await readAs(a, 'E1')).body.data).toMatchObject({ id: aEmployee.id, name: 'Meera Iyer', pan: 'NOT AVAILABLE' });
      expect((await readAs(b, 'E1')).body.data).toMatchObject({ id: res.body.data.id, name: 'Hijacker' });
    });

    it("A's store id is just another employeeId to B", async () => {
      const res = await post({ employeeId: aEmployee.id, name: 'By Store Id' }, { authorization: f.appBasic(b) });
      expect(res.status).toBe(200);
      expect(res.body.data.id).not.toBe(aEmployee.id);
      expect((await rowsOf(a.org.id)).map((r) => r.record.name)).toEqual(['Meera Iyer']);
      expect((await readAs(a, aEmployee.id)).body.data.name).toBe('Meera Iyer');
      // B's audit entries name B's writes only.
      const audit = await dbQuery(app, `select distinct client_org_id from audit_log where action = 'employee.update'`);
      expect(audit.rows).toEqual([{ client_org_id: b.org.id }]);
    });
  });

  it('405 for another method; the path without its trailing slash is the same route', async () => {
    expectError(await call(`${app.url}${URL_PATH}`, { headers: { authorization: f.appBasic(a) } }), 405, plain('Method "GET" not allowed.'));
    const res = await call(`${app.url}${URL_PATH.slice(0, -1)}`, {
      method: 'POST',
      headers: { authorization: f.appBasic(a), 'content-type': 'application/json' },
      body: JSON.stringify({ employeeId: 'E1' }),
    });
    expect(res.body).toEqual({
      requestId: res.headers.get('x-request-id'),
      message: 'success',
      data: { employeeId: 'E1', id: aEmployee.id, updated_fields: [] },
    });
  });
});
