/**
 * Every `sync_id` that sync on demand answers becomes a sync run the status endpoint shows
 * (docs/api.md "Sync on demand"), over HTTP with the real sync worker and the reference HRMS
 * simulator: a sync promised while the employer's HRMS refuses the stored credentials (the
 * configuration marked invalid, as a refused run marks it, e.g. by a sync already queued by the
 * approval that ran first) ends before it starts, and is recorded as `skipped` with its reason
 * rather than never appearing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbQuery, ormQuery } from '../../support/db';
import { client, connection, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

describe('POST /api/vendor/connections/{client_org}/sync/: a promised run that ends before it starts', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'promised-client', clientSecret: 'promised-secret' };

  beforeAll(async () => {
    app = await startTestApp();
    sim = await startSim({ employees: 3, seed: 'sync-promised', ...creds });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  it('the configuration refused meanwhile: the sync_id is a skipped run with its reason, shown by the status endpoint', async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    expect(setup.status).toBe(200);
    const runs = () => ormQuery(app, `select id, status, trigger, error from sync_runs where org_id = ? order by started_at`, [c.org.id]);
    await waitFor(async () => (await runs()).some((r) => r.status === 'succeeded'), 60_000);
    await waitFor(async () => (await runs()).every((r) => r.status !== 'running'), 60_000);
    // As a run the HRMS refused leaves it (src/setup/store.ts markInvalid).
    await dbQuery(app, `update hrms_configs set valid = false, invalid_reason = 'auth' where org_id = $1`, [c.org.id]);

    const asked = await call(`${app.url}/api/vendor/connections/${c.org.uuid}/sync/`, { method: 'POST', headers: { authorization: v.apiKey } });
    expect(asked.status).toBe(202);
    const syncId = asked.body.data.sync_id as string;
    const run = await waitFor(async () => (await runs()).find((r) => r.id === syncId), 30_000);
    expect(run).toMatchObject({
      status: 'skipped',
      trigger: 'vendor',
      error: 'skipped: config_invalid (the HRMS refused the stored credentials; new ones are needed)',
    });
    const status = await call(`${app.url}/api/vendor/connections/${c.org.uuid}/status/`, { headers: { authorization: v.apiKey } });
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ last_sync_id: syncId, last_sync_status: 'skipped' });
  });
});
