/**
 * `POST /api/sdk/connect/hrms/` of a new org is no guessing tool (docs/connect.md "Lockout"):
 * credentials the HRMS refuses count toward the vendor/employer pair's lock like failed proofs of
 * control; five lock the pair for 15 minutes, after which the step is refused with `403 Proof of
 * control failed` without calling the HRMS. Every try is audited. Against the reference HRMS
 * simulator, which answers a wrong client secret with 401 and counts its token requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession, verifyEmail } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { startSim, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const creds = { clientId: 'hrms-lock', clientSecret: 'hrms-lock-secret-8c2' };
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 2, seed: 'hrms-lock', ...creds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const hrmsBody = (secret: string) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: secret, hrms_host: sim.url },
});
const refusedByHrms = { code: 400, message: 'HRMS credentials rejected: the HRMS refused the credentials', data: null };

/** A verified session of a brand-new employer org. */
async function newOrgSession(vendorName: string) {
  const v = await f.vendor(app.ctx, vendorName);
  const token = await f.sdkToken(app.ctx, v.org);
  const s = await openSession(app.url, token.access_token);
  await verifyEmail(app, s);
  return { v, s, orgUuid: token.org_id };
}

describe('POST /api/sdk/connect/hrms/ of a new org: failed credential checks lock the pair', () => {
  it('five refused secrets are 400s, the sixth is 403 without a token request at the HRMS, even with the right secret', async () => {
    const { s, orgUuid } = await newOrgSession('Guessing Lender');
    const tokens = () => sim.control.stats().tokenRequests;
    const before = tokens();
    for (let i = 1; i <= 5; i++) {
      expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(`guess-${i}`)), 400, refusedByHrms);
      expect(tokens()).toBe(before + i);
    }
    expectError(await connectCall(app.url, s, 'hrms/', hrmsBody('guess-6')), 403, plain('Proof of control failed'));
    expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(creds.clientSecret)), 403, plain('Proof of control failed'));
    expect(tokens()).toBe(before + 5);
    const view = await connectCall(app.url, s, '');
    const lockedFor = Date.parse(view.body.data.lock.locked_until as string) - Date.now();
    expect(lockedFor).toBeGreaterThan(14 * 60_000);
    expect(lockedFor).toBeLessThanOrEqual(15 * 60_000);
    expect(view.body.data.hrms.configured).toBeNull();
    const audit = await dbQuery(
      app,
      `select a.method, a.outcome from connect_proof_audit a join orgs o on o.id = a.client_org_id where o.uuid = $1 and a.method = 'hrms' order by a.at, a.id`,
      [orgUuid],
    );
    expect(audit.rows).toEqual([
      ...Array<object>(5).fill({ method: 'hrms', outcome: 'failed' }),
      ...Array<object>(2).fill({ method: 'hrms', outcome: 'locked' }),
    ]);
  });

  it("the lock is the pair's: a new token of the same vendor for the same org is refused too; another vendor is not", async () => {
    const { v, s } = await newOrgSession('Persistent Lender');
    for (let i = 1; i <= 5; i++) expect((await connectCall(app.url, s, 'hrms/', hrmsBody(`again-${i}`))).status).toBe(400);
    const email = (await connectCall(app.url, s, '')).body.data.user.email as string;
    const again = await openSession(app.url, (await f.sdkToken(app.ctx, v.org, { email })).access_token);
    const before = sim.control.stats().tokenRequests;
    expectError(await connectCall(app.url, again, 'hrms/', hrmsBody(creds.clientSecret)), 403, plain('Proof of control failed'));
    expect(sim.control.stats().tokenRequests).toBe(before);
    const other = await f.vendor(app.ctx, 'Other Lender');
    const otherSession = await openSession(app.url, (await f.sdkToken(app.ctx, other.org, { email })).access_token);
    await verifyEmail(app, otherSession);
    const res = await connectCall(app.url, otherSession, 'hrms/', hrmsBody(creds.clientSecret));
    expect(res.status).toBe(200);
    expect(res.body.data.hrms_id).toBe('reference');
  });

  it('a right secret after four refused ones stores the configuration and clears the count', async () => {
    const { v, s, orgUuid } = await newOrgSession('Clumsy Lender');
    for (let i = 1; i <= 4; i++) expect((await connectCall(app.url, s, 'hrms/', hrmsBody(`typo-${i}`))).status).toBe(400);
    const res = await connectCall(app.url, s, 'hrms/', hrmsBody(creds.clientSecret));
    expect(res.status).toBe(200);
    expect(res.body.data.org_id).toBe(orgUuid);
    const lock = await dbQuery(app, `select failures, locked_until from connect_proof_locks where vendor_org_id = $1`, [v.org.id]);
    expect(lock.rows).toEqual([{ failures: 0, locked_until: null }]);
    const audit = await dbQuery(app, `select outcome from connect_proof_audit where vendor_org_id = $1 and method = 'hrms' order by at, id`, [v.org.id]);
    expect(audit.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['failed', 'failed', 'failed', 'failed', 'configured']);
  });
});
