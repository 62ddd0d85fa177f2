/**
 * Sync against an unreliable HRMS (429s with Retry-After, 5xx) completes with nothing lost and
 * nothing duplicated; a re-sync after the HRMS drops an employee stops serving that employee.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { client, connection, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

const N = 120;

describe('sync resilience', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'flaky-client', clientSecret: 'flaky-secret' };
  let v: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;

  beforeAll(async () => {
    // Pages of 10 so that the failure rates hit many requests of one sync.
    app = await startTestApp({ env: { HRX_SYNC_BATCH_SIZE: '10' } });
    sim = await startSim({ employees: N, seed: 'flaky', ...creds });
    v = await vendor(app.ctx);
    c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);
  const read = (id: string) => call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
  const succeededRuns = async () =>
    await sql(`select id, employees_seen, employees_removed from sync_runs where org_id = ? and status = 'succeeded' order by finished_at`, [c.org.id]);

  it('completes a full sync through 429s and 5xx, nothing lost, nothing duplicated', async () => {
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    expect(res.status).toBe(200);
    // Failures start after the credential check so that setup itself is not the flaky part.
    sim.control.set({ rate429: 0.3, rate5xx: 0.2, retryAfterSec: 0 });
    const runs = await waitFor(async () => ((await succeededRuns()).length >= 1 ? succeededRuns() : null), 90_000, 200);
    const stats = sim.control.stats();
    expect(stats.served429 + stats.served5xx).toBeGreaterThan(0);
    expect(runs[0].employees_seen).toBe(N);
    const rows = await sql(`select employee_id from employees where org_id = ? and removed_at is null order by employee_id`, [c.org.id]);
    const expected = Array.from({ length: N }, (_, i) => `EMP${String(i + 1).padStart(5, '0')}`);
    expect(rows.map((r) => r.employee_id)).toEqual(expected);
    sim.control.set({ rate429: 0, rate5xx: 0 });
    expect((await read('EMP00077')).status).toBe(200);
  });

  it('re-sync after the HRMS drops an employee answers 404 for it', async () => {
    const before = await read('EMP00004');
    expect(before.status).toBe(200);
    expect(sim.control.drop('EMP00004')).toBe(true);
    const done = (await succeededRuns()).length;
    await app.ctx.syncQueue.syncNow(c.org.id, 'test');
    const runs = await waitFor(async () => ((await succeededRuns()).length > done ? succeededRuns() : null), 60_000, 200);
    expect(runs.at(-1).employees_removed).toBe(1);
    const after = await read('EMP00004');
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ requestId: after.headers.get('x-request-id'), error: 'employee_not_found', message: 'Employee not found', data: null });
    // Reading by the old store id is refused too, and the neighbours are still served.
    expect((await read(before.body.data.id)).status).toBe(404);
    expect((await read('EMP00005')).status).toBe(200);
    // Restored in the HRMS: served again after the next sync, with the same id.
    sim.control.restore('EMP00004');
    await app.ctx.syncQueue.syncNow(c.org.id, 'test');
    const back = await waitFor(
      async () => {
        const r = await read('EMP00004');
        return r.status === 200 ? r : null;
      },
      60_000,
      200,
    );
    expect(back.body.data.id).toBe(before.body.data.id);
  });
});
