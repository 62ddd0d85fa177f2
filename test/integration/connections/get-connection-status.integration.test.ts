/**
 * `GET /api/vendor/connections/{client_org}/status/` (docs/api.md "Connection status") and the
 * health behind it (docs/sync.md "Connection health"), over HTTP against the reference HRMS
 * simulator: the employer's HRMS password changes (the simulator restarts on the same port with
 * another client secret), the next sync makes the connection `needs_reauth` and the vendor hears
 * `connection.needs_reauth` at its endpoint (checked with the `standardwebhooks` package, as a
 * vendor would); setup-config again with the new credentials, the next sync makes it `healthy`
 * and sends `connection.healthy`.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDocumented } from '../../support/api-client';
import { ormQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { client, connection, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, type Received, type Receiver } from '../../support/receiver';

const N = 12;
const DOC_PATH = '/api/vendor/connections/{client_org}/status/';
const HEALTH_EVENTS = ['connection.needs_reauth', 'connection.failing', 'connection.healthy'];

/** What a vendor does with a delivery: verify it with the official library, then read it. */
const verifiedBy = (webhook: Webhook, r: Received) =>
  webhook.verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; data: Record<string, unknown> };

describe('GET /api/vendor/connections/{client_org}/status/: health through a password change', () => {
  let app: TestApp;
  let rx: Receiver;
  let sim: Awaited<ReturnType<typeof startSim>>;
  let port: number;
  const creds = { clientId: 'status-client', clientSecret: 'status-secret-1' };
  const changed = { clientId: 'status-client', clientSecret: 'status-secret-2' };
  let v: Awaited<ReturnType<typeof vendor>>;
  let stranger: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;
  let webhook: Webhook;
  let firstSuccess: string;
  let changedAt: number;

  beforeAll(async () => {
    app = await startTestApp({ env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_HRMS_RETRIES: '1' } });
    await app.startEventsWorker();
    rx = await startReceiver();
    sim = await startSim({ employees: N, seed: 'status', ...creds });
    port = sim.port;
    v = await vendor(app.ctx);
    stranger = await vendor(app.ctx);
    c = await client(app.ctx);
    // Every event type (no list): the endpoint a vendor registers without choosing.
    webhook = new Webhook((await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/v') })).secret);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
  });
  afterAll(async () => {
    await sim?.close();
    await rx?.close();
    await app?.stop();
  });

  const status = (key = v.apiKey, org = c.org.uuid) => call(`${app.url}/api/vendor/connections/${org}/status/`, { headers: { authorization: key } });
  const setup = (secret: typeof creds) =>
    call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, secret)),
    });
  const runs = () => ormQuery(app, `select id, status, error, started_at, finished_at from sync_runs where org_id = ? order by started_at`, [c.org.id]);
  const healthEvents = () => rx.at('/v').filter((r) => HEALTH_EVENTS.includes(String(r.json?.type)));
  const verified = (r: Received) => verifiedBy(webhook, r);

  it('before any HRMS configuration: not_configured, nothing synced, no coverage', async () => {
    const res = await status();
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      health: 'not_configured',
      last_successful_sync: null,
      last_sync_attempt: null,
      last_sync_id: null,
      last_sync_status: null,
      next_sync_at: null,
      employees: 0,
      coverage: null,
    });
    expectDocumented('get', DOC_PATH, 200, res.body);
  });

  it('a client org the vendor has no connection with, an unknown org and a non-uuid are 404 Not found.', async () => {
    expectError(await status(stranger.apiKey), 404, plain('Not found.'));
    expectError(await status(v.apiKey, '00000000-0000-4000-8000-000000000000'), 404, plain('Not found.'));
    expectError(await status(v.apiKey, 'not-a-uuid'), 404, plain('Not found.'));
    expect((await status('nope')).status).toBe(401);
  });

  it('setup-config and its sync: healthy, with the times of the run, the employees served and the next scheduled sync', async () => {
    expect((await setup(creds)).status).toBe(200);
    const res = await waitFor(async () => {
      const r = await status();
      return r.body.data.health === 'healthy' ? r : null;
    }, 60_000);
    const [run] = await runs();
    firstSuccess = new Date(run.finished_at).toISOString();
    expect(res.body.data).toMatchObject({
      health: 'healthy',
      last_successful_sync: firstSuccess,
      last_sync_attempt: new Date(run.started_at).toISOString(),
      last_sync_id: run.id,
      last_sync_status: 'succeeded',
      employees: N,
    });
    expect(Date.parse(res.body.data.next_sync_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expectDocumented('get', DOC_PATH, 200, res.body);
    // A first success is no change of health worth an event.
    expect(healthEvents()).toEqual([]);
  });

  it('the HRMS refuses the stored credentials: the next sync makes it needs_reauth and the vendor hears connection.needs_reauth once', async () => {
    await sim.close();
    sim = await startSim({ employees: N, seed: 'status', ...changed, port });
    changedAt = Date.now();
    // The next sync: the vendor's own sync on demand (the scheduled one would do the same, later).
    const asked = await call(`${app.url}/api/vendor/connections/${c.org.uuid}/sync/`, { method: 'POST', headers: { authorization: v.apiKey } });
    expect(asked.status).toBe(202);
    const [delivery] = await rx.waitForCount('/v', 1, 'connection.needs_reauth', 60_000);
    const latencyMs = delivery!.at - changedAt;
    console.log(`credential change at the HRMS -> connection.needs_reauth received: ${latencyMs} ms`);
    const event = verified(delivery!);
    const failed = (await runs()).at(-1);
    expect(failed).toMatchObject({ id: asked.body.data.sync_id, status: 'failed' });
    expect(event).toEqual({
      type: 'connection.needs_reauth',
      timestamp: new Date(failed.finished_at).toISOString(),
      data: {
        client_org_id: c.org.uuid,
        health: 'needs_reauth',
        previous_health: 'healthy',
        sync_run_id: failed.id,
        reason: 'auth',
        last_successful_sync: firstSuccess,
      },
    });
    const res = await status();
    expect(res.body.data).toMatchObject({
      health: 'needs_reauth',
      last_successful_sync: firstSuccess,
      last_sync_id: failed.id,
      last_sync_status: 'failed',
      // The copy the vendor reads is still there: the employees of the last good sync.
      employees: N,
    });
    // Nothing of the HRMS's answer or the credentials reaches the vendor.
    expect(JSON.stringify(event)).not.toContain(changed.clientSecret);
    expect(JSON.stringify(res.body)).not.toContain(creds.clientSecret);
  });

  it('setup-config again with the new credentials: the next sync makes it healthy and sends connection.healthy', async () => {
    expect((await setup(changed)).status).toBe(200);
    const [back] = await rx.waitForCount('/v', 1, 'connection.healthy', 60_000);
    const event = verified(back!);
    const good = (await runs()).at(-1);
    expect(good.status).toBe('succeeded');
    expect(event.data).toEqual({
      client_org_id: c.org.uuid,
      health: 'healthy',
      previous_health: 'needs_reauth',
      sync_run_id: good.id,
      reason: null,
      last_successful_sync: new Date(good.finished_at).toISOString(),
    });
    const res = await status();
    expect(res.body.data).toMatchObject({ health: 'healthy', last_successful_sync: new Date(good.finished_at).toISOString(), last_sync_id: good.id });
    // One event per change of health, in order.
    expect(healthEvents().map((r) => r.json.type)).toEqual(['connection.needs_reauth', 'connection.healthy']);
  });
});
