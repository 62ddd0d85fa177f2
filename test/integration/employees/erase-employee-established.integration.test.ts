/**
 * An employer that erases every employee stays established (docs/connect.md "Who may approve"):
 * an org whose only tie to hrx was employees posted through the update webhook (no HRMS
 * configuration) erases them all through the erasure webhook; a vendor's Connect flow for it then
 * still asks for proof of control (`proof.required`), and the vendor's own HRMS in the HRMS step
 * is `403 Proof of control failed`, storing nothing. Likewise for employees a sync wrote, and for
 * an org whose HRMS configuration is gone (the mark is set with the first configuration). The control: an org that never had an
 * employee or a configuration is new (no proof asked, the e-mail code instead).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as f from '../../support/factories';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const evilCreds = { clientId: 'evil-erase', clientSecret: 'evil-erase-secret' };

let app: TestApp;
let evilSim: Awaited<ReturnType<typeof startSim>>;
let attacker: Awaited<ReturnType<typeof f.vendor>>;
let n = 0;

const post = (path: string, body: unknown, authorization: string) =>
  call(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });
const newEmployer = async (label: string) => {
  const domain = `${label}-${++n}.example`;
  const { org, appSecret } = await app.ctx.services.orgs.create({ name: `Erasing ${label} ${n}`, vendor: false, client: true, domain });
  return { org, appSecret, domain };
};
/** The attacker's Connect session for `employer`, opened with a token naming the employer's domain. */
const sessionFor = async (employer: { org: { uuid: string }; domain: string }) => {
  const res = await post('/api/sdk/token/', { email: `hr${++n}@${employer.domain}`, org_name: 'Whatever', fullname: 'Someone' }, attacker.apiKey);
  expect({ status: res.status, org: res.body.data?.org_id }).toStrictEqual({ status: 200, org: employer.org.uuid });
  return openSession(app.url, res.body.data.access_token as string);
};
const evilHrms = () => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: evilCreds.clientId, client_secret: evilCreds.clientSecret, hrms_host: evilSim.url },
});
const configs = async (orgId: number) => (await dbQuery(app, `select count(*)::int as n from hrms_configs where org_id = $1`, [orgId])).rows[0].n;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  evilSim = await startSim({ employees: 2, seed: 'evil-erase', ...evilCreds });
  attacker = await f.vendor(app.ctx, 'Squatting Lender');
}, 60_000);

afterAll(async () => {
  await evilSim?.close();
  await app?.stop();
});

describe('established for good: erasing every employee does not make an org new', () => {
  it("a vendor's Connect flow for it needs proof of control: its own HRMS is 403 Proof of control failed", async () => {
    const employer = await newEmployer('all-erased');
    for (const employeeId of ['E1', 'E2']) {
      expect((await post('/api/webhook/v1/employee/update/', { employeeId, name: `Worker ${employeeId}` }, f.appBasic(employer))).status).toBe(200);
    }
    for (const employeeId of ['E1', 'E2']) {
      expect((await post('/api/webhook/v1/employee/erase/', { employee_id: employeeId }, f.appBasic(employer))).status).toBe(200);
    }
    expect((await dbQuery(app, `select count(*)::int as n from employees where org_id = $1`, [employer.org.id])).rows[0].n).toBe(0);
    expect(await configs(employer.org.id)).toBe(0);

    const s = await sessionFor(employer);
    const view = (await connectCall(app.url, s, '')).body.data;
    expect({ proof: view.proof, email: view.email_verification.required }).toStrictEqual({ proof: { required: true, proven: false }, email: false });
    expectError(await connectCall(app.url, s, 'hrms/', evilHrms()), 403, plain('Proof of control failed'));
    expectError(await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }), 403, plain('Proof of control failed'));
    expect(await configs(employer.org.id)).toBe(0);
  });

  it('the same for employees a sync wrote (the sync store), and for an HRMS configuration since replaced by none', async () => {
    const synced = await newEmployer('synced');
    await f.employees(app.ctx, synced.org.id, [{ employeeId: 'S1' }]);
    expect((await post('/api/webhook/v1/employee/erase/', { employee_id: 'S1' }, f.appBasic(synced))).status).toBe(200);
    const configured = await newEmployer('configured');
    await f.hrmsAt(app.ctx, configured.org.id, evilSim, evilCreds);
    await dbQuery(app, `delete from hrms_configs where org_id = $1`, [configured.org.id]);
    for (const employer of [synced, configured]) {
      const s = await sessionFor(employer);
      expect((await connectCall(app.url, s, '')).body.data.proof).toStrictEqual({ required: true, proven: false });
      expectError(await connectCall(app.url, s, 'hrms/', evilHrms()), 403, plain('Proof of control failed'));
      expect(await configs(employer.org.id)).toBe(0);
    }
  });

  it('the control: an org that never had an employee or a configuration is new', async () => {
    const fresh = await newEmployer('fresh');
    const view = (await connectCall(app.url, await sessionFor(fresh), '')).body.data;
    expect({ proof: view.proof, email: view.email_verification.required }).toStrictEqual({ proof: { required: false, proven: false }, email: true });
    expect((await dbQuery(app, `select established_at from orgs where id = $1`, [fresh.org.id])).rows[0].established_at).toBeNull();
  });
});
