/**
 * `POST /api/credentials/employment/` (docs/credentials.md "Issuing"): an SD-JWT VC of the shared
 * data points, bound to the vendor's key, in a status list; audited as a read. Refusals: months
 * out of range, no registered key, and the plain read's errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { dbQuery } from '../../support/db';
import { expectError, invalid, plain } from '../../support/expect-error';
import { startTestApp, type TestApp } from '../../support/harness';
import { credentialWorld, issue, verifyOnApp } from '../../support/credentials';

let app: TestApp;
let w: Awaited<ReturnType<typeof credentialWorld>>;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  w = await credentialWorld(app.ctx);
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

describe('issuing a credential', () => {
  it('answers 201 with an SD-JWT VC that verifies, every claim a disclosure, bound to the vendor key', async () => {
    const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' });
    expect(res.status).toBe(201);
    const { credential_id, sd_jwt, exp } = res.body.data;
    const [jwt, ...disclosures] = (sd_jwt as string).split('~');
    expect(decodeProtectedHeader(jwt!)).toMatchObject({ typ: 'dc+sd-jwt', alg: 'ES256' });
    const payload = decodeJwt(jwt!);
    expect(payload).toMatchObject({
      iss: 'http://localhost',
      vct: 'http://localhost/vct/employment-income/v1',
      cnf: { jwk: { kty: 'RSA', n: w.v.publicJwk.n } },
    });
    expect(payload.status).toEqual({ status_list: { idx: expect.any(Number), uri: expect.stringMatching(/^http:\/\/localhost\/credentials\/status\/\d+$/) } });
    expect(payload).not.toHaveProperty('employee');
    expect(new Date(exp as string).getTime()).toBe((payload.exp as number) * 1000);
    expect((payload.exp as number) - (payload.iat as number)).toBe(30 * 86_400);
    expect(disclosures.filter(Boolean)).toHaveLength(4); // employer, employee, employment, pay (no sync: no as_of; no HRMS: no source)
    const verdict = await verifyOnApp(app.url, sd_jwt as string);
    expect(verdict.ok).toBe(true);
    if (!verdict.ok) return;
    expect(verdict.claims).toMatchObject({
      employer: { name: w.c.org.orgName, org_id: w.c.org.uuid },
      employee: { employee_id: 'E1', name: 'Asha Rao' },
      employment: { status: 'Active', doj: '2021-04-01', designation: 'Engineer', employment_type: 'Full Time' },
      pay: [{ year: 2026, month: 10, gross_pay: 91234, net_pay: null }],
    });
    const row = (await dbQuery(app, 'select vendor_org_id, employee_id, revoked_at from credentials where id = $1', [credential_id])).rows[0];
    expect(row).toEqual({ vendor_org_id: w.v.org.id, employee_id: 'E1', revoked_at: null });
    const audit = (await dbQuery(app, `select action from audit_log where request_id = $1`, [res.headers.get('x-request-id')])).rows;
    expect(audit).toEqual([{ action: 'employee.read' }]);
  });

  it('months 0 leaves pay out', async () => {
    const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E2', months: 0 });
    expect(res.status).toBe(201);
    const verdict = await verifyOnApp(app.url, res.body.data.sd_jwt as string);
    expect(verdict.ok && Object.keys(verdict.claims)).not.toContain('pay');
  });

  it('refuses months outside 0..12 with 400, and issues nothing', async () => {
    const before = (await dbQuery(app, 'select count(*)::int as n from credentials')).rows[0].n as number;
    for (const months of [13, -1, 2.5]) {
      const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1', months });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('months');
    }
    expect((await dbQuery(app, 'select count(*)::int as n from credentials')).rows[0].n).toBe(before);
  });

  it('refuses a vendor without a registered key with 409 No registered key', async () => {
    await dbQuery(app, 'update vendor_keys set revoked_at = now() where org_id = $1', [w.v.org.id]);
    try {
      await new Promise((r) => setTimeout(r, 5100)); // the vendor key cache's TTL
      expectError(await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' }), 409, plain('No registered key'));
    } finally {
      await dbQuery(app, 'update vendor_keys set revoked_at = null where org_id = $1', [w.v.org.id]);
    }
  });
});

export { invalid };
