/**
 * `POST /api/credentials/employment/` attacks (docs/credentials.md "Issuing"): another vendor's
 * org or employee, a pending or terminated connection, consent missing or withdrawn answer the
 * plain read's errors and issue nothing; data points the connection does not share never appear,
 * not as a claim, not as a disclosure, not in clear.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, connection, v2Vendor } from '../../support/factories';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { startTestApp, type TestApp } from '../../support/harness';
import { credentialWorld, issue, verifyOnApp } from '../../support/credentials';
import { consentBody, postConsent, postRevoke } from '../../support/setups';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

const count = async () => (await dbQuery(app, 'select count(*)::int as n from credentials')).rows[0].n as number;

/** Expects `res` to be the plain read's refusal and no credential to have been recorded. */
async function refused(res: Awaited<ReturnType<typeof issue>>, before: number, status: number, message: string, error?: string) {
  expectError(res, status, error ? { error, ...plain(message) } : plain(message));
  expect(await count()).toBe(before);
}

describe('the plain read errors, and nothing issued', () => {
  it("another vendor's org and employee, pending and terminated connections", async () => {
    const w = await credentialWorld(app.ctx);
    const stranger = await v2Vendor(app.ctx); // a key, but no connection with the client
    const before = await count();
    await refused(await issue(app.url, stranger.apiKey, { org: w.c.org.uuid, employee_id: 'E1' }), before, 404, 'Invalid Organisation ID');
    // Its own client, asking for an employee of another employer: unknown there.
    const own = await client(app.ctx);
    await connection(app.ctx, stranger.org.uuid, own.org.uuid);
    await refused(await issue(app.url, stranger.apiKey, { org: own.org.uuid, employee_id: 'E1' }), before, 404, 'Employee not found');
    await refused(await issue(app.url, stranger.apiKey, { org: 'not-a-uuid', employee_id: 'E1' }), before, 404, 'Invalid Organisation ID');

    const p = await v2Vendor(app.ctx);
    await connection(app.ctx, p.org.uuid, w.c.org.uuid, { status: 'pending' });
    await refused(await issue(app.url, p.apiKey, { org: w.c.org.uuid, employee_id: 'E1' }), before, 404, 'Invalid Organisation ID');

    await app.ctx.services.connections.terminate(w.v.org.id, w.c.org.uuid, 'test-terminate');
    await new Promise((r) => setTimeout(r, 2100)); // the connection access cache's TTL
    await refused(await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' }), before, 404, 'Invalid Organisation ID', 'connection_terminated');
  });

  it('consent required: none, then withdrawn', async () => {
    const w = await credentialWorld(app.ctx, { consentRequired: true });
    const before = await count();
    await refused(await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' }), before, 403, 'Consent not found or expired');
    expect((await postConsent(app.url, w.v.apiKey, consentBody(w.c.org.uuid, { employeeId: 'E1' }))).status).toBe(200);
    expect((await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' })).status).toBe(201);
    expect((await postRevoke(`${app.url}/api/v1/employee/consent-data/revoke/`, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' })).status).toBe(200);
    await refused(await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' }), before + 1, 403, 'Consent not found or expired');
  });
});

describe('unshared data points', () => {
  it('never appear as a claim, a disclosure or in clear', async () => {
    const w = await credentialWorld(app.ctx, { shared: ['name', 'status'] });
    const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1', months: 12 });
    expect(res.status).toBe(201);
    const sdJwt = res.body.data.sd_jwt as string;
    const verdict = await verifyOnApp(app.url, sdJwt);
    expect(verdict.ok).toBe(true);
    if (!verdict.ok) return;
    expect(verdict.claims).toMatchObject({ employee: { employee_id: 'E1', name: 'Asha Rao' }, employment: { status: 'Active' } });
    expect(Object.keys(verdict.claims.employment as object)).toEqual(['status']);
    expect(verdict.claims).not.toHaveProperty('pay');
    // Every part decoded: the JWT's header and payload and each disclosure.
    const [jwt, ...disclosures] = sdJwt.split('~');
    const clear = [...jwt!.split('.').slice(0, 2), ...disclosures.filter(Boolean)].map((p) => Buffer.from(p, 'base64url').toString('utf8')).join('\n');
    for (const secret of ['Engineer', '2021-04-01', 'Full Time', '91234', 'ABCDE1234F', 'gross_pay', 'designation', 'doj']) {
      expect(clear).not.toContain(secret);
      expect(sdJwt).not.toContain(Buffer.from(secret).toString('base64url'));
    }
    expect(clear).toContain('Asha Rao');
  });
});
