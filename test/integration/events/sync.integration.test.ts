/**
 * Sync events (docs/events.md) from real syncs against the reference HRMS simulator:
 * `sync.completed` for each successful run, `employee.removed` with the ids a full sync no longer
 * saw after the simulator drops employees (its `/__sim/control`), `sync.failed` with a reason
 * class while the HRMS fails. Only vendors with an approved connection hear of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { client, connection, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';

const N = 30;

describe('events to vendors: syncs', () => {
  let app: TestApp;
  let rx: Receiver;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'events-client', clientSecret: 'events-secret' };
  let v: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;
  let secret: string;

  beforeAll(async () => {
    app = await startTestApp({
      env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_HRMS_RETRIES: '1', HRX_SYNC_BATCH_SIZE: '10' },
    });
    await app.startEventsWorker();
    rx = await startReceiver();
    sim = await startSim({ employees: N, seed: 'events', ...creds });
    v = await vendor(app.ctx);
    c = await client(app.ctx);
    const pending = await vendor(app.ctx);
    secret = (
      await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/sync'), events: ['sync.completed', 'sync.failed', 'employee.removed'] })
    ).secret;
    await app.ctx.services.endpoints.add({ orgUuid: pending.org.uuid, url: rx.url('/pending') });
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    await connection(app.ctx, pending.org.uuid, c.org.uuid, { status: 'pending' });
  });
  afterAll(async () => {
    await sim?.close();
    await rx?.close();
    await app?.stop();
  });

  const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);
  const runs = (status: string) =>
    sql(`select id, employees_seen, employees_removed, started_at, finished_at from sync_runs where org_id = ? and status = ? order by started_at`, [
      c.org.id,
      status,
    ]);
  const iso = (d: string | Date) => new Date(d).toISOString();

  it('a sync run produces sync.completed', async () => {
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    expect(res.status).toBe(200);
    const [done] = await rx.waitForCount('/sync', 1, 'sync.completed', 60_000);
    const [run] = await runs('succeeded');
    expect(done!.json).toEqual({
      type: 'sync.completed',
      timestamp: iso(run.finished_at),
      data: {
        client_org_id: c.org.uuid,
        sync_run_id: run.id,
        employees_seen: N,
        employees_removed: 0,
        started_at: iso(run.started_at),
        finished_at: iso(run.finished_at),
        // The share of employees with a value, per data point the connection shares (all here).
        coverage: expect.objectContaining({ name: 1 }),
      },
    });
    expect(Object.keys(done!.json.data.coverage).length).toBeGreaterThan(100);
    expect(verifySignature(secret, done!)).toBe(true);
    expect(rx.at('/sync').filter((r) => r.json.type === 'employee.removed')).toEqual([]);
  });

  it('employee.removed lists the employees a full sync no longer saw, ids only', async () => {
    const ctl = await call(`${sim.url}/__sim/control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ drop: ['EMP00004', 'EMP00007'] }),
    });
    expect(ctl.status).toBe(200);
    const ids = await sql(`select employee_id, id from employees where org_id = ? and employee_id in ('EMP00004', 'EMP00007') order by employee_id`, [
      c.org.id,
    ]);
    await app.ctx.syncQueue.syncNow(c.org.id, 'test');
    const [removed] = await rx.waitForCount('/sync', 1, 'employee.removed', 60_000);
    const completed = await rx.waitForCount('/sync', 2, 'sync.completed', 30_000);
    const run = (await runs('succeeded')).at(-1);
    expect(run.employees_removed).toBe(2);
    expect(removed!.json).toEqual({
      type: 'employee.removed',
      timestamp: expect.any(String),
      data: {
        client_org_id: c.org.uuid,
        sync_run_id: run.id,
        employees: [
          { id: ids[0].id, employee_id: 'EMP00004' },
          { id: ids[1].id, employee_id: 'EMP00007' },
        ],
      },
    });
    expect(completed[1]!.json.data).toMatchObject({ sync_run_id: run.id, employees_seen: N - 2, employees_removed: 2 });
    expect(verifySignature(secret, removed!)).toBe(true);
  });

  it('sync.failed names the failure class and whether the sync will be retried', async () => {
    sim.control.set({ rate5xx: 1 });
    await app.ctx.syncQueue.syncNow(c.org.id, 'test');
    const [failed] = await rx.waitForCount('/sync', 1, 'sync.failed', 60_000);
    sim.control.set({ rate5xx: 0 });
    const [run] = await runs('failed');
    expect(failed!.json).toEqual({
      type: 'sync.failed',
      timestamp: iso(run.finished_at),
      data: {
        client_org_id: c.org.uuid,
        sync_run_id: run.id,
        reason: 'unavailable',
        will_retry: true,
        started_at: iso(run.started_at),
        finished_at: iso(run.finished_at),
      },
    });
    // BullMQ's retry then succeeds, and says so.
    await rx.waitForCount('/sync', 3, 'sync.completed', 60_000);
    // The pending connection's vendor heard of none of it.
    await waitFor(async () => (await sql(`select count(*)::int as n from event_deliveries where status = 'pending'`))[0].n === 0, 10_000, 50);
    expect(rx.at('/pending')).toEqual([]);
  });
});
