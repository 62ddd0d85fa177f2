/**
 * HRX_HRMS_ALLOWED_HOSTS over real HTTP: an hrx with the HRMS host guard on and `localhost` named
 * (as compose's sandbox names `hrms-sim`) reaches the simulator on 127.0.0.1 through that name,
 * in setup-config, the worker's sync and a live read, while every other spelling of the same
 * address, and every other private host, is still refused with
 * `400 HRMS credentials rejected: host not allowed`, storing and contacting nothing. An hrx
 * without the list refuses the named host too: the control.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError } from '../../support/expect-error';
import { dbQuery } from '../../support/db';

const REFUSED = { code: 400, message: 'HRMS credentials rejected: host not allowed', data: null };
const simCreds = { clientId: 'allow-client', clientSecret: 'allow-secret-value-3e9' };

let named: TestApp;
let guarded: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;

beforeAll(async () => {
  [named, guarded] = await Promise.all([
    startTestApp({ env: { HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0', HRX_HRMS_ALLOWED_HOSTS: 'localhost' } }),
    startTestApp({ worker: false, env: { HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0' } }),
  ]);
  expect(named.config.HRX_HRMS_ALLOWED_HOSTS).toEqual(['localhost']);
  expect(named.config.HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe(false);
  sim = await startSim({ employees: 3, ...simCreds });
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await named?.stop();
  await guarded?.stop();
});

const setup = (app: TestApp, c: Awaited<ReturnType<typeof f.client>>, host: string) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...f.setupBody(c, sim, simCreds), access_credentials: { ...f.setupBody(c, sim, simCreds).access_credentials, hrms_host: host } }),
  });
const configs = async (app: TestApp, orgId: number) =>
  Number((await dbQuery(app, `select count(*) from hrms_configs where org_id = $1`, [orgId])).rows[0].count);

describe('HRX_HRMS_ALLOWED_HOSTS: one named host on the operator network', () => {
  it('the named host passes setup-config, the worker syncs through it, and a live read goes to it', async () => {
    const v = await f.vendor(named.ctx);
    const c = await f.client(named.ctx);
    await f.connection(named.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
    sim.control.resetStats();
    const res = await setup(named, c, `http://localhost:${sim.port}`);
    expect(res.status).toBe(200);
    const run = await waitFor(
      async () => (await dbQuery(named, `select status, employees_seen from sync_runs where org_id = $1 and status <> 'running'`, [c.org.id])).rows[0],
      30_000,
    );
    expect(run).toEqual({ status: 'succeeded', employees_seen: 3 });
    const live = await call(`${named.url}/api/employee_details/EMP00001?org=${c.org.uuid}&vendor_org=${v.org.uuid}&source=hrms`, {
      headers: { username: v.apiKey },
    });
    expect(live.status).toBe(200);
    expect(live.body.data.employeeId).toBe('EMP00001');
    expect(sim.control.stats().tokenRequests).toBeGreaterThan(0);
  }, 60_000);

  it('every other host stays refused: the same address spelled otherwise, other private hosts, cloud metadata', async () => {
    const c = await f.client(named.ctx);
    for (const host of [
      `http://127.0.0.1:${sim.port}`,
      `http://127.1:${sim.port}/`,
      `http://2130706433:${sim.port}/`,
      `http://[::1]:${sim.port}`,
      `http://[::ffff:127.0.0.1]:${sim.port}`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      `ftp://localhost:${sim.port}/`,
    ]) {
      sim.control.resetStats();
      const res = await setup(named, c, host);
      expect({ host, status: res.status, body: res.body }).toStrictEqual({
        host,
        status: 400,
        body: { requestId: res.headers.get('x-request-id'), ...REFUSED },
      });
      expect(sim.control.stats()).toMatchObject({ tokenRequests: 0, pageRequests: 0, employeeRequests: 0 });
    }
    expect(await configs(named, c.org.id)).toBe(0);
  });

  it('without the list the named host is refused too (control)', async () => {
    const c = await f.client(guarded.ctx);
    sim.control.resetStats();
    expectError(await setup(guarded, c, `http://localhost:${sim.port}`), 400, REFUSED);
    expect(sim.control.stats().tokenRequests).toBe(0);
    expect(await configs(guarded, c.org.id)).toBe(0);
  });
});
