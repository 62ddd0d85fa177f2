/**
 * `POST /api/sdk/connect/hrms/` in "update credentials" mode (docs/connect.md "Updating refused
 * credentials"), over HTTP: the employer's HRMS password changes (the reference simulator
 * restarts on its port with another secret), a real sync makes the org `needs_reauth`, and a
 * vendor's new SDK token opens a Connect session for the (approved) connection. Without proof of
 * control nothing is stored; with proof (b) a different HRMS host is refused, wrong new
 * credentials are a 400 that counts toward the pair's lock, right ones replace the stored ones,
 * a sync runs at once, the org turns `healthy` and the vendor hears `connection.healthy`. An
 * e-mail code to an address on the org's own domain serves as proof too. A healthy org's HRMS
 * step still only compares.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession, verifyEmail, type TestSession } from '../../support/connect';
import { dbQuery, ormQuery, storesOf } from '../../support/db';
import { expectError, invalid, plain } from '../../support/expect-error';
import { client, connection, sdkToken, vendor } from '../../support/factories';
import { startSim, startTestApp, type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';
import { hrmsBody, needsReauth, NEW, OLD, storedSecret } from '../../support/reauth';

type Sim = Awaited<ReturnType<typeof startSim>>;
type Vendor = Awaited<ReturnType<typeof vendor>>;
type Client = Awaited<ReturnType<typeof client>>;

const CODE_CANNOT =
  "an e-mail code cannot set up this organisation, because the token's address is not on the organisation's own e-mail domain: " +
  "the operator must approve this connection (hrx connection approve), or prove control with the organisation's application key and secret";
const PROOF_NEEDED =
  "prove that you manage this organisation first: its application key and secret, or an e-mail code sent to an address on the organisation's own e-mail domain";

const audits = (app: TestApp, connectionId: string) =>
  ormQuery(app, `select method, outcome from connect_proof_audit where connection_id = ? order by id`, [connectionId]).then((r) =>
    r.map((x) => `${x.method}:${x.outcome}`),
  );
const health = async (app: TestApp, orgId: number) => (await ormQuery(app, `select state from org_health where org_id = ?`, [orgId]))[0]?.state;

describe('POST /api/sdk/connect/hrms/ while the HRMS refuses the stored credentials', () => {
  let app: TestApp;
  let rx: Receiver;
  let sim: Sim;
  let attacker: Sim;
  let v: Vendor;
  let c: Client;
  let s: TestSession;
  let refusedAt: string;
  let connectionId: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_HRMS_RETRIES: '1' } });
    await app.startEventsWorker();
    rx = await startReceiver();
    v = await vendor(app.ctx);
    c = await client(app.ctx, 'Reauth Employer', 'reauth-employer.example');
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/v') });
    connectionId = (await connection(app.ctx, v.org.uuid, c.org.uuid)).id;
    ({ sim, refusedAt } = await needsReauth(app, rx, '/v', v, c, 'reauth'));
    // The attacker's own HRMS, which would accept the attacker's credentials.
    attacker = await startSim({ employees: 1, seed: 'attacker', clientId: 'attacker', clientSecret: 'attacker-secret' });
    const token = await sdkToken(app.ctx, v.org, { email: 'hr@reauth-employer.example', org_name: 'Reauth Employer' });
    s = await openSession(app.url, token.access_token);
  }, 120_000);
  afterAll(async () => {
    await attacker?.close();
    await sim?.close();
    await rx?.close();
    await app?.stop();
  });

  it('the view of a new token for the approved connection is in update-credentials mode: which HRMS refused, and when', async () => {
    const res = await connectCall(app.url, s, '');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ connection_id: connectionId, status: 'approved', proof: { required: true, proven: false } });
    expect(res.body.data.reauth).toEqual({ hrms_id: 'reference', product_name: 'Reference HRMS (test)', refused_at: refusedAt });
  });

  it('without proof of control: refused before the HRMS is asked, nothing stored, the attempt audited', async () => {
    const res = await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, NEW));
    expectError(res, 400, invalid('proof', PROOF_NEEDED));
    expect(await storedSecret(app, c.org.id)).toBe(OLD.clientSecret);
    expect(await audits(app, connectionId)).toEqual(['hrms:refused']);
  });

  it('after proof (b): another HRMS host is refused (the sync cannot be redirected), nothing stored', async () => {
    expect((await connectCall(app.url, s, 'proof/', { app_key: c.org.appKey, app_secret: c.appSecret })).body.data).toEqual({ proven: true });
    const res = await connectCall(app.url, s, 'hrms/', hrmsBody(attacker.url, { clientId: 'attacker', clientSecret: 'attacker-secret' }));
    expectError(res, 400, invalid('access_credentials.hrms_host', 'must be the HRMS address already set up for this organisation'));
    expect((await storesOf(app).hrmsConfigs.load(c.org.id))?.credentials).toMatchObject({ hrms_host: sim.url, client_secret: OLD.clientSecret });
  });

  it('wrong new credentials: 400 with what the HRMS answered, counted toward the lock, nothing stored', async () => {
    const res = await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, { clientId: NEW.clientId, clientSecret: 'still-wrong' }));
    expectError(res, 400, { code: 400, ...plain('HRMS credentials rejected: the HRMS refused the credentials') });
    const [lock] = await ormQuery(app, `select failures from connect_proof_locks where vendor_org_id = ? and client_org_id = ?`, [v.org.id, c.org.id]);
    expect(lock.failures).toBe(1);
    expect(await storedSecret(app, c.org.id)).toBe(OLD.clientSecret);
  });

  it('five refused tries lock the pair: the sixth, even with the right credentials, is 403 and the HRMS is not called', async () => {
    const third = await vendor(app.ctx);
    const s3 = await openSession(app.url, (await sdkToken(app.ctx, third.org, { email: 'hr@reauth-employer.example', org_name: 'x' })).access_token);
    // A pending connection's page names no HRMS and no refusal before proof (docs/connect.md "What a pending connection sees").
    const unproven = (await connectCall(app.url, s3, '')).body.data;
    expect({ status: unproven.status, configured: unproven.hrms.configured, reauth: unproven.reauth }).toStrictEqual({
      status: 'pending',
      configured: null,
      reauth: null,
    });
    expect((await connectCall(app.url, s3, 'proof/', { app_key: c.org.appKey, app_secret: c.appSecret })).status).toBe(200);
    expect((await connectCall(app.url, s3, '')).body.data).toMatchObject({
      status: 'pending',
      hrms: { configured: 'reference' },
      reauth: { hrms_id: 'reference' },
    });
    for (let i = 0; i < 5; i++)
      expect((await connectCall(app.url, s3, 'hrms/', hrmsBody(sim.url, { clientId: NEW.clientId, clientSecret: `no-${i}` }))).status).toBe(400);
    const before = sim.control.stats().tokenRequests;
    expectError(await connectCall(app.url, s3, 'hrms/', hrmsBody(sim.url, NEW)), 403, plain('Proof of control failed'));
    expect(sim.control.stats().tokenRequests).toBe(before);
    expect(await storedSecret(app, c.org.id)).toBe(OLD.clientSecret);
  });

  it('right new credentials replace the stored ones; the sync queued at once makes the org healthy and the vendor hears connection.healthy', async () => {
    const res = await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, NEW));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ org_id: c.org.uuid, hrms_id: 'reference', configured_apis: ['employees'] });
    expect(await storedSecret(app, c.org.id)).toBe(NEW.clientSecret);
    const [healthy] = await rx.waitForCount('/v', 1, 'connection.healthy', 60_000);
    expect(healthy!.json.data).toMatchObject({ client_org_id: c.org.uuid, health: 'healthy', previous_health: 'needs_reauth' });
    expect(await health(app, c.org.id)).toBe('healthy');
    expect(await audits(app, connectionId)).toEqual(['hrms:refused', 'app_credentials:proven', 'hrms:error', 'hrms:failed', 'hrms:configured']);
    // The mode ends with the refusal; the connection stays approved.
    expect((await connectCall(app.url, s, '')).body.data).toMatchObject({ status: 'approved', reauth: null });
  });

  it('a healthy org: the HRMS step of a pending connection only compares, even after proof (b), and never replaces', async () => {
    const other = await vendor(app.ctx);
    const token = await sdkToken(app.ctx, other.org, { email: 'hr@reauth-employer.example', org_name: 'Reauth Employer' });
    const s2 = await openSession(app.url, token.access_token);
    expect((await connectCall(app.url, s2, '')).body.data).toMatchObject({ status: 'pending', reauth: null });
    expect((await connectCall(app.url, s2, 'proof/', { app_key: c.org.appKey, app_secret: c.appSecret })).status).toBe(200);
    expectError(
      await connectCall(app.url, s2, 'hrms/', hrmsBody(sim.url, { clientId: NEW.clientId, clientSecret: 'another' })),
      403,
      plain('Proof of control failed'),
    );
    expect(await storedSecret(app, c.org.id)).toBe(NEW.clientSecret);
    // The approved connection's new session outside the mode: decided, nothing to change.
    const again = await openSession(app.url, (await sdkToken(app.ctx, v.org, { email: 'hr@reauth-employer.example', org_name: 'x' })).access_token);
    expect((await connectCall(app.url, again, 'hrms/', hrmsBody(sim.url, NEW))).status).toBe(409);
  });
});

describe('POST /api/sdk/connect/hrms/ while the HRMS refuses: an e-mail code on the org own domain as proof', () => {
  let app: TestApp;
  let rx: Receiver;
  let sim: Sim;
  let v: Vendor;
  let c: Client;

  beforeAll(async () => {
    app = await startTestApp({ env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_HRMS_RETRIES: '1' } });
    await app.startEventsWorker();
    rx = await startReceiver();
    v = await vendor(app.ctx);
    c = await client(app.ctx, 'Mail Employer', 'mail-employer.example');
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/m') });
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    ({ sim } = await needsReauth(app, rx, '/m', v, c, 'reauth-mail'));
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
    await rx?.close();
    await app?.stop();
  });

  it("an address that is not on the org's own domain: no code is sent, and new credentials stay refused", async () => {
    const s = await openSession(app.url, (await sdkToken(app.ctx, v.org, { email: 'it@mail-employer.example', org_name: 'Mail Employer' })).access_token);
    // The org's domain changed after the token named it: the token's address is no longer the org's own.
    await dbQuery(app, `update orgs set email_domain = 'elsewhere.example' where id = $1`, [c.org.id]);
    try {
      expectError(await connectCall(app.url, s, 'email-code/', undefined), 400, invalid('email', CODE_CANNOT));
      expect(app.mailbox!.to('it@mail-employer.example')).toEqual([]);
      expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, NEW)), 400, invalid('proof', PROOF_NEEDED));
      expect(await storedSecret(app, c.org.id)).toBe(OLD.clientSecret);
    } finally {
      await dbQuery(app, `update orgs set email_domain = 'mail-employer.example' where id = $1`, [c.org.id]);
    }
  });

  it('the code verified in the session lets the new credentials replace the refused ones', async () => {
    const s = await openSession(app.url, (await sdkToken(app.ctx, v.org, { email: 'it@mail-employer.example', org_name: 'Mail Employer' })).access_token);
    expectError(await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, NEW)), 400, invalid('proof', PROOF_NEEDED));
    await verifyEmail(app, s);
    // A code proves the address only while it is on the org's own domain.
    await dbQuery(app, `update orgs set email_domain = 'elsewhere.example' where id = $1`, [c.org.id]);
    const refused = await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, NEW));
    await dbQuery(app, `update orgs set email_domain = 'mail-employer.example' where id = $1`, [c.org.id]);
    expectError(refused, 400, invalid('proof', PROOF_NEEDED));
    const res = await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, NEW));
    expect(res.status).toBe(200);
    expect(await storedSecret(app, c.org.id)).toBe(NEW.clientSecret);
    await rx.waitForCount('/m', 1, 'connection.healthy', 60_000);
    expect(await health(app, c.org.id)).toBe('healthy');
  });
});

describe('POST /api/sdk/connect/hrms/ while the HRMS refuses: an org first set up on the Connect page', () => {
  let app: TestApp;
  let rx: Receiver;
  let sim: Sim;
  let v: Vendor;
  let c: Client;
  let connectionId: string;
  let enteredBy: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_HRMS_RETRIES: '1' } });
    await app.startEventsWorker();
    rx = await startReceiver();
    v = await vendor(app.ctx);
    c = await client(app.ctx, 'Connect Employer', 'connect-employer.example');
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/c') });
    // The employer's HR admin sets the new org up on the page: e-mail code, HRMS, approve.
    ({ sim } = await needsReauth(app, rx, '/c', v, c, 'reauth-connect', async (first) => {
      const s = await openSession(app.url, (await sdkToken(app.ctx, v.org, { email: 'hr@connect-employer.example', org_name: 'x' })).access_token);
      await verifyEmail(app, s);
      expect((await connectCall(app.url, s, 'hrms/', hrmsBody(first.url, OLD))).status).toBe(200);
      const approved = await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
      expect(approved.body.data.status).toBe('approved');
      connectionId = approved.body.data.connection_id;
    }));
    enteredBy = (await storesOf(app).hrmsConfigs.load(c.org.id))!.connectSessionId!;
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
    await rx?.close();
    await app?.stop();
  });

  it('new credentials for the same tenant keep the approval that rested on the tenant entered on the page', async () => {
    expect(enteredBy).toMatch(/^[0-9a-f-]{36}$/);
    const s = await openSession(app.url, (await sdkToken(app.ctx, v.org, { email: 'hr@connect-employer.example', org_name: 'x' })).access_token);
    expect((await connectCall(app.url, s, 'proof/', { app_key: c.org.appKey, app_secret: c.appSecret })).status).toBe(200);
    expect((await connectCall(app.url, s, 'hrms/', hrmsBody(sim.url, NEW))).status).toBe(200);
    await rx.waitForCount('/c', 1, 'connection.healthy', 60_000);
    const [row] = await ormQuery(app, `select status, approved_on_config_session from connections where id = ?`, [connectionId]);
    expect(row).toEqual({ status: 'approved', approved_on_config_session: enteredBy });
    expect((await storesOf(app).hrmsConfigs.load(c.org.id))?.connectSessionId).toBe(enteredBy);
  });
});
