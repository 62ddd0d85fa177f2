/**
 * The org takeover through the Connect flow, step by step over HTTP against the real app, HRMS
 * simulators and SMTP server (docs/connect.md "Org resolution", "What an e-mail code
 * can set up"). An unrelated vendor asks for a token naming an address it reads (gmail) and the
 * employer's name, or the employer's `remote_org_id`, then tries to verify "its" e-mail, store its
 * own HRMS as the employer's and approve. For each way the victim org was made — (a) the operator
 * with `--domain`, (b) the operator without, (c) another vendor's `remote_org_id`, (d) the name
 * rule, by another vendor's token — the attack ends at a 400 or 403 with nothing stored, and
 * the employee the employer adds later stays unread by the attacker. The legitimate paths (an
 * address on the org's own domain with its code, proof (b), the operator) still approve.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail } from '../../support/connect';
import { hrxJson } from '../../support/cli';
import { dbQuery } from '../../support/db';

const NO_CODE = invalid(
  'email',
  'an e-mail code cannot set up this organisation, because the organisation has no e-mail domain of its own (it was made by its name, by a remote_org_id with a common e-mail address, or by the operator without --domain): ' +
    "the operator must approve this connection (hrx connection approve), or prove control with the organisation's application key and secret",
);
const VERIFY_FIRST = invalid('email', 'verify your e-mail address first: ask for a code and enter it');
const NEEDS_HRMS = invalid('hrms', 'enter the HRMS credentials before approving');
const FLAGS = { detail_info_fields: { name: -1 }, ctc_details_fields: { ctc_basic: -1 } };
const G001 = { employeeId: 'G-001', name: 'Meenakshi Sundaram', salaryDetails: { ctc: { basic: 1234567 } } };

type Sim = Awaited<ReturnType<typeof startSim>>;
let app: TestApp;
let evilSim: Sim;
let realSim: Sim;
const evilCreds = { clientId: 'shady', clientSecret: 'shady-secret' };
const realCreds = { clientId: 'globex-hr', clientSecret: 'globex-hr-secret-9f' };
let attacker: Awaited<ReturnType<typeof f.vendor>>;
let lender: Awaited<ReturnType<typeof f.vendor>>;
let n = 0;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  [evilSim, realSim] = await Promise.all([startSim({ employees: 2, ...evilCreds }), startSim({ employees: 3, ...realCreds })]);
  attacker = await f.vendor(app.ctx, 'Shady Lending');
  lender = await f.vendor(app.ctx, 'Honest Payroll');
});
afterAll(async () => {
  await evilSim?.close();
  await realSim?.close();
  await app?.stop();
});

const hrmsBody = (sim: Sim, c: { clientId: string; clientSecret: string }) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, hrms_host: sim.url },
});
/** `POST /api/sdk/token/` as vendor `v`; answers the org it resolved to and the token. */
async function issue(v: { apiKey: string }, body: Record<string, unknown>) {
  const res = await call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ fullname: 'Someone', data_model_flags: FLAGS, ...body }),
  });
  expect(res.status).toBe(200);
  return { orgUuid: res.body.data.org_id as string, token: res.body.data.access_token as string };
}
/** An employer org made as the operator makes it: `hrx org create --client [--domain]`. */
async function operatorOrg(name: string, domain?: string) {
  const o = await hrxJson(['org', 'create', '--name', name, '--client', ...(domain ? ['--domain', domain] : [])], app.env);
  return { uuid: o.uuid as string, id: Number(o.id), org: { appKey: o.app_key as string }, appSecret: o.app_secret as string };
}
const orgRow = async (uuid: string) =>
  (await dbQuery(app, `select id, created_via, email_domain, remote_org_vendor_id from orgs where uuid = $1`, [uuid])).rows[0];
const gmail = () => `someone.${++n}@gmail.com`;

/**
 * The attacker's session on the org its token resolved to, every step tried with an address it
 * reads (`readsMail`) or not: the code, its own HRMS, approval. Returns the answers.
 */
async function tryTakeover(token: string, readsMail: boolean) {
  const s = await openSession(app.url, token);
  const view = (await connectCall(app.url, s, '')).body.data;
  const sent = await connectCall(app.url, s, 'email-code/', undefined);
  let verified = null;
  if (sent.status === 200 && readsMail) verified = await connectCall(app.url, s, 'verify-email/', { code: await app.mailbox!.code(sent.body.data.sent_to) });
  const hrms = await connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, evilCreds));
  const approve = await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
  return { view, sent, verified, hrms, approve };
}

/** The attack left the victim untouched: no HRMS configuration, no approved connection, its later employee unread. */
async function expectUnharmed(victim: { uuid: string; id: number }, addEmployee: () => Promise<void>) {
  expect((await dbQuery(app, `select count(*)::int as n from hrms_configs where org_id = $1`, [victim.id])).rows[0].n).toBe(0);
  const conns = (await dbQuery(app, `select status from connections where vendor_org_id = $1 and client_org_id = $2`, [attacker.org.id, victim.id])).rows;
  expect(conns.every((c) => c.status === 'pending')).toBe(true);
  await addEmployee();
  const consent = await call(`${app.url}/api/v1/employee/consent-data/`, {
    method: 'POST',
    headers: { authorization: attacker.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      org: victim.uuid,
      employee_id: G001.employeeId,
      consent_language: 'I agree.',
      consent_timestamp: new Date().toISOString(),
      consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
    }),
  });
  expect(consent.status).not.toBe(200);
  const read = await call(`${app.url}/api/employee_details/${G001.employeeId}?org=${victim.uuid}&vendor_org=${attacker.org.uuid}`, {
    headers: { username: attacker.apiKey },
  });
  expect(read.status).toBe(404);
  expect(JSON.stringify(read.body)).not.toContain(G001.name);
  expect((await dbQuery(app, `select count(*)::int as n from consents where vendor_org_id = $1`, [attacker.org.id])).rows[0].n).toBe(0);
  expect(evilSim.control.stats().tokenRequests).toBe(0);
}
const pushed = (employer: { org: { appKey: string }; appSecret: string }) => async () => {
  const res = await call(`${app.url}/api/webhook/v1/employee/update/`, {
    method: 'POST',
    headers: { authorization: f.appBasic(employer), 'content-type': 'application/json' },
    body: JSON.stringify(G001),
  });
  expect(res.status).toBe(200);
};
const stored = (orgId: number) => async () => void (await f.employees(app.ctx, orgId, [{ employeeId: G001.employeeId, name: G001.name }]));

/** The attacker on an org of its own that no code can set up: every step a 400 saying who can. */
function expectRefusedOwnerOnly(t: Awaited<ReturnType<typeof tryTakeover>>) {
  expect(t.view.email_verification).toMatchObject({ required: true, available: false, establishes: false, verified: false });
  expectError(t.sent, 400, NO_CODE);
  expectError(t.hrms, 400, NO_CODE);
  expectError(t.approve, 400, NO_CODE);
}

describe('the takeover of an org the operator made', () => {
  it('(a) with --domain: a gmail token naming it reaches another org; an address on its domain gets the code in its own mailbox', async () => {
    const globex = await operatorOrg('Globex Industries', 'globex.example');
    expect(await orgRow(globex.uuid)).toMatchObject({ created_via: 'operator', email_domain: 'globex.example' });
    evilSim.control.resetStats();
    for (const orgName of ['globex INDUSTRIES', 'Globex Industries', ' GLOBEX industries ']) {
      const address = gmail();
      const { orgUuid, token } = await issue(attacker, { email: address, org_name: orgName });
      expect(orgUuid).not.toBe(globex.uuid);
      expectRefusedOwnerOnly(await tryTakeover(token, true));
      expect(app.mailbox!.to(address)).toHaveLength(0);
    }
    // An address on Globex's domain: Globex's org, but the code goes to Globex's mailbox.
    const { orgUuid, token } = await issue(attacker, { email: 'someone@globex.example', org_name: 'Anything' });
    expect(orgUuid).toBe(globex.uuid);
    const t = await tryTakeover(token, false);
    expect(t.sent.status).toBe(200);
    expectError(t.hrms, 400, VERIFY_FIRST);
    expectError(t.approve, 400, NEEDS_HRMS);
    await expectUnharmed(globex, pushed(globex));
    // Globex (established now by the webhook) approves a legitimate vendor's link with its own proof, not a 403.
    const legit = await openSession(app.url, (await issue(lender, { email: 'priya@globex.example', org_name: 'Globex' })).token);
    expect((await connectCall(app.url, legit, 'proof/', { app_key: globex.org.appKey, app_secret: globex.appSecret })).body.data).toStrictEqual({
      proven: true,
    });
    expect((await connectCall(app.url, legit, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
  });

  it('(b) without a domain: no token finds it by its name; the gmail token gets an org that no code can set up', async () => {
    const globex = await operatorOrg('Globex');
    expect(await orgRow(globex.uuid)).toMatchObject({ created_via: 'operator', email_domain: null });
    evilSim.control.resetStats();
    const { orgUuid, token } = await issue(attacker, { email: gmail(), org_name: 'globex' });
    expect(orgUuid).not.toBe(globex.uuid);
    expect(await orgRow(orgUuid)).toMatchObject({ created_via: 'name', email_domain: null });
    expectRefusedOwnerOnly(await tryTakeover(token, true));
    await expectUnharmed(globex, pushed(globex));
  });
});

describe('the takeover of an org another vendor made', () => {
  it("(c) by its remote_org_id: the attacker's same remote_org_id, or the name, names another org", async () => {
    const made = await issue(lender, { email: gmail(), org_name: 'Globex Remote', remote_org_id: 'crm-globex' });
    const victim = { uuid: made.orgUuid, id: Number((await orgRow(made.orgUuid)).id) };
    expect(await orgRow(victim.uuid)).toMatchObject({ created_via: 'remote_org_id', remote_org_vendor_id: lender.org.id });
    evilSim.control.resetStats();
    for (const body of [
      { email: gmail(), org_name: 'Globex Remote', remote_org_id: 'crm-globex' },
      { email: gmail(), org_name: 'globex remote' },
    ]) {
      const { orgUuid, token } = await issue(attacker, body);
      expect(orgUuid).not.toBe(victim.uuid);
      expectRefusedOwnerOnly(await tryTakeover(token, true));
    }
    // The lender's own link cannot set it up by a code either: the operator or proof (b) must.
    expectRefusedOwnerOnly(await tryTakeover(made.token, true));
    await expectUnharmed(victim, stored(victim.id));
  });

  it('(d) by the name rule: the attacker reaches the same org, but no code sets it up; the operator approves the lender', async () => {
    const made = await issue(lender, { email: gmail(), org_name: 'Initech Name' });
    const victim = { uuid: made.orgUuid, id: Number((await orgRow(made.orgUuid)).id) };
    expect(await orgRow(victim.uuid)).toMatchObject({ created_via: 'name', email_domain: null });
    evilSim.control.resetStats();
    const address = gmail();
    const { orgUuid, token } = await issue(attacker, { email: address, org_name: ' initech NAME ' });
    expect(orgUuid).toBe(victim.uuid);
    const t = await tryTakeover(token, true);
    expectRefusedOwnerOnly(t);
    expect(app.mailbox!.to(address)).toHaveLength(0);
    await expectUnharmed(victim, stored(victim.id));
    // The operator approves the lender's connection: the legitimate path for such an org.
    const pending = (await dbQuery(app, `select id from connections where vendor_org_id = $1 and client_org_id = $2`, [lender.org.id, victim.id])).rows[0];
    expect(await hrxJson(['connection', 'approve', pending.id], app.env)).toMatchObject({ id: pending.id, status: 'approved' });
  });
});

describe('the legitimate paths to a new org still approve', () => {
  it("an address on the org's own domain, with its code: the HRMS stored, approved", async () => {
    const acme = await operatorOrg('Acme Domain Co', 'acme-domain.example');
    const s = await openSession(app.url, (await issue(lender, { email: 'asha@ACME-domain.example', org_name: 'Acme' })).token);
    expect((await connectCall(app.url, s, '')).body.data.email_verification).toMatchObject({ available: true, establishes: true });
    await verifyEmail(app, s);
    expect((await connectCall(app.url, s, 'hrms/', hrmsBody(realSim, realCreds))).body.data).toMatchObject({ org_id: acme.uuid, hrms_id: 'reference' });
    expect((await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
  });

  it("the org's application key and secret: approved, no HRMS configuration stored", async () => {
    const acme = await operatorOrg('Acme Webhook Co', 'acme-webhook.example');
    const s = await openSession(app.url, (await issue(lender, { email: 'hr@acme-webhook.example', org_name: 'Acme' })).token);
    expectError(await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }), 400, NEEDS_HRMS);
    expect((await connectCall(app.url, s, 'proof/', { app_key: acme.org.appKey, app_secret: acme.appSecret })).body.data).toStrictEqual({ proven: true });
    expect((await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
    expect((await dbQuery(app, `select count(*)::int as n from hrms_configs where org_id = $1`, [acme.id])).rows[0].n).toBe(0);
  });

  it('proof (b), then the HRMS step: the first configuration stored, approved', async () => {
    const acme = await operatorOrg('Acme Proven Co', 'acme-proven.example');
    const s = await openSession(app.url, (await issue(lender, { email: 'it@acme-proven.example', org_name: 'Acme' })).token);
    expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(realSim, realCreds)), 400, VERIFY_FIRST);
    expect((await connectCall(app.url, s, 'proof/', { app_key: acme.org.appKey, app_secret: acme.appSecret })).status).toBe(200);
    expect((await connectCall(app.url, s, 'hrms/', hrmsBody(realSim, realCreds))).body.data).toMatchObject({ org_id: acme.uuid, hrms_id: 'reference' });
    expect((await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
  });
});
