/**
 * What a vendor with only a pending connection learns of an employer (docs/api.md "Connection
 * status", "Org details"; docs/connect.md "What a pending connection sees"), as the attacker
 * would go: any vendor creates a pending connection alone, with an SDK token naming an address on
 * the employer's domain, then reads the employer's sync status, its own Connect view and the
 * employer's org record. The status is byte for byte the unknown org's 404; the view names no
 * HRMS until the session gives proof of control; the org record withholds the internal ids,
 * `email_domain`, `modified_on`, the HRMS and the secrets' last characters. The approved vendor
 * sees them all, so each check can fail.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession, type TestSession } from '../../support/connect';
import { withoutRequestId } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const DOMAIN = 'pending-peek.example';
const creds = { clientId: 'peek-client', clientSecret: 'peek-hrms-secret-J7' };

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let c: Awaited<ReturnType<typeof f.client>>;
/** The employer's vendor: an approved connection. */
let approved: Awaited<ReturnType<typeof f.vendor>>;
/** Any other vendor: a pending connection of its own making. */
let pending: Awaited<ReturnType<typeof f.vendor>>;
let session: TestSession;

const get = (path: string, key: string) => call(`${app.url}${path}`, { headers: { authorization: key } });
const status = (key: string, org = c.org.uuid) => get(`/api/vendor/connections/${org}/status/`, key);
const details = (key: string) => get(`/api/org_details/${c.org.uuid}/`, key);
/** An answer as the wire carries it, less the request id that differs per request. */
const wire = (res: Awaited<ReturnType<typeof call>>) => ({
  status: res.status,
  contentType: res.headers.get('content-type'),
  body: JSON.stringify(withoutRequestId(res.body)),
});

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 5, seed: 'pending-peek', ...creds });
  c = await f.client(app.ctx, 'Peeked Employer', DOMAIN);
  approved = await f.vendor(app.ctx);
  pending = await f.vendor(app.ctx);
  await f.connection(app.ctx, approved.org.uuid, c.org.uuid);
  const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(f.setupBody(c, sim, creds)),
  });
  expect(setup.status).toBe(200);
  expect(await app.ctx.services.sync.run(c.org.id, 'test', 'pending-peek')).toMatchObject({ status: 'succeeded', employees: 5 });
  // The attacker's one step: a token naming any address on the employer's domain.
  const token = await call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: pending.apiKey },
    body: JSON.stringify({ email: `anyone@${DOMAIN}`, org_name: 'whatever', fullname: 'Anyone' }),
  });
  expect({ status: token.status, org_id: token.body.data?.org_id }).toStrictEqual({ status: 200, org_id: c.org.uuid });
  session = await openSession(app.url, token.body.data.access_token);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

describe('a pending connection learns nothing of the employer', () => {
  it('status: the approved vendor reads it; the pending vendor gets the unknown org 404, byte for byte', async () => {
    const mine = await status(approved.apiKey);
    expect(mine.body.data).toMatchObject({ health: 'healthy', employees: 5 });
    const unknown = wire(await status(pending.apiKey, randomUUID()));
    expect(unknown.status).toBe(404);
    expect(wire(await status(pending.apiKey))).toStrictEqual(unknown);
  });

  it('the Connect view names the HRMS only after proof of control (b)', async () => {
    const before = (await connectCall(app.url, session, '')).body.data;
    expect({ status: before.status, proof: before.proof, configured: before.hrms.configured, reauth: before.reauth }).toStrictEqual({
      status: 'pending',
      proof: { required: true, proven: false },
      configured: null,
      reauth: null,
    });
    expect((await connectCall(app.url, session, 'proof/', { app_key: c.org.appKey, app_secret: c.appSecret })).status).toBe(200);
    expect((await connectCall(app.url, session, '')).body.data.hrms.configured).toBe('reference');
  });

  it("org_details: the approved vendor's record holds the private fields; the pending vendor's withholds them", async () => {
    const full = await details(approved.apiKey);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ id: c.org.id, email_domain: DOMAIN });
    expect(full.body.application.app_secret).toMatch(/^\*+[^*]{4}$/);
    const seen = await details(pending.apiKey);
    expect(seen.status).toBe(200);
    expect(seen.body).toStrictEqual({
      ...full.body,
      id: 0,
      application: { app_name: full.body.application.app_name, app_key: '********', app_secret: '********' },
      email_domain: null,
      modified_on: full.body.created_on,
      hrms: null,
      invited_by: 0,
      created_by: 0,
    });
  });
});
