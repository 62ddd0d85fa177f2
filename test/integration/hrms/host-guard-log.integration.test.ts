/**
 * Refusals of the HRMS host guard are logged (docs/behaviour.md "HRMS hosts"): with
 * HRX_HRMS_ALLOW_PRIVATE_HOSTS=0, the API (setup-config's credential check) and the worker (a
 * sync of a stored configuration) each write a warn line naming the setting that would allow
 * the host, so an operator whose HRMS is on a private network knows what to change. The line
 * never holds the host, nor the address a name resolved to.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HrmsCredentials } from '../../../src/hrms/connector';
import { dbQuery, storesOf } from '../../support/db';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

const simCreds = { clientId: 'guard-log', clientSecret: 'guard-log-secret-3e8' };
const lines: Record<string, unknown>[] = [];
let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  app = await startTestApp({ env: { HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0', LOG_LEVEL: 'warn' }, logStream: sink });
  sim = await startSim({ employees: 3, ...simCreds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const refusals = () => lines.filter((l) => l.setting === 'HRX_HRMS_ALLOW_PRIVATE_HOSTS');
const addresses = /127\.0\.0\.1|::1|localhost/;

describe('HRMS host refusals in the log', () => {
  it('the API logs a refused setup-config host (an IP literal, and a name resolving to loopback) naming the setting', async () => {
    for (const host of [sim.url, `http://localhost:${sim.port}`]) {
      const c = await f.client(app.ctx);
      const before = refusals().length;
      const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...f.setupBody(c, sim, simCreds),
          access_credentials: { ...f.setupBody(c, sim, simCreds).access_credentials, hrms_host: host },
        }),
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('HRMS credentials rejected: the HRMS could not be reached');
      const logged = refusals().slice(before);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        level: 40,
        setting: 'HRX_HRMS_ALLOW_PRIVATE_HOSTS',
        msg: 'HRMS host refused: it is, or resolves to, a private, loopback or reserved address (HRX_HRMS_ALLOWED_HOSTS=<host:port> allows one named host and port, HRX_HRMS_ALLOW_PRIVATE_HOSTS=1 every such host)',
      });
    }
    for (const l of lines) expect(JSON.stringify(l)).not.toMatch(addresses);
  });

  it('the worker logs the refused host of a stored configuration when its sync fails', async () => {
    const v = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    const credentials: HrmsCredentials = {
      hrms_host: `http://localhost:${sim.port}`,
      grant_type: 'client_credentials',
      client_id: simCreds.clientId,
      client_secret: simCreds.clientSecret,
    };
    await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId: 'reference', credentials, apiConfigs: [] });
    const before = refusals().length;
    await app.ctx.syncQueue.syncNow(c.org.id, 'test');
    const run = await waitFor(
      async () => (await dbQuery(app, `select status, error from sync_runs where org_id = $1 and status = 'failed'`, [c.org.id])).rows[0],
      30_000,
    );
    expect(run).toEqual({ status: 'failed', error: 'host_not_allowed: HRMS host not allowed on token request' });
    expect(refusals().length).toBeGreaterThan(before);
    expect(refusals().at(-1)).toMatchObject({ level: 40, setting: 'HRX_HRMS_ALLOW_PRIVATE_HOSTS' });
    for (const l of lines) expect(JSON.stringify(l)).not.toMatch(addresses);
  });
});
