/**
 * The squat that e-mail verification stops (docs/connect.md "What an e-mail code can set up"), over HTTP
 * against the real app, HRMS simulators and SMTP server: a vendor asks for a token naming
 * `anyone@acme…` (an address it does not read), and tries to give Acme's new org an HRMS of its
 * own. Without the code nothing is stored and nothing can be approved; guessing locks the pair
 * after five wrong codes (then even the right code is refused, unchecked); a code sent for
 * another session is refused; Acme's own admin, reading the mail, then sets the org up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid, plain } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail, type TestSession } from '../../support/connect';
import { dbQuery, storesOf } from '../../support/db';

const PROOF_FAILED = plain('Proof of control failed');
const VERIFY_FIRST = invalid('email', 'verify your e-mail address first: ask for a code and enter it');

let app: TestApp;
let evilSim: Awaited<ReturnType<typeof startSim>>;
let acmeSim: Awaited<ReturnType<typeof startSim>>;
const evil = { clientId: 'squatter', clientSecret: 'squatter-secret' };
const acme = { clientId: 'acme-hr', clientSecret: 'acme-hr-secret-77' };
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  [evilSim, acmeSim] = await Promise.all([startSim({ employees: 2, ...evil }), startSim({ employees: 3, ...acme })]);
});
afterAll(async () => {
  await evilSim?.close();
  await acmeSim?.close();
  await app?.stop();
});

const hrmsBody = (sim: { url: string }, c: { clientId: string; clientSecret: string }) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, hrms_host: sim.url },
});
const tokenFor = async (v: { apiKey: string }, email: string) => {
  const res = await call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, org_name: 'Acme', fullname: 'Whoever', data_model_flags: { detail_info_fields: { name: -1, pan: 1 } } }),
  });
  expect(res.status).toBe(200);
  return { token: res.body.data.access_token as string, orgUuid: res.body.data.org_id as string };
};
const orgIdOf = async (uuid: string) => Number((await dbQuery(app, `select id from orgs where uuid = $1`, [uuid])).rows[0].id);
const auditOf = async (vendorOrgId: number) =>
  (await dbQuery(app, `select method || ':' || outcome as a from connect_proof_audit where vendor_org_id = $1 order by id`, [vendorOrgId])).rows.map(
    (r) => r.a as string,
  );
const wrong = (code: string, i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

describe("a vendor cannot establish an employer's org without the e-mail code", () => {
  it('a token naming anyone@acme: no HRMS stored, no approval; five wrong codes lock the pair, then the right code is refused unchecked', async () => {
    const squatter = await f.vendor(app.ctx, 'Squatter Lending');
    const { token, orgUuid } = await tokenFor(squatter, 'anyone@acme-squat.example');
    const orgId = await orgIdOf(orgUuid);
    const s = await openSession(app.url, token);
    expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, evil)), 400, VERIFY_FIRST);
    expectError(
      await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }),
      400,
      invalid('hrms', 'enter the HRMS credentials before approving'),
    );
    // The code goes to Acme's mailbox, which the squatter does not read; it guesses.
    expect((await connectCall(app.url, s, 'email-code/', undefined)).body.data.sent_to).toBe('anyone@acme-squat.example');
    const real = await app.mailbox!.code('anyone@acme-squat.example');
    for (let i = 0; i < 5; i++) expectError(await connectCall(app.url, s, 'verify-email/', { code: wrong(real, i) }), 403, PROOF_FAILED);
    const view = (await connectCall(app.url, s, '')).body.data;
    expect(view.email_verification.verified).toBe(false);
    expect(Date.parse(view.lock.locked_until) - Date.now()).toBeGreaterThan(14 * 60_000);
    // Even the right code (say, seen later over a shoulder) is refused while the pair is locked.
    expectError(await connectCall(app.url, s, 'verify-email/', { code: real }), 403, PROOF_FAILED);
    expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, evil)), 403, PROOF_FAILED);
    expect(await storesOf(app).hrmsConfigs.load(orgId)).toBeNull();
    expect(evilSim.control.stats().tokenRequests).toBe(0);
    expect((await dbQuery(app, `select status from connections where vendor_org_id = $1`, [squatter.org.id])).rows).toEqual([{ status: 'pending' }]);
    expect(await auditOf(squatter.org.id)).toEqual(['email:sent', ...Array(5).fill('email:failed'), 'email:locked', 'hrms:locked']);
    // The code's own tries are spent too (5 a code).
    expect((await dbQuery(app, `select attempts, used_at from connect_email_codes where client_org_id = $1`, [orgId])).rows).toEqual([
      { attempts: 5, used_at: null },
    ]);
  });

  it('a code sent for one session is refused in another (same org, another vendor); its own session still takes it', async () => {
    const [lender, squatter] = [await f.vendor(app.ctx, 'Honest Lender'), await f.vendor(app.ctx, 'Code Thief')];
    const honest = await tokenFor(lender, 'priya@acme-two.example');
    const thief = await tokenFor(squatter, 'anyone@acme-two.example');
    expect(thief.orgUuid).toBe(honest.orgUuid);
    const sHonest: TestSession = await openSession(app.url, honest.token);
    const sThief: TestSession = await openSession(app.url, thief.token);
    expect((await connectCall(app.url, sHonest, 'email-code/', undefined)).status).toBe(200);
    const code = await app.mailbox!.code('priya@acme-two.example');
    // The thief has no code of its own, then one of its own that the honest code is not.
    expectError(
      await connectCall(app.url, sThief, 'verify-email/', { code }),
      400,
      invalid('code', 'no code is waiting (none sent, expired or used up): ask for a new code'),
    );
    expect((await connectCall(app.url, sThief, 'email-code/', undefined)).status).toBe(200);
    const thiefs = await app.mailbox!.code('anyone@acme-two.example');
    if (thiefs !== code) expectError(await connectCall(app.url, sThief, 'verify-email/', { code }), 403, PROOF_FAILED);
    expectError(await connectCall(app.url, sThief, 'hrms/', hrmsBody(evilSim, evil)), 400, VERIFY_FIRST);
    // The honest admin's code still works in its own session, and the org is set up with Acme's HRMS.
    expect((await connectCall(app.url, sHonest, 'verify-email/', { code })).body.data).toStrictEqual({ verified: true });
    expect((await connectCall(app.url, sHonest, 'hrms/', hrmsBody(acmeSim, acme))).status).toBe(200);
    expect((await connectCall(app.url, sHonest, 'approve/', { opted_in: ['pan'], opted_out: [] })).body.data.status).toBe('approved');
    // Established now: the thief's session can only try proof of control, and its own HRMS fails it.
    expectError(await connectCall(app.url, sThief, 'hrms/', hrmsBody(evilSim, evil)), 403, PROOF_FAILED);
    expect((await storesOf(app).hrmsConfigs.load(await orgIdOf(honest.orgUuid)))?.credentials.hrms_host).toBe(acmeSim.url);
  });

  it("the admin who reads the mail sets up a new org from the page's endpoints: code, HRMS, approval", async () => {
    const lender = await f.vendor(app.ctx, 'Plain Lender');
    const { token, orgUuid } = await tokenFor(lender, 'hr@acme-three.example');
    const s = await openSession(app.url, token);
    await verifyEmail(app, s);
    expect((await connectCall(app.url, s, 'hrms/', hrmsBody(acmeSim, acme))).body.data.org_id).toBe(orgUuid);
    expect((await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: ['pan'] })).body.data.status).toBe('approved');
    expect(await auditOf(lender.org.id)).toEqual(['email:sent', 'email:proven', 'hrms:configured', 'approve:approved']);
  });
});
