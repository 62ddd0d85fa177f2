/**
 * `POST /api/vendor/connections/{client_org}/sync/` (docs/api.md "Sync on demand"), over HTTP with
 * the real sync worker and the reference HRMS simulator: 202 with the run id the sync runs as; a
 * sync already waiting or running is answered instead of a second; at most one an hour per
 * connection (429 with Retry-After); no approved connection (none, pending) is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, expectDocumented } from '../../support/api-client';
import { ormQuery } from '../../support/db';
import { expectError, plain, UUID_V4 } from '../../support/expect-error';
import { client, connection, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

const DOC_PATH = '/api/vendor/connections/{client_org}/sync/';

describe('POST /api/vendor/connections/{client_org}/sync/', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'sync-client', clientSecret: 'sync-secret' };
  let v: Awaited<ReturnType<typeof vendor>>;
  let other: Awaited<ReturnType<typeof vendor>>;
  let pending: Awaited<ReturnType<typeof vendor>>;
  let stranger: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;

  beforeAll(async () => {
    app = await startTestApp({ env: { HRX_SYNC_BATCH_SIZE: '5' } });
    sim = await startSim({ employees: 25, seed: 'sync-on-demand', ...creds });
    [v, other, pending, stranger] = [await vendor(app.ctx), await vendor(app.ctx), await vendor(app.ctx), await vendor(app.ctx)];
    c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    await connection(app.ctx, other.org.uuid, c.org.uuid);
    await connection(app.ctx, pending.org.uuid, c.org.uuid, { status: 'pending' });
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    expect(res.status).toBe(200);
    // The first sync (setup-config's) is over before the vendors ask for theirs.
    await waitFor(async () => (await runs()).some((r) => r.status === 'succeeded'), 60_000);
    await waitFor(async () => (await runs()).every((r) => r.status !== 'running'), 60_000);
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  const runs = () => ormQuery(app, `select id, status, trigger, kind, started_at from sync_runs where org_id = ? order by started_at`, [c.org.id]);
  const ask = (key: string, body?: unknown, org = c.org.uuid) =>
    call(`${app.url}/api/vendor/connections/${org}/sync/`, {
      method: 'POST',
      headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('202 with the run id the sync runs as; asked again while it waits or runs, the same sync, never a second', async () => {
    sim.control.set({ latencyMs: 300 });
    const before = Date.now();
    const first = await ask(v.apiKey);
    expect(first.status).toBe(202);
    expectDocumented('post', DOC_PATH, 202, first.body);
    const { sync_id: syncId, kind, queued_at: queuedAt } = first.body.data;
    expect(syncId).toMatch(UUID_V4);
    // The reference HRMS lists no changes: every sync of it is full.
    expect(kind).toBe('full');
    expect(Date.parse(queuedAt)).toBeGreaterThanOrEqual(before - 5);
    // Waiting or already running: the same sync.
    expect((await ask(v.apiKey)).body.data.sync_id).toBe(syncId);
    const running = await waitFor(async () => (await runs()).find((r) => r.id === syncId && r.status === 'running'), 30_000, 20);
    const during = await ask(v.apiKey);
    expect(during.status).toBe(202);
    expect(during.body.data).toEqual({ sync_id: syncId, kind: 'full', queued_at: new Date(running.started_at).toISOString() });
    // Another vendor of the same org asking now also gets the running sync, not a second one.
    expect((await ask(other.apiKey)).body.data.sync_id).toBe(syncId);
    await waitFor(async () => (await runs()).find((r) => r.id === syncId && r.status === 'succeeded'), 60_000);
    sim.control.set({ latencyMs: 0 });
    const mine = (await runs()).filter((r) => r.trigger === 'vendor');
    expect(mine.map((r) => [r.id, r.kind, r.status])).toEqual([[syncId, 'full', 'succeeded']]);
    const status = await call(`${app.url}/api/vendor/connections/${c.org.uuid}/status/`, { headers: { authorization: v.apiKey } });
    expect(status.body.data).toMatchObject({ health: 'healthy', last_sync_id: syncId, last_sync_status: 'succeeded' });
  });

  it('a second sync within the hour is 429 with Retry-After; another connection has its own hour; {"full": true} asks for a full one', async () => {
    const again = await ask(v.apiKey);
    const wait = Number(again.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);
    expectError(again, 429, plain(`Request was throttled. Expected available in ${wait} seconds.`));
    // Two calls at once: one sync, both answered with it.
    const [full, twin] = await Promise.all([ask(other.apiKey, { full: true }), ask(other.apiKey, { full: true })]);
    expect([full.status, twin.status]).toEqual([202, 202]);
    expect(twin.body.data.sync_id).toBe(full.body.data.sync_id);
    expect(full.body.data.kind).toBe('full');
    expect(full.body.data.sync_id).not.toBe((await runs()).at(-1).id);
    const run = await waitFor(async () => (await runs()).find((r) => r.id === full.body.data.sync_id && r.status === 'succeeded'), 60_000);
    expect(run).toMatchObject({ trigger: 'vendor', kind: 'full' });
    expect((await ask(other.apiKey, {})).status).toBe(429);
  });

  it('through the typed client: the status, and the 429 as the document describes it', async () => {
    const api = apiClient(app.url);
    const params = { path: { client_org: c.org.uuid } };
    const status = await api.GET('/api/vendor/connections/{client_org}/status/', { params, headers: { authorization: v.apiKey } });
    expect(status.data?.data.health).toBe('healthy');
    const throttled = await api.POST('/api/vendor/connections/{client_org}/sync/', { params, body: { full: true }, headers: { authorization: v.apiKey } });
    expect(throttled.response.status).toBe(429);
    expectDocumented('post', DOC_PATH, 429, throttled.error);
  });

  it('no approved connection is 404 Not found.: another vendor, a pending connection, an unknown org, not a uuid', async () => {
    const count = (await runs()).length;
    expectError(await ask(stranger.apiKey), 404, plain('Not found.'));
    expectError(await ask(pending.apiKey), 404, plain('Not found.'));
    expectError(await ask(v.apiKey, undefined, '00000000-0000-4000-8000-000000000000'), 404, plain('Not found.'));
    expectError(await ask(v.apiKey, undefined, 'nope'), 404, plain('Not found.'));
    expect((await ask('not-a-key')).status).toBe(401);
    // None of them queued anything.
    expect(await app.ctx.syncQueue.queue.getWaitingCount()).toBe(0);
    expect((await runs()).length).toBe(count);
  });

  it('a body that is not {full?: boolean} is 400 naming the field; a body without a JSON media type is 415', async () => {
    const bad = await ask(stranger.apiKey, { full: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.data.errors[0].field).toBe('full');
    const unknown = await ask(stranger.apiKey, { fast: true });
    expect(unknown.status).toBe(400);
    const text = await call(`${app.url}/api/vendor/connections/${c.org.uuid}/sync/`, {
      method: 'POST',
      headers: { authorization: v.apiKey, 'content-type': 'text/plain' },
      body: 'full',
    });
    expect(text.status).toBe(415);
  });
});
