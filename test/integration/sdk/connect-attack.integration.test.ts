/**
 * The review's attack on the Connect flow (docs/connect.md "Who may approve", Connect session),
 * step by step over HTTP against the real app, worker, simulators, PostgreSQL and Redis.
 *
 * A vendor with no relationship to an employer asks for an SDK token naming it (a gmail address
 * and its org name; its private e-mail domain), tries the token itself on the decision endpoints,
 * exchanges it for a session, points the HRMS step at an HRMS of its own, tries to approve and to
 * prove control with its own app credentials, then to post consent and read employees. For every
 * way an employer is established — (a) by setup-config and a sync, (b) by the update webhook only,
 * (c) with its configuration marked invalid, (d) with a valid configuration and no sync yet — the
 * attacker ends with 403s and a pending connection, the employer's configuration row and employee
 * rows unchanged to the byte, and the attacker's HRMS never called. Then the legitimate paths
 * approve (new org via the HRMS step; established org via proof (a) and proof (b)), the lockout
 * holds (also against parallel attempts), every attempt is audited, and the session rules hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid, plain } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail } from '../../support/connect';
import { dbQuery, storesOf } from '../../support/db';

const PROOF_FAILED = plain('Proof of control failed');
const MISSING = plain('Authentication credentials were not provided.');
const INVALID = plain('Invalid token.');
const FLAGS = { detail_info_fields: { name: -1, pan: 1 }, ctc_details_fields: { ctc_basic: 1 } };

type Sim = Awaited<ReturnType<typeof startSim>>;
interface Employer {
  label: string;
  org: Awaited<ReturnType<typeof f.client>>['org'];
  appSecret: string;
  domain: string;
}

let app: TestApp;
let realSim: Sim;
let evilSim: Sim;
const realCreds = { clientId: 'acme-hr', clientSecret: 'acme-hr-secret-5d1e' };
const evilCreds = { clientId: 'evil', clientSecret: 'evil-secret' };
let attacker: Awaited<ReturnType<typeof f.vendor>>;
let lender: Awaited<ReturnType<typeof f.vendor>>;
let attackerClient: Awaited<ReturnType<typeof f.client>>;
const employers: Record<'sync' | 'webhook' | 'invalid' | 'valid', Employer> = {} as never;
let n = 0;

const hrmsBody = (sim: Sim, creds: { clientId: string; clientSecret: string }) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, hrms_host: sim.url },
});
const issue = (v: { apiKey: string }, body: Record<string, unknown>) =>
  call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ fullname: 'Someone', data_model_flags: FLAGS, ...body }),
  });
const newEmployer = async (label: string): Promise<Employer> => {
  const domain = `${label}-${++n}.example`;
  const { org, appSecret } = await app.ctx.services.orgs.create({ name: `Acme ${label} ${n}`, vendor: false, client: true, domain });
  return { label, org, appSecret, domain };
};
const synced = (orgId: number, count: number) =>
  waitFor(
    async () => {
      const { rows } = await dbQuery(
        app,
        `select (select count(*)::int from employees where org_id = $1) as employees,
            (select count(*)::int from sync_runs where org_id = $1 and status = 'succeeded') as runs`,
        [orgId],
      );
      return rows[0].employees === count && rows[0].runs >= 1;
    },
    60_000,
    200,
  );
/** Everything of the employer the attack must not touch, as stored. */
const snapshot = async (orgId: number) => ({
  config: (await dbQuery(app, `select * from hrms_configs where org_id = $1`, [orgId])).rows,
  employees: (await dbQuery(app, `select * from employees where org_id = $1 order by employee_id`, [orgId])).rows,
  runs: (await dbQuery(app, `select id, status from sync_runs where org_id = $1 order by started_at`, [orgId])).rows,
});
const connectionOf = async (vendorOrgId: number, clientOrgId: number) =>
  (
    await dbQuery(app, `select id, status, shared_data_points from connections where vendor_org_id = $1 and client_org_id = $2 and status <> 'terminated'`, [
      vendorOrgId,
      clientOrgId,
    ])
  ).rows[0] as { id: string; status: string; shared_data_points: string[] | null };
const auditOf = async (connectionId: string) =>
  (await dbQuery(app, `select method, outcome, source_address from connect_proof_audit where connection_id = $1 order by id`, [connectionId])).rows as {
    method: string;
    outcome: string;
    source_address: string;
  }[];
const tokenFor = async (v: { apiKey: string }, e: Employer) => {
  const res = await issue(v, { email: `hr${++n}@${e.domain}`, org_name: 'Whatever Name' });
  expect(res.status).toBe(200);
  expect(res.body.data.org_id).toBe(e.org.uuid);
  return res.body.data.access_token as string;
};

beforeAll(async () => {
  app = await startTestApp();
  realSim = await startSim({ employees: 30, seed: 'acme', ...realCreds });
  evilSim = await startSim({ employees: 3, seed: 'evil', ...evilCreds });
  attacker = await f.vendor(app.ctx, 'Shady Lender');
  attackerClient = await f.client(app.ctx, 'Shady Holdings');
  lender = await f.vendor(app.ctx, 'Honest Lender');
  // The employers' existing, approved partner (a sync needs an active connection).
  const partner = await f.vendor(app.ctx, 'Payroll Partner');

  // (a) setup-config, then the sync stores its 30 employees.
  employers.sync = await newEmployer('sync');
  await f.connection(app.ctx, partner.org.uuid, employers.sync.org.uuid);
  expect(
    (
      await call(`${app.url}/api/webhook/v1/setup-config/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(f.setupBody(employers.sync, realSim, realCreds)),
      })
    ).status,
  ).toBe(200);
  // (c) the same, then its configuration marked invalid (as a sync refused by the HRMS leaves it).
  employers.invalid = await newEmployer('invalid');
  await f.connection(app.ctx, partner.org.uuid, employers.invalid.org.uuid);
  expect(
    (
      await call(`${app.url}/api/webhook/v1/setup-config/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(f.setupBody(employers.invalid, realSim, realCreds)),
      })
    ).status,
  ).toBe(200);
  await synced(employers.sync.org.id, 30);
  await synced(employers.invalid.org.id, 30);
  await storesOf(app).hrmsConfigs.markInvalid(employers.invalid.org.id, 'the HRMS refused the credentials');
  // (b) employees from the update webhook only, no configuration.
  employers.webhook = await newEmployer('webhook');
  for (const employeeId of ['W1', 'W2', 'W3']) {
    expect(
      (
        await call(`${app.url}/api/webhook/v1/employee/update/`, {
          method: 'POST',
          headers: { authorization: f.appBasic(employers.webhook), 'content-type': 'application/json' },
          body: JSON.stringify({ employeeId, name: `Worker ${employeeId}`, pan: 'ABCPR1234K' }),
        })
      ).status,
    ).toBe(200);
  }
  // (d) a valid configuration, no sync run yet (stored as setup-config stores it, without the queued sync).
  employers.valid = await newEmployer('valid');
  await storesOf(app).hrmsConfigs.save({
    orgId: employers.valid.org.id,
    hrmsId: 'reference',
    apiConfigs: [],
    credentials: { grant_type: 'client_credentials', client_id: realCreds.clientId, client_secret: realCreds.clientSecret, hrms_host: realSim.url },
  });
}, 120_000);
afterAll(async () => {
  await realSim?.close();
  await evilSim?.close();
  await app?.stop();
});

describe('Connect: no vendor can claim an employer (docs/connect.md "Who may approve")', () => {
  describe.each(['sync', 'webhook', 'invalid', 'valid'] as const)('the attack on an employer established %s', (path) => {
    // A gmail address naming the employer never reaches it (the name rule finds only orgs it made, docs/connect.md).
    it('ends in 403s and a pending connection; configuration and employees unchanged; no consent, no read', async () => {
      const e = employers[path];
      const before = await snapshot(e.org.id);
      expect(before.config.length + before.employees.length).toBeGreaterThan(0);
      evilSim.control.resetStats();
      realSim.control.resetStats();
      expect((await issue(attacker, { email: `hr.${++n}@gmail.com`, org_name: e.org.orgName.toUpperCase() })).body.data.org_id).not.toBe(e.org.uuid);
      for (const held of [attacker, attackerClient].map((o) => ({ app_key: o.org.appKey, app_secret: o.appSecret }))) {
        const token = await tokenFor(attacker, e);
        // 1. The token itself on the decision endpoints: no session, no credential.
        for (const [p, body] of [
          ['hrms/', hrmsBody(evilSim, evilCreds)],
          ['approve/', { opted_in: [], opted_out: [] }],
          ['proof/', { app_key: 'x', app_secret: 'y' }],
        ] as const) {
          expectError(
            await call(`${app.url}/api/sdk/connect/${p}`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            }),
            401,
            MISSING,
          );
        }
        // 2. The vendor exchanges the token itself (the HR admin's page then fails, visibly).
        const s = await openSession(app.url, token);
        const view = (await connectCall(app.url, s, '')).body.data;
        expect(view.proof).toStrictEqual({ required: true, proven: false });
        // 3. Its own HRMS: compared, refused, never stored, never called.
        expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, evilCreds)), 403, PROOF_FAILED);
        // 4. Approving without proof.
        expectError(await connectCall(app.url, s, 'approve/', { opted_in: ['pan', 'ctc_basic'], opted_out: [] }), 403, PROOF_FAILED);
        // 5. Application credentials it does hold as "proof": its own vendor org's, or those of a client org it runs.
        expectError(await connectCall(app.url, s, 'proof/', held), 403, PROOF_FAILED);
        expectError(await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: ['pan', 'ctc_basic'] }), 403, PROOF_FAILED);
      }
      const c = await connectionOf(attacker.org.id, e.org.id);
      expect(c.status).toBe('pending');
      // 6. Consent and reads stay refused: no approved connection.
      const consent = await call(`${app.url}/api/v1/employee/consent-data/`, {
        method: 'POST',
        headers: { authorization: attacker.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          org: e.org.uuid,
          employee_id: before.employees[0]?.employee_id ?? 'EMP00001',
          consent_language: 'I agree.',
          consent_timestamp: new Date().toISOString(),
          consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
        }),
      });
      expect(consent.status).not.toBe(200);
      const read = await call(
        `${app.url}/api/employee_details/${before.employees[0]?.employee_id ?? 'EMP00001'}?org=${e.org.uuid}&vendor_org=${attacker.org.uuid}`,
        { headers: { username: attacker.apiKey } },
      );
      expect(read.status).not.toBe(200);
      expect(JSON.stringify(read.body)).not.toContain('ABCPR');
      expect((await dbQuery(app, `select count(*)::int as n from consents where vendor_org_id = $1`, [attacker.org.id])).rows[0].n).toBe(0);
      // Nothing queued a sync or changed a byte, and no HRMS was called on the attacker's behalf.
      await new Promise((r) => setTimeout(r, 1500));
      expect(await snapshot(e.org.id)).toEqual(before);
      expect(evilSim.control.stats().tokenRequests + evilSim.control.stats().pageRequests).toBe(0);
      expect(realSim.control.stats().tokenRequests + realSim.control.stats().pageRequests).toBe(0);
      // Every attempt audited (2 failed proofs and 2 refused approvals per identity), with the source address.
      const audit = await auditOf(c.id);
      expect(audit.map((a) => `${a.method}:${a.outcome}`)).toEqual(
        Array(2).fill(['hrms:failed', 'approve:refused', 'app_credentials:failed', 'approve:refused']).flat(),
      );
      expect(new Set(audit.map((a) => a.source_address))).toEqual(new Set(['127.0.0.1']));
    });
  });

  describe('the legitimate paths still approve', () => {
    it('a new org: the HRMS step stores the configuration and that session may approve', async () => {
      const e = await newEmployer('fresh');
      const s = await openSession(app.url, await tokenFor(lender, e));
      expect((await connectCall(app.url, s, '')).body.data.proof).toStrictEqual({ required: false, proven: false });
      expectError(
        await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }),
        400,
        invalid('hrms', 'enter the HRMS credentials before approving'),
      );
      await verifyEmail(app, s);
      const stored = await connectCall(app.url, s, 'hrms/', hrmsBody(realSim, realCreds));
      expect(stored.status).toBe(200);
      expect(stored.body.data).toMatchObject({ org_id: e.org.uuid, hrms_id: 'reference', configured_apis: ['employees'] });
      const approved = await connectCall(app.url, s, 'approve/', { opted_in: ['pan'], opted_out: ['ctc_basic'] });
      expect(approved.body.data).toMatchObject({ status: 'approved', shared_data_points: ['name', 'pan'] });
      const c = await connectionOf(lender.org.id, e.org.id);
      expect((await auditOf(c.id)).map((a) => `${a.method}:${a.outcome}`)).toEqual(['email:sent', 'email:proven', 'hrms:configured', 'approve:approved']);
    });

    it('an established org (synced): proof (a), the stored HRMS credentials re-entered, compared and not stored', async () => {
      const e = employers.sync;
      const before = await snapshot(e.org.id);
      const s = await openSession(app.url, await tokenFor(lender, e));
      // The same HRMS but another tenant host, or another secret: failed proofs.
      expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, realCreds)), 403, PROOF_FAILED);
      expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(realSim, { ...realCreds, clientSecret: realCreds.clientSecret + 'x' })), 403, PROOF_FAILED);
      // The host as typed may differ in case and trailing slash.
      const body = hrmsBody(realSim, realCreds);
      body.access_credentials.hrms_host = realSim.url.toUpperCase().replace('HTTP://', 'http://') + '/';
      const proven = await connectCall(app.url, s, 'hrms/', body);
      expect(proven.body).toMatchObject({ message: 'success', data: { proven: true } });
      expect((await connectCall(app.url, s, '')).body.data.proof).toStrictEqual({ required: true, proven: true });
      expect((await connectCall(app.url, s, 'approve/', { opted_in: ['pan'], opted_out: [] })).body.data.status).toBe('approved');
      expect(await snapshot(e.org.id)).toEqual(before);
    });

    it("an established org (webhook only): proof (b), the org's app_key and app_secret", async () => {
      const e = employers.webhook;
      const before = await snapshot(e.org.id);
      const s = await openSession(app.url, await tokenFor(lender, e));
      // Without a configuration, proof (a) cannot succeed (and stores nothing).
      expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(realSim, realCreds)), 403, PROOF_FAILED);
      expectError(await connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret.slice(0, -1) + 'x' }), 403, PROOF_FAILED);
      expect((await connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret })).body.data).toStrictEqual({ proven: true });
      expect((await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
      expect(await snapshot(e.org.id)).toEqual(before);
      const c = await connectionOf(lender.org.id, e.org.id);
      expect((await auditOf(c.id)).map((a) => `${a.method}:${a.outcome}`)).toEqual([
        'hrms:failed',
        'app_credentials:failed',
        'app_credentials:proven',
        'approve:approved',
      ]);
    });

    it('proof is bound to the session: a new session of the same connection must prove again', async () => {
      const e = employers.invalid;
      const s1 = await openSession(app.url, await tokenFor(lender, e));
      expect((await connectCall(app.url, s1, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret })).status).toBe(200);
      const s2 = await openSession(app.url, await tokenFor(lender, e));
      expectError(await connectCall(app.url, s1, ''), 401, INVALID);
      expectError(await connectCall(app.url, s2, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
      // The stored (invalid-marked) credentials that the HRMS still accepts prove control.
      expect((await connectCall(app.url, s2, 'hrms/', hrmsBody(realSim, realCreds))).body.data).toStrictEqual({ proven: true });
      expect((await connectCall(app.url, s2, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
      // Still marked invalid: a proof never rewrites the configuration.
      expect((await storesOf(app).hrmsConfigs.load(e.org.id))?.valid).toBe(false);
    });
  });
});

describe('Connect: no vendor can claim an employer (docs/connect.md "Lockout"): lockout (5 failed proofs, 15 minutes)', () => {
  describe('lockout (5 failed proofs, 15 minutes)', () => {
    it('the 6th proof, with the RIGHT app credentials, is refused unchecked; approve too; all audited', async () => {
      const e = employers.valid;
      const v = await f.vendor(app.ctx, 'Persistent Lender');
      const s = await openSession(app.url, await tokenFor(v, e));
      const wrong = [
        () => connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: 'guess-1' }),
        () => connectCall(app.url, s, 'hrms/', hrmsBody(realSim, { ...realCreds, clientSecret: 'guess-2' })),
        () => connectCall(app.url, s, 'proof/', { app_key: 'app_unknown', app_secret: 'guess-3' }),
        () => connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, evilCreds)),
        () => connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: 'guess-5' }),
      ];
      for (const attempt of wrong) expectError(await attempt(), 403, PROOF_FAILED);
      realSim.control.resetStats();
      expectError(await connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret }), 403, PROOF_FAILED);
      expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(realSim, realCreds)), 403, PROOF_FAILED);
      expect(realSim.control.stats().tokenRequests).toBe(0);
      expectError(await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
      // A new token and session for the same pair is locked too (the lock is in PostgreSQL, per pair).
      const s2 = await openSession(app.url, await tokenFor(v, e));
      expectError(await connectCall(app.url, s2, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret }), 403, PROOF_FAILED);
      const c = await connectionOf(v.org.id, e.org.id);
      expect(c.status).toBe('pending');
      const audit = (await auditOf(c.id)).map((a) => `${a.method}:${a.outcome}`);
      expect(audit).toEqual([
        'app_credentials:failed',
        'hrms:failed',
        'app_credentials:failed',
        'hrms:failed',
        'app_credentials:failed',
        'app_credentials:locked',
        'hrms:locked',
        'approve:locked',
        'app_credentials:locked',
      ]);
      const [lock] = (
        await dbQuery(
          app,
          `select extract(epoch from locked_until - now()) as left_sec from connect_proof_locks where vendor_org_id = $1 and client_org_id = $2`,
          [v.org.id, e.org.id],
        )
      ).rows;
      expect(Number(lock.left_sec)).toBeGreaterThan(14 * 60);
      expect(Number(lock.left_sec)).toBeLessThanOrEqual(15 * 60);
      // Once the lock has passed, the right credentials prove control and approval succeeds.
      await dbQuery(app, `update connect_proof_locks set locked_until = now() - interval '1 second' where vendor_org_id = $1 and client_org_id = $2`, [
        v.org.id,
        e.org.id,
      ]);
      expect((await connectCall(app.url, s2, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret })).body.data).toStrictEqual({ proven: true });
      expect((await connectCall(app.url, s2, 'approve/', { opted_in: [], opted_out: [] })).body.data.status).toBe('approved');
    });

    it('parallel wrong proofs are checked at most 5 times', async () => {
      const e = employers.sync;
      const v = await f.vendor(app.ctx, 'Hasty Lender');
      const s = await openSession(app.url, await tokenFor(v, e));
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: `parallel-guess-${i}` })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(403));
      const audit = await auditOf((await connectionOf(v.org.id, e.org.id)).id);
      expect(audit.filter((a) => a.outcome === 'failed').length).toBeLessThanOrEqual(5);
      expect(audit).toHaveLength(12);
    });
  });
});

describe('Connect: no vendor can claim an employer (docs/connect.md "The session"): races and the session', () => {
  describe('races: "not established" is checked atomically with storing', () => {
    it('two sessions for the same new org, two HRMSs at once: one stored, the other a failed proof', async () => {
      const e = await newEmployer('race');
      const [v1, v2] = [await f.vendor(app.ctx, 'Race One'), await f.vendor(app.ctx, 'Race Two')];
      const [s1, s2] = [await openSession(app.url, await tokenFor(v1, e)), await openSession(app.url, await tokenFor(v2, e))];
      await verifyEmail(app, s1);
      await verifyEmail(app, s2);
      const [r1, r2] = await Promise.all([
        connectCall(app.url, s1, 'hrms/', hrmsBody(realSim, realCreds)),
        connectCall(app.url, s2, 'hrms/', hrmsBody(evilSim, evilCreds)),
      ]);
      expect([r1.status, r2.status].sort()).toEqual([200, 403]);
      const winner = r1.status === 200 ? realSim : evilSim;
      expect((await storesOf(app).hrmsConfigs.load(e.org.id))?.credentials.hrms_host).toBe(winner.url);
      const loser = r1.status === 200 ? s2 : s1;
      expectError(await connectCall(app.url, loser, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
    });

    it("a session's configuration replaced by setup-config no longer lets that session approve", async () => {
      const e = await newEmployer('replaced');
      const s = await openSession(app.url, await tokenFor(attacker, e));
      await verifyEmail(app, s);
      expect((await connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, evilCreds))).status).toBe(200);
      expect(
        (
          await call(`${app.url}/api/webhook/v1/setup-config/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(f.setupBody(e, realSim, realCreds)),
          })
        ).status,
      ).toBe(200);
      expectError(await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }), 403, PROOF_FAILED);
      expect((await connectionOf(attacker.org.id, e.org.id)).status).toBe('pending');
    });

    it('an org established by the update webhook after the session opened: the HRMS step stores nothing', async () => {
      const e = await newEmployer('late');
      const s = await openSession(app.url, await tokenFor(attacker, e));
      expect(
        (
          await call(`${app.url}/api/webhook/v1/employee/update/`, {
            method: 'POST',
            headers: { authorization: f.appBasic(e), 'content-type': 'application/json' },
            body: JSON.stringify({ employeeId: 'L1', name: 'Late' }),
          })
        ).status,
      ).toBe(200);
      expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(evilSim, evilCreds)), 403, PROOF_FAILED);
      expect(await storesOf(app).hrmsConfigs.load(e.org.id)).toBeNull();
    });
  });

  describe('the session', () => {
    it('is opened once per token, with an HttpOnly, SameSite=Strict cookie scoped to the Connect API, expiring with the token', async () => {
      const e = await newEmployer('cookie');
      const token = await tokenFor(lender, e);
      const s = await openSession(app.url, token);
      const attrs = s.setCookie.split(';').map((a) => a.trim());
      expect(attrs[0]).toMatch(/^hrx_connect=[A-Za-z0-9_-]{43}$/);
      expect(attrs).toContain('HttpOnly');
      expect(attrs).toContain('SameSite=Strict');
      expect(attrs).toContain('Path=/api/sdk/connect');
      expect(attrs).not.toContain('Secure');
      const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
      const expires = Date.parse(attrs.find((a) => a.startsWith('Expires='))!.slice(8));
      expect(expires).toBeLessThanOrEqual(exp * 1000);
      expect(expires).toBeGreaterThan(Date.now() + 3500_000);
      expect(Number(attrs.find((a) => a.startsWith('Max-Age='))!.slice(8))).toBeLessThanOrEqual(3600);
      // Only a hash of the secret is stored.
      const secret = attrs[0]!.slice('hrx_connect='.length);
      const { rows } = await dbQuery(app, `select encode(secret_hash, 'hex') as h from connect_sessions`);
      expect(rows.some((r) => r.h.includes(Buffer.from(secret).toString('hex')))).toBe(false);
      expect(JSON.stringify(rows)).not.toContain(secret);
      // A second exchange of the same token: 401, no cookie.
      const again = await call(`${app.url}/api/sdk/connect/session/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      expectError(again, 401, INVALID);
      expect(again.headers.get('set-cookie')).toBeNull();
    });

    it('a session for connection A cannot act on connection B', async () => {
      const [a, b] = [await newEmployer('conn-a'), await newEmployer('conn-b')];
      const sa = await openSession(app.url, await tokenFor(lender, a));
      await openSession(app.url, await tokenFor(lender, b));
      const cb = await connectionOf(lender.org.id, b.org.id);
      expectError(
        await connectCall(app.url, sa, 'approve/', { opted_in: [], opted_out: [], connection_id: cb.id }),
        400,
        invalid('connection_id', 'unknown field'),
      );
      await verifyEmail(app, sa);
      expect((await connectCall(app.url, sa, 'hrms/', hrmsBody(realSim, realCreds))).status).toBe(200);
      expect((await connectCall(app.url, sa, 'approve/', { opted_in: [], opted_out: [] })).body.data.connection_id).toBe(
        (await connectionOf(lender.org.id, a.org.id)).id,
      );
      expect((await connectionOf(lender.org.id, b.org.id)).status).toBe('pending');
      expect(await storesOf(app).hrmsConfigs.load(b.org.id)).toBeNull();
    });
  });
});
