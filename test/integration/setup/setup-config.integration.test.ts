/** `POST /api/webhook/v1/setup-config/` (docs/api.md "Setup config"): an employer points hrx at its HRMS. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const simCreds = { clientId: 'setup-client', clientSecret: 'setup-secret-4e1' };
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 3, seed: 'setup', ...simCreds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const post = (body: unknown) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('POST /api/webhook/v1/setup-config/', () => {
  it('stores the configuration and names the next sync', async () => {
    const c = await f.client(app.ctx);
    const res = await post(f.setupBody(c, sim, simCreds));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ org_id: c.org.uuid, hrms_id: 'reference', configured_apis: ['employees'] });
    expect(Number.isNaN(Date.parse(res.body.data.next_sync_at))).toBe(false);
  });

  it('refuses a wrong app secret', async () => {
    const c = await f.client(app.ctx);
    expectError(await post({ ...f.setupBody(c, sim, simCreds), client_secret: `${c.appSecret}x` }), 401, plain('Invalid client credentials.'));
  });
});
