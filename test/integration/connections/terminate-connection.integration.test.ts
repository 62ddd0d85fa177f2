/**
 * Termination and sync exclude each other (docs/api.md "Terminate connection"): 423 while a sync of the client org
 * runs, success once it ends, 409 after; no sync starts on a terminated connection; a worker
 * killed mid-sync releases its lock within 60 s and the next sync completes.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { client, connection, setupBody, vendor } from '../../support/factories';
import { HRX_BIN } from '../../support/cli';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

describe('terminate vs sync', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'slow-client', clientSecret: 'slow-secret' };

  beforeAll(async () => {
    // No in-process worker: each test decides which worker runs. Pages of 5 employees.
    app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '5' } });
    sim = await startSim({ employees: 40, seed: 'slow', ...creds });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);
  const runsOf = (orgId: number, status: string) => sql(`select id from sync_runs where org_id = ? and status = ?`, [orgId, status]);

  async function configured() {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    sim.control.set({ latencyMs: 0 });
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    expect(res.status).toBe(200);
    return { v, c };
  }

  const terminate = (apiKey: string, clientOrg: string) => {
    const form = new FormData();
    form.set('client_org', clientOrg);
    return call(`${app.url}/api/terminate_connection/`, { method: 'POST', headers: { authorization: apiKey }, body: form });
  };

  it('refuses termination with 423 while a sync runs and terminates once it ends', async () => {
    const { v, c } = await configured();
    sim.control.set({ latencyMs: 300 });
    const worker = app.startWorker();
    await waitFor(async () => (await app.ctx.lock.holder(c.org.id))?.startsWith('sync:'), 20_000, 50);
    const refused = await terminate(v.apiKey, c.org.uuid);
    expect(refused.status).toBe(423);
    expect(refused.body).toEqual({
      requestId: refused.headers.get('x-request-id'),
      error: 'sync_in_progress',
      message: 'Connection cannot be terminated while sync is in progress',
      data: null,
    });
    await waitFor(async () => (await runsOf(c.org.id, 'succeeded')).length === 1, 30_000, 100);
    await waitFor(async () => (await app.ctx.lock.holder(c.org.id)) === null, 10_000, 50);
    const ok = await terminate(v.apiKey, c.org.uuid);
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe('Connection terminated successfully');
    expect(ok.body.data).toMatchObject({ org_id: c.org.uuid, application_connection_status: 'Terminated' });
    const again = await terminate(v.apiKey, c.org.uuid);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      requestId: again.headers.get('x-request-id'),
      error: 'connection_already_terminated',
      status: 409,
      message: 'Conflict! Connection already terminated',
      data: null,
    });
    // No sync starts on a terminated connection.
    const outcome = await app.ctx.services.sync.run(c.org.id, 'test', 'after-terminate');
    expect(outcome).toEqual({ status: 'skipped', reason: 'no_active_connection' });
    expect((await runsOf(c.org.id, 'succeeded')).length).toBe(1);
    await worker.close();
  });

  it('a worker killed mid-sync releases the lock within 60 s and the next sync completes', async () => {
    const { c } = await configured();
    sim.control.set({ latencyMs: 400 });
    const child = spawn(process.execPath, [HRX_BIN, 'worker'], { env: { ...process.env, ...app.env }, stdio: 'ignore' });
    try {
      await waitFor(async () => (await app.ctx.lock.holder(c.org.id))?.startsWith('sync:'), 30_000, 50);
      await waitFor(async () => (await runsOf(c.org.id, 'running')).length === 1, 10_000, 50);
      child.kill('SIGKILL');
      const killedAt = Date.now();
      await waitFor(async () => (await app.ctx.lock.holder(c.org.id)) === null, 60_000, 100);
      const releasedAfterMs = Date.now() - killedAt;
      expect(releasedAfterMs).toBeLessThan(60_000);
      sim.control.set({ latencyMs: 0 });
      const worker = app.startWorker();
      await app.ctx.syncQueue.syncNow(c.org.id, 'test');
      await waitFor(async () => (await runsOf(c.org.id, 'succeeded')).length >= 1, 60_000, 100);
      const [{ n }] = await sql(`select count(*)::int as n from employees where org_id = ? and removed_at is null`, [c.org.id]);
      expect(n).toBe(40);
      await worker.close();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
