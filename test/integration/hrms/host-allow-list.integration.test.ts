/**
 * HRX_HRMS_ALLOWED_HOSTS over real HTTP (docs/behaviour.md "HRMS hosts"): an hrx with the HRMS
 * host guard on and `localhost:<the simulator's port>` named (as compose's sandbox names
 * `hrms-sim:9100`) reaches the simulator on 127.0.0.1 through that name and port, in setup-config,
 * the worker's sync and a live read, while every other spelling of the same address, every other
 * private host, and every other port of the named host (another service answering there
 * included) is still refused, storing and contacting nothing. A refused host answers as a named
 * host and port where nothing listens: `400 HRMS credentials rejected: the HRMS could not be
 * reached`, one wording, so that the answer tells no open port from a closed one. An hrx without
 * the list refuses the named host too: the control.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError } from '../../support/expect-error';
import { dbQuery } from '../../support/db';

const REFUSED = { code: 400, error: 'hrms_credentials_rejected', message: 'HRMS credentials rejected: the HRMS could not be reached', data: null };
const NOT_HTTP = { code: 400, error: 'hrms_credentials_rejected', message: 'HRMS credentials rejected: host not allowed', data: null };
const simCreds = { clientId: 'allow-client', clientSecret: 'allow-secret-value-3e9' };

let named: TestApp;
let guarded: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
/** Another service on another port of the named host: it answers, but is not the allowed port. */
let other: Awaited<ReturnType<typeof startSim>>;
/** A port of the named host, named in the list too, where nothing listens. */
let closedPort: number;

/** A port nothing listens on (one the system just handed out and took back). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  sim = await startSim({ employees: 3, ...simCreds });
  other = await startSim({ employees: 3, ...simCreds });
  closedPort = await freePort();
  [named, guarded] = await Promise.all([
    startTestApp({ env: { HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0', HRX_HRMS_ALLOWED_HOSTS: `localhost:${sim.port}, LOCALHOST:${closedPort}` } }),
    startTestApp({ worker: false, env: { HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0' } }),
  ]);
  expect(named.config.HRX_HRMS_ALLOWED_HOSTS).toEqual([`localhost:${sim.port}`, `localhost:${closedPort}`]);
  expect(named.config.HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe(false);
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await other?.close();
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
      // The named host on another port: another service answers there, and is never called.
      `http://localhost:${other.port}`,
      'http://localhost/',
      `https://localhost:${sim.port}/`,
    ]) {
      other.control.resetStats();
      sim.control.resetStats();
      const res = await setup(named, c, host);
      expect({ host, status: res.status, body: res.body }).toStrictEqual({
        host,
        status: 400,
        body: { requestId: res.headers.get('x-request-id'), ...REFUSED },
      });
      expect(sim.control.stats()).toMatchObject({ tokenRequests: 0, pageRequests: 0, employeeRequests: 0 });
      expect(other.control.stats()).toMatchObject({ tokenRequests: 0, pageRequests: 0, employeeRequests: 0 });
    }
    expectError(await setup(named, c, `ftp://localhost:${sim.port}/`), 400, NOT_HTTP);
    expect(await configs(named, c.org.id)).toBe(0);
  });

  it('a refused port answers as a named port where nothing listens: one wording', async () => {
    const c = await f.client(named.ctx);
    const closed = await setup(named, c, `http://localhost:${closedPort}`);
    const refused = await setup(named, c, `http://localhost:${other.port}`);
    expect({ status: closed.status, message: closed.body.message }).toStrictEqual({ status: 400, message: REFUSED.message });
    expect({ status: refused.status, message: refused.body.message }).toStrictEqual({ status: closed.status, message: closed.body.message });
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
