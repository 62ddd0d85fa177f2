/**
 * Squat-then-replace (docs/connect.md "Squat, then replace"), over HTTP against the real app, worker,
 * two HRMS simulators, PostgreSQL and Redis, with a second API process.
 *
 * A vendor is first to set up a brand-new employer org through the Connect flow, with an HRMS of
 * its own (simulator A), and approves its connection; a second vendor proves control against that
 * squatted configuration (the HRMS step) and approves too. Then the real employer posts
 * setup-config with its own HRMS (simulator B). Both approvals rested on the squatted
 * configuration: they go back to `pending` in the same transaction (lists as for a pending
 * connection), the second API process's connection cache is cleared at once, their reads fail,
 * and a fresh Connect approval needs proof of control. An approval by proof (b) (the org's app
 * credentials) stays approved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSecondApi, startSim, startTestApp, waitFor, type SecondApi, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail } from '../../support/connect';
import { dbQuery, storesOf, testPool } from '../../support/db';

const PROOF_FAILED = plain('Proof of control failed');
const FLAGS = { detail_info_fields: { name: -1, pan: 1 }, ctc_details_fields: { ctc_basic: 1 } };
type Sim = Awaited<ReturnType<typeof startSim>>;

let app: TestApp;
let second: SecondApi;
let simA: Sim;
let simB: Sim;
const credsA = { clientId: 'squatter', clientSecret: 'squatter-secret' };
const credsB = { clientId: 'acme-hr', clientSecret: 'acme-hr-secret-77aa' };
let attacker: Awaited<ReturnType<typeof f.vendor>>;
let accomplice: Awaited<ReturnType<typeof f.vendor>>;
let honest: Awaited<ReturnType<typeof f.vendor>>;
let employer: { org: { id: number; uuid: string; appKey: string; orgName: string }; appSecret: string; domain: string };
let n = 0;

const hrmsBody = (sim: Sim, creds: { clientId: string; clientSecret: string }) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, hrms_host: sim.url },
});
const tokenFor = async (v: { apiKey: string }) => {
  const res = await call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ fullname: 'Someone', email: `hr${++n}@${employer.domain}`, org_name: 'Whatever', data_model_flags: FLAGS }),
  });
  expect(res.status).toBe(200);
  expect(res.body.data.org_id).toBe(employer.org.uuid);
  return res.body.data.access_token as string;
};
const connectionOf = async (vendorOrgId: number) =>
  (
    await dbQuery(
      app,
      `select id, status, shared_data_points, not_shared_data_points, not_requested_data_points, approved_on_config_session
     from connections where vendor_org_id = $1 and client_org_id = $2 and status <> 'terminated'`,
      [vendorOrgId, employer.org.id],
    )
  ).rows[0] as { id: string; status: string; approved_on_config_session: string | null };
const read = (base: string, v: { apiKey: string; org: { uuid: string } }, employeeId: string) =>
  call(`${base}/api/employee_details/${employeeId}?org=${employer.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
const consent = (v: { apiKey: string }, employeeId: string) =>
  call(`${app.url}/api/v1/employee/consent-data/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      org: employer.org.uuid,
      employee_id: employeeId,
      consent_language: 'I agree.',
      consent_timestamp: new Date().toISOString(),
      consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
    }),
  });
const listing = async (v: { apiKey: string }) =>
  (await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey } })).body.data.find(
    (e: { org_id: string }) => e.org_id === employer.org.uuid,
  );
const synced = (count: number, runs: number) =>
  waitFor(
    async () => {
      const { rows } = await dbQuery(
        app,
        `select (select count(*)::int from employees where org_id = $1 and removed_at is null) as employees,
            (select count(*)::int from sync_runs where org_id = $1 and status = 'succeeded') as runs`,
        [employer.org.id],
      );
      return rows[0].employees === count && rows[0].runs >= runs;
    },
    60_000,
    200,
  );

beforeAll(async () => {
  app = await startTestApp();
  // A long cache TTL in the second process: only the access-change announcement clears it in time.
  second = await startSecondApi(app, { HRX_CONNECTION_CACHE_TTL_MS: '60000' });
  simA = await startSim({ employees: 2, seed: 'squat', ...credsA });
  simB = await startSim({ employees: 4, seed: 'acme', ...credsB });
  attacker = await f.vendor(app.ctx, 'Squatting Lender');
  accomplice = await f.vendor(app.ctx, 'Second Squatter');
  honest = await f.vendor(app.ctx, 'Honest Lender');
  const domain = `acme-${Date.now()}.example`;
  const { org, appSecret } = await app.ctx.services.orgs.create({ name: 'Acme Brand New', vendor: false, client: true, domain });
  employer = { org, appSecret, domain };
}, 120_000);
afterAll(async () => {
  await second?.stop();
  await simA?.close();
  await simB?.close();
  await app?.stop();
});

describe('squat-then-replace: setup-config revokes approvals resting on a Connect-entered configuration', () => {
  it('squat, approve, replace: the squatters go back to pending and lose access everywhere at once', async () => {
    // 1. The squat: the attacker enters its own HRMS for the new org and approves.
    // (The attacker's token names an address it reads: docs/connect.md "What an e-mail code can set up".)
    const s = await openSession(app.url, await tokenFor(attacker));
    await verifyEmail(app, s);
    expect((await connectCall(app.url, s, 'hrms/', hrmsBody(simA, credsA))).status).toBe(200);
    expect((await connectCall(app.url, s, 'approve/', { opted_in: ['pan'], opted_out: ['ctc_basic'] })).body.data.status).toBe('approved');
    const squatSession = (await dbQuery(app, `select connect_session_id from hrms_configs where org_id = $1`, [employer.org.id])).rows[0].connect_session_id;
    expect(squatSession).toBeTruthy();
    expect((await connectionOf(attacker.org.id)).approved_on_config_session).toBe(squatSession);
    // 2. An accomplice proves control against the squatted configuration (proof (a)) and approves.
    const sAcc = await openSession(app.url, await tokenFor(accomplice));
    expect((await connectCall(app.url, sAcc, 'hrms/', hrmsBody(simA, credsA))).body.data).toStrictEqual({ proven: true });
    expect((await connectCall(app.url, sAcc, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
    expect((await connectionOf(accomplice.org.id)).approved_on_config_session).toBe(squatSession);
    // 3. An honest vendor approved by proof (b): the org's app credentials (the operator gave them to the employer).
    const sHon = await openSession(app.url, await tokenFor(honest));
    expect((await connectCall(app.url, sHon, 'proof/', { app_key: employer.org.appKey, app_secret: employer.appSecret })).status).toBe(200);
    expect((await connectCall(app.url, sHon, 'approve/', { opted_in: ['pan'], opted_out: [] })).body.data.status).toBe('approved');
    expect((await connectionOf(honest.org.id)).approved_on_config_session).toBeNull();

    // The squat works today: the sync of simulator A's employees, consent, a read on both API processes (filling the second's cache).
    await synced(2, 1);
    expect((await consent(attacker, 'EMP00001')).status).toBe(200);
    expect((await read(app.url, attacker, 'EMP00001')).status).toBe(200);
    expect((await read(second.url, attacker, 'EMP00001')).status).toBe(200);

    // 4. The real employer posts setup-config with its own HRMS (simulator B).
    const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(f.setupBody(employer, simB, credsB)),
    });
    expect(setup.status).toBe(200);

    // Both squatters' connections are pending, with the lists of a pending connection; the honest one stays approved.
    for (const v of [attacker, accomplice]) {
      const c = await connectionOf(v.org.id);
      expect(c).toMatchObject({ status: 'pending', approved_on_config_session: null, shared_data_points: null });
      expect(await listing(v)).toMatchObject({
        application_connection_status: 'Inactive',
        shared_data_points: [],
        not_shared_data_points: ['name', 'pan', 'ctc_basic'],
      });
    }
    expect((await connectionOf(honest.org.id)).status).toBe('approved');
    // At once, on both processes (the second's cache would hold the approval for a minute).
    for (const base of [second.url, app.url]) {
      expectError(await read(base, attacker, 'EMP00001'), 404, plain('Invalid Organisation ID'));
    }
    // Not even once the real employees are synced.
    await synced(4, 2);
    for (const base of [app.url, second.url]) {
      for (const id of ['EMP00001', 'EMP00003']) expectError(await read(base, attacker, id), 404, plain('Invalid Organisation ID'));
    }
    expect((await consent(attacker, 'EMP00003')).status).not.toBe(200);

    // 5. The squatters' old sessions (still live: their tokens have not expired) approve nothing:
    // one entered the replaced configuration, the other proved control against it.
    for (const old of [s, sAcc]) {
      expect((await connectCall(app.url, old, '')).body.data.proof).toMatchObject({ required: true, proven: false });
      expectError(await connectCall(app.url, old, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
    }
    // A fresh Connect approval needs proof of control: the squatter's HRMS no longer proves it.
    const again = await openSession(app.url, await tokenFor(attacker));
    expect((await connectCall(app.url, again, '')).body.data.proof).toStrictEqual({ required: true, proven: false });
    expectError(await connectCall(app.url, again, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
    expectError(await connectCall(app.url, again, 'hrms/', hrmsBody(simA, credsA)), 403, PROOF_FAILED);
    expectError(await connectCall(app.url, again, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
    const accAgain = await openSession(app.url, await tokenFor(accomplice));
    expectError(await connectCall(app.url, accAgain, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
    for (const v of [attacker, accomplice]) expect((await connectionOf(v.org.id)).status).toBe('pending');
    // The employer's configuration is setup-config's, untouched by the attempts.
    const cfg = (await dbQuery(app, `select connect_session_id from hrms_configs where org_id = $1`, [employer.org.id])).rows[0];
    expect(cfg.connect_session_id).toBeNull();
    expect((await storesOf(app).hrmsConfigs.load(employer.org.id))?.credentials.hrms_host).toBe(simB.url);
  }, 180_000);
});

describe('squat-then-replace: an approval racing the replacement', () => {
  it('an approval racing the replacement never outlives it: it waits for the row and is refused', async () => {
    const domain = `race-${Date.now()}.example`;
    const { org } = await app.ctx.services.orgs.create({ name: 'Acme Race', vendor: false, client: true, domain });
    const token = (
      await call(`${app.url}/api/sdk/token/`, {
        method: 'POST',
        headers: { authorization: attacker.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ fullname: 'Someone', email: `hr@${domain}`, org_name: 'Whatever', data_model_flags: FLAGS }),
      })
    ).body.data.access_token as string;
    const s = await openSession(app.url, token);
    await verifyEmail(app, s);
    expect((await connectCall(app.url, s, 'hrms/', hrmsBody(simA, credsA))).status).toBe(200);
    // setup-config's transaction, held open: the configuration row locked, then replaced.
    const client = await testPool(app).connect();
    try {
      await client.query('begin');
      await client.query(`select 1 from hrms_configs where org_id = $1 for update`, [org.id]);
      const approving = connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
      await new Promise((r) => setTimeout(r, 400));
      await client.query(`update hrms_configs set connect_session_id = null where org_id = $1`, [org.id]);
      await client.query('commit');
      expectError(await approving, 403, PROOF_FAILED);
    } finally {
      client.release();
    }
    const { rows } = await dbQuery(app, `select status from connections where vendor_org_id = $1 and client_org_id = $2`, [attacker.org.id, org.id]);
    expect(rows).toEqual([{ status: 'pending' }]);
  }, 60_000);
});
