/** `POST /api/sdk/connect/approve/` (docs/connect.md "Reference: the SDK token and the Connect endpoints"): the employer approves the vendor's request. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail } from '../../support/connect';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const creds = { clientId: 'approve-step', clientSecret: 'approve-step-secret-7c2' };
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 3, seed: 'approve-step', ...creds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const session = async () => openSession(app.url, (await f.sdkToken(app.ctx, (await f.vendor(app.ctx)).org)).access_token);

describe('POST /api/sdk/connect/approve/', () => {
  it('approves once the HRMS is configured', async () => {
    const s = await session();
    await verifyEmail(app, s);
    const hrms = await connectCall(app.url, s, 'hrms/', {
      hrms_id: 'reference',
      access_credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, hrms_host: sim.url },
    });
    expect(hrms.status).toBe(200);
    const res = await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('approved');
  });

  it('refuses to approve before the HRMS credentials are entered', async () => {
    const s = await session();
    expectError(
      await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }),
      400,
      invalid('hrms', 'enter the HRMS credentials before approving'),
    );
    expect((await connectCall(app.url, s, '')).body.data.status).toBe('pending');
  });
});
