/**
 * The sync lock (docs/api.md "Terminate connection"): a sync that lost its lock (a renewal that fails, or
 * finds the lock not its own) neither removes unseen employees nor ends `succeeded`; a sync whose
 * HRMS stops answering gives up after HRX_SYNC_HRMS_STALL_SEC, releases the lock, and
 * termination goes through while the HRMS is still hung. Real Redis, PostgreSQL and simulator.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { client, connection, employees, setupBody, vendor } from '../../support/factories';
import { call, REDIS_URL, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

describe('sync lock: lost locks and stalled HRMSs', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  let redis: Redis;
  const creds = { clientId: 'lock-client', clientSecret: 'lock-secret' };

  beforeAll(async () => {
    // No in-process worker unless a test starts one. Pages of 5; a 2 s stall limit.
    app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '5', HRX_SYNC_HRMS_STALL_SEC: '2' } });
    sim = await startSim({ employees: 60, seed: 'lock', ...creds });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis?.disconnect();
    await sim?.close();
    await app?.stop();
  });

  const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);
  const lockKey = (orgId: number) => `${app.config.HRX_REDIS_PREFIX}:sync-lock:${orgId}`;

  async function configured() {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    // The first approval queued a sync (docs/behaviour.md "Sync"); no worker runs yet, so it would wait and
    // run beside the syncs each test starts itself: removed.
    for (const j of await app.ctx.syncQueue.queue.getJobs(['waiting', 'delayed'])) {
      if (j.data.orgId === c.org.id && j.data.trigger === 'approval') await j.remove();
    }
    sim.control.set({ latencyMs: 0 });
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    expect(res.status).toBe(200);
    // Employees the HRMS does not list: a sync that succeeds removes them.
    await employees(app.ctx, c.org.id, [{ employeeId: 'GONE-1' }, { employeeId: 'GONE-2' }]);
    return { v, c };
  }

  it('a lock whose renewal fails is lost: the run removes nobody and does not succeed', async () => {
    const { c } = await configured();
    sim.control.set({ latencyMs: 400 });
    const running = app.ctx.services.sync.run(c.org.id, 'test', 'lock-loser');
    running.catch(() => undefined);
    await waitFor(async () => (await sql(`select pages from sync_runs where org_id = ? and pages >= 1`, [c.org.id])).length === 1, 20_000, 50);
    expect(await app.ctx.lock.holder(c.org.id)).toBe('sync:lock-loser');
    // The key turns into a hash: every later GET on it (renewal, release) fails with WRONGTYPE.
    await redis.multi().del(lockKey(c.org.id)).hset(lockKey(c.org.id), 'x', '1').exec();
    await expect(running).rejects.toMatchObject({ name: 'SyncInterruptedError', kind: 'lock_lost' });
    await redis.del(lockKey(c.org.id));
    const runs = await sql(`select status, error from sync_runs where org_id = ?`, [c.org.id]);
    expect(runs).toEqual([{ status: 'failed', error: 'lock_lost: the sync lock was lost' }]);
    const gone = await sql(`select employee_id from employees where org_id = ? and removed_at is not null`, [c.org.id]);
    expect(gone).toEqual([]);
    const [{ n }] = await sql(`select count(*)::int as n from employees where org_id = ? and employee_id like 'GONE-%' and removed_at is null`, [c.org.id]);
    expect(n).toBe(2);
  });

  it('a lock taken over mid-sync is lost the same way', async () => {
    const { c } = await configured();
    sim.control.set({ latencyMs: 400 });
    const running = app.ctx.services.sync.run(c.org.id, 'test', 'lock-loser-2');
    running.catch(() => undefined);
    await waitFor(async () => (await sql(`select pages from sync_runs where org_id = ? and pages >= 1`, [c.org.id])).length === 1, 20_000, 50);
    await redis.set(lockKey(c.org.id), 'sync:someone-else', 'PX', 30_000);
    await expect(running).rejects.toMatchObject({ kind: 'lock_lost' });
    expect(await app.ctx.lock.holder(c.org.id)).toBe('sync:someone-else'); // not released by the loser
    await redis.del(lockKey(c.org.id));
    expect((await sql(`select status from sync_runs where org_id = ?`, [c.org.id])).map((r) => r.status)).toEqual(['failed']);
    expect(await sql(`select employee_id from employees where org_id = ? and removed_at is not null`, [c.org.id])).toEqual([]);
  });

  it('a hung HRMS is given up on after the stall limit: the lock is released and termination succeeds while it still hangs', async () => {
    const { v, c } = await configured();
    sim.control.set({ latencyMs: 600_000 }); // answers nothing for 10 minutes
    const worker = app.startWorker();
    try {
      await waitFor(async () => (await app.ctx.lock.holder(c.org.id))?.startsWith('sync:'), 20_000, 50);
      const terminate = () => {
        const form = new FormData();
        form.set('client_org', c.org.uuid);
        return call(`${app.url}/api/terminate_connection/`, { method: 'POST', headers: { authorization: v.apiKey }, body: form });
      };
      expect((await terminate()).status).toBe(423);
      // Stall limit 2 s; well before the connector's own timeouts and retries (10 s a call) end.
      const ok = await waitFor(
        async () => {
          const res = await terminate();
          return res.status === 200 ? res : null;
        },
        8_000,
        200,
      );
      expect(ok.body.message).toBe('Connection terminated successfully');
      expect(sim.control.settings().latencyMs).toBe(600_000);
      const runs = await sql(`select status, error from sync_runs where org_id = ?`, [c.org.id]);
      expect(runs).toEqual([{ status: 'failed', error: 'hrms_stalled: the HRMS gave no answer for 2 s' }]);
      expect(await sql(`select employee_id from employees where org_id = ? and removed_at is not null`, [c.org.id])).toEqual([]);
    } finally {
      sim.control.set({ latencyMs: 0 });
      await worker.close(true);
    }
  });
});
