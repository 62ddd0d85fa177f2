/**
 * The bound of one sync run (docs/behaviour.md "Sync", HRX_SYNC_MAX_EMPLOYEES, HRX_SYNC_MAX_PAGES):
 * an HRMS that lists more than the bound (an attacker's HRMS paging forever) ends the run
 * `failed` with reason `bound_exceeded`; nothing past the bound is stored, the employees of
 * earlier runs are not marked removed, and `sync.failed` says why and that it will not retry.
 * Real PostgreSQL, Redis and the reference simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { client, connection, hrmsAt, vendor } from '../../support/factories';
import { startSim, startTestApp, type TestApp } from '../../support/harness';

const BOUND = 50;

describe('sync bound: employees and pages per run', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'bound-client', clientSecret: 'bound-secret' };

  beforeAll(async () => {
    // Pages of 10; at most 50 employees, and 8 pages, per run. The test runs each sync itself.
    app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '10', HRX_SYNC_MAX_EMPLOYEES: String(BOUND), HRX_SYNC_MAX_PAGES: '8' } });
    sim = await startSim({ employees: 20, seed: 'bound', ...creds });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);

  async function configured() {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    // An endpoint, so the vendor's events are written (no events worker delivers them here).
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: 'https://vendor.example.com/hrx', events: ['sync.failed'] });
    await hrmsAt(app.ctx, c.org.id, sim, creds);
    return c.org.id;
  }
  const stored = async (orgId: number) =>
    (await sql(`select employee_id, removed_at from employees where org_id = ? order by employee_id`, [orgId])) as {
      employee_id: string;
      removed_at: Date | null;
    }[];
  const failedEvents = (orgId: number) => sql(`select payload::text as payload from events where client_org_id = ? and type = 'sync.failed'`, [orgId]);

  it('an HRMS listing more employees than the bound: the run fails, nothing past the bound is stored, nobody is removed', async () => {
    sim.control.setEmployeeCount(20);
    const orgId = await configured();
    const first = await app.ctx.services.sync.run(orgId, 'test', 'bound-first');
    expect(first).toMatchObject({ status: 'succeeded', employees: 20 });

    sim.control.setEmployeeCount(120);
    const second = await app.ctx.services.sync.run(orgId, 'test', 'bound-second');
    expect(second).toMatchObject({
      status: 'failed',
      reason: 'bound_exceeded',
      message: `bound_exceeded: the HRMS lists more than ${BOUND} employees (HRX_SYNC_MAX_EMPLOYEES)`,
    });
    const rows = await stored(orgId);
    // Pages of 10: five whole pages (50) are stored, the sixth crossed the bound and none of it was.
    expect(rows).toHaveLength(BOUND);
    expect(rows.map((r) => r.employee_id)).toEqual(Array.from({ length: BOUND }, (_, i) => `EMP${String(i + 1).padStart(5, '0')}`));
    expect(rows.filter((r) => r.removed_at !== null)).toEqual([]);
    const runs = await sql(`select status, error, pages, employees_seen from sync_runs where org_id = ? order by started_at`, [orgId]);
    expect(runs[1]).toEqual({
      status: 'failed',
      error: `bound_exceeded: the HRMS lists more than ${BOUND} employees (HRX_SYNC_MAX_EMPLOYEES)`,
      pages: 5,
      employees_seen: BOUND,
    });
    const events = await failedEvents(orgId);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload as string)).toMatchObject({ data: { reason: 'bound_exceeded', will_retry: false } });
  });

  it('a bounded full sync removes nobody, even employees the HRMS no longer lists', async () => {
    sim.control.setEmployeeCount(30);
    const orgId = await configured();
    expect(await app.ctx.services.sync.run(orgId, 'test', 'bound-removal-first')).toMatchObject({ status: 'succeeded', employees: 30 });
    // EMP00005 left the HRMS; the listing is now past the bound, so the run cannot tell who left.
    expect(sim.control.drop('EMP00005')).toBe(true);
    sim.control.setEmployeeCount(200);
    expect(await app.ctx.services.sync.run(orgId, 'test', 'bound-removal-second')).toMatchObject({ status: 'failed', reason: 'bound_exceeded' });
    sim.control.restore('EMP00005');
    const rows = await stored(orgId);
    expect(rows.filter((r) => r.removed_at !== null)).toEqual([]);
    expect(rows.find((r) => r.employee_id === 'EMP00005')).toBeDefined();
    const [, run] = await sql(`select employees_seen from sync_runs where org_id = ? order by started_at`, [orgId]);
    expect(run.employees_seen).toBeLessThanOrEqual(BOUND);
  });
});

describe('sync bound: pages per run', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'pages-client', clientSecret: 'pages-secret' };

  beforeAll(async () => {
    // Pages of 5, at most 3 a run; the employee bound (default) is far away.
    app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '5', HRX_SYNC_MAX_PAGES: '3' } });
    sim = await startSim({ employees: 40, seed: 'pages', ...creds });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  it('a listing longer than the page bound: the run fails at the bound, three pages stored', async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    await hrmsAt(app.ctx, c.org.id, sim, creds);
    const out = await app.ctx.services.sync.run(c.org.id, 'test', 'bound-pages');
    expect(out).toMatchObject({
      status: 'failed',
      reason: 'bound_exceeded',
      message: 'bound_exceeded: the HRMS listing is longer than 3 pages (HRX_SYNC_MAX_PAGES)',
    });
    const [{ n }] = await ormQuery(app, `select count(*)::int as n from employees where org_id = ?`, [c.org.id]);
    expect(n).toBe(15);
  });
});
