/**
 * Connection health through failing syncs (docs/sync.md "Connection health"): three runs in a
 * row that fail for a reason other than the credentials (the simulator answers every call 5xx)
 * make the connection `failing` and send `connection.failing`; the next good run makes it
 * `healthy` and sends `connection.healthy`. The operator sees the same through
 * `hrx connection status` and `/metrics` (`hrx_connection_health{state}`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hrxJson } from '../../support/cli';
import { ormQuery } from '../../support/db';
import { client, connection, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { HEALTH_TTL_MS } from '../../../src/ops/metrics';
import { parseExposition, sampleValue } from '../../support/prom';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';

const HEALTH_EVENTS = ['connection.needs_reauth', 'connection.failing', 'connection.healthy'] as const;

describe('connection health: failing after three failed syncs, healthy again after a good one', () => {
  let app: TestApp;
  let rx: Receiver;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'health-client', clientSecret: 'health-secret' };
  let v: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;
  let connectionId: string;
  let secret: string;

  beforeAll(async () => {
    app = await startTestApp({
      env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_HRMS_RETRIES: '0', HRX_HRMS_RETRY_MIN_MS: '10' },
    });
    await app.startEventsWorker();
    rx = await startReceiver();
    sim = await startSim({ employees: 10, seed: 'health', ...creds });
    v = await vendor(app.ctx);
    c = await client(app.ctx);
    secret = (await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/h'), events: [...HEALTH_EVENTS] })).secret;
    connectionId = (await connection(app.ctx, v.org.uuid, c.org.uuid)).id;
    await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    await waitFor(async () => (await health()) === 'healthy', 60_000);
  });
  afterAll(async () => {
    await sim?.close();
    await rx?.close();
    await app?.stop();
  });

  const health = async () =>
    (await call(`${app.url}/api/vendor/connections/${c.org.uuid}/status/`, { headers: { authorization: v.apiKey } })).body.data?.health as string;
  const failedRuns = async () => (await ormQuery(app, `select count(*)::int as n from sync_runs where org_id = ? and status = 'failed'`, [c.org.id]))[0].n;
  const gauge = async () => {
    const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${app.env.HRX_ADMIN_TOKEN}` } });
    const samples = parseExposition(await res.text());
    return Object.fromEntries(
      ['not_configured', 'syncing', 'healthy', 'needs_reauth', 'failing'].map((state) => [state, sampleValue(samples, 'hrx_connection_health', { state })]),
    );
  };
  /** The gauge once it shows `want`: scrapes reuse the health counts for up to HEALTH_TTL_MS (src/ops/metrics.ts). */
  const gaugeShows = (want: Record<string, number>) =>
    waitFor(async () => {
      const g = await gauge();
      return Object.entries(want).every(([k, n]) => g[k] === n) ? g : null;
    }, HEALTH_TTL_MS + 10_000);

  it('/metrics counts the approved connection as healthy, and every other state at 0', async () => {
    expect(await gauge()).toEqual({ not_configured: 0, syncing: 0, healthy: 1, needs_reauth: 0, failing: 0 });
  });

  it('two failed runs leave it healthy; the third makes it failing, with one connection.failing', async () => {
    sim.control.set({ rate5xx: 1 });
    const jobId = await app.ctx.syncQueue.syncNow(c.org.id, 'test');
    await waitFor(async () => (await failedRuns()) >= 2, 30_000);
    expect(rx.at('/h')).toEqual([]);
    const [failing] = await rx.waitForCount('/h', 1, 'connection.failing', 30_000);
    expect(await failedRuns()).toBe(3);
    expect(verifySignature(secret, failing!)).toBe(true);
    expect(failing!.json.data).toMatchObject({ client_org_id: c.org.uuid, health: 'failing', previous_health: 'healthy', reason: 'unavailable' });
    expect(await health()).toBe('failing');
    expect(await gaugeShows({ healthy: 0, failing: 1 })).toMatchObject({ healthy: 0, failing: 1 });
    // The job dashboard's log of the job: the health after each of its runs.
    const logs = await waitFor(async () => {
      const l = (await app.ctx.syncQueue.queue.getJobLogs(jobId)).logs;
      return l.length >= 3 ? l : null;
    });
    expect(logs.slice(0, 3)).toEqual(['connection health: healthy', 'connection health: healthy', 'connection health: failing']);
  });

  it('hrx connection status shows the same to the operator, by client org and by connection id', async () => {
    const byOrg = await hrxJson(['connection', 'status', c.org.uuid], app.env);
    expect(byOrg).toMatchObject({
      client_org: c.org.uuid,
      org_name: c.org.orgName,
      connection_id: null,
      health: 'failing',
      employees: 10,
      last_sync_status: 'failed',
      connections: [{ id: connectionId, vendor_org: v.org.uuid, vendor_name: v.org.orgName, status: 'approved' }],
    });
    const byConnection = await hrxJson(['connection', 'status', connectionId], app.env);
    expect(byConnection).toMatchObject({ client_org: c.org.uuid, connection_id: connectionId, health: 'failing' });
    expect(byConnection.last_successful_sync).toBe(byOrg.last_successful_sync);
  });

  it('the HRMS answers again: the next sync succeeds, healthy, one connection.healthy', async () => {
    sim.control.set({ rate5xx: 0 });
    // The failing job's own retries back off for minutes by now: a new sync comes first.
    await app.ctx.syncQueue.syncNow(c.org.id, 'test');
    const [back] = await rx.waitForCount('/h', 1, 'connection.healthy', 60_000);
    expect(back!.json.data).toMatchObject({ health: 'healthy', previous_health: 'failing', reason: null });
    expect(await health()).toBe('healthy');
    expect(await gaugeShows({ healthy: 1, failing: 0 })).toMatchObject({ healthy: 1, failing: 0 });
    expect(rx.at('/h').map((r) => r.json.type)).toEqual(['connection.failing', 'connection.healthy']);
  });

  it('an org whose health was never stored (runs from before it was kept) reads from its last run and its configuration', async () => {
    await ormQuery(app, `delete from org_health where org_id = ?`, [c.org.id]);
    expect(await health()).toBe('healthy');
    expect(await gaugeShows({ healthy: 1, syncing: 0 })).toMatchObject({ healthy: 1, syncing: 0 });
    await ormQuery(app, `update hrms_configs set valid = false where org_id = ?`, [c.org.id]);
    expect(await health()).toBe('needs_reauth');
    expect(await gaugeShows({ healthy: 0, needs_reauth: 1 })).toMatchObject({ healthy: 0, needs_reauth: 1 });
  });
});
