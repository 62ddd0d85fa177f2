/** `POST /api/sdk/connect/hrms/` (docs/connect.md "Reference: the SDK token and the Connect endpoints"): the employer enters its HRMS credentials in the Connect page. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail } from '../../support/connect';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const creds = { clientId: 'hrms-step', clientSecret: 'hrms-step-secret-31a' };
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 3, seed: 'hrms-step', ...creds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const hrmsBody = (secret: string) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: secret, hrms_host: sim.url },
});

describe('POST /api/sdk/connect/hrms/', () => {
  it('stores the configuration of a new employer, once the e-mail is verified', async () => {
    const v = await f.vendor(app.ctx);
    const s = await openSession(app.url, (await f.sdkToken(app.ctx, v.org)).access_token);
    expectError(
      await connectCall(app.url, s, 'hrms/', hrmsBody(creds.clientSecret)),
      400,
      invalid('email', 'verify your e-mail address first: ask for a code and enter it'),
    );
    await verifyEmail(app, s);
    const res = await connectCall(app.url, s, 'hrms/', hrmsBody(creds.clientSecret));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ hrms_id: 'reference', configured_apis: ['employees'] });
  });

  it('refuses a body without hrms_id, storing nothing', async () => {
    const v = await f.vendor(app.ctx);
    const s = await openSession(app.url, (await f.sdkToken(app.ctx, v.org)).access_token);
    const { hrms_id: _h, ...body } = hrmsBody(creds.clientSecret);
    expectError(await connectCall(app.url, s, 'hrms/', body), 400, invalid('hrms_id', 'required'));
    expect((await connectCall(app.url, s, '')).body.data.status).toBe('pending');
  });
});
