/**
 * A sync and the update webhook on the same employee: an update that lands while the sync's page
 * is in flight at the HRMS keeps its values (the sync's answer is older), and the employee still
 * counts as seen by that sync; an employee written before the page was asked for takes the HRMS's
 * values as usual (employees/store.ts `upsertBatch`, the write sequence of migration 060000).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBasic, client, connection, setupBody, vendor } from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

describe('sync vs update webhook', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'race-client', clientSecret: 'race-secret' };
  let v: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;

  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '10' } });
    sim = await startSim({ employees: 20, seed: 'race', ...creds });
    v = await vendor(app.ctx);
    c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(setupBody(c, sim, creds)),
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  const read = async (id: string) =>
    (
      await call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
        headers: { username: v.apiKey },
      })
    ).body.data;
  const update = (body: unknown) =>
    call(`${app.url}/api/webhook/v1/employee/update/`, {
      method: 'POST',
      headers: { authorization: appBasic(c), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const sync = () => app.ctx.services.sync.run(c.org.id, 'test', `race-${Math.random()}`);

  it('keeps an update that lands while the page is in flight, and the employee stays served', async () => {
    expect(await sync()).toMatchObject({ status: 'succeeded', employees: 20 });
    const hrmsName = (await read('EMP00003')).name;
    expect(hrmsName).not.toBe('Changed By Webhook');

    // Every HRMS call now takes 1.5 s: the webhook lands while page 1 (EMP00001-10) is in flight.
    sim.control.set({ latencyMs: 1500 });
    const running = sync();
    await new Promise((r) => setTimeout(r, 400));
    const res = await update({ employeeId: 'EMP00003', name: 'Changed By Webhook', designation: 'Staff Engineer' });
    expect(res.status).toBe(200);
    expect(res.body.data.updated_fields).toEqual(['name', 'designation']);
    const outcome = await running;
    sim.control.set({ latencyMs: 0 });
    expect(outcome).toMatchObject({ status: 'succeeded', employees: 20, removed: 0 });

    const after = await read('EMP00003');
    expect(after.name).toBe('Changed By Webhook');
    expect(after.designation).toBe('Staff Engineer');
    // Others of the same page took the HRMS's values, and nobody was removed.
    expect((await read('EMP00004')).name).toBeTruthy();
    const [row] = (
      await dbQuery(app, `select last_sync_run_id = $2 as seen, removed_at from employees where org_id = $1 and employee_id = 'EMP00003'`, [
        c.org.id,
        outcome.status === 'succeeded' ? outcome.runId : null,
      ])
    ).rows;
    expect(row).toEqual({ seen: true, removed_at: null });
  });

  it('a later sync, asked after the update, brings the HRMS values back', async () => {
    expect(await sync()).toMatchObject({ status: 'succeeded', employees: 20 });
    await waitFor(async () => (await read('EMP00003')).name !== 'Changed By Webhook', 5_000);
    expect((await read('EMP00003')).designation).not.toBe('Staff Engineer');
  });
});
