/** `GET /api/sdk/connect/` (decisions §8): what the Connect page shows, for the session cookie only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { connectCall, openSession } from '../../support/connect';

let app: TestApp;
beforeAll(async () => { app = await startTestApp({ worker: false }); });
afterAll(async () => { await app?.stop(); });

describe('GET /api/sdk/connect/', () => {
  it('shows the session of the cookie', async () => {
    const v = await f.vendor(app.ctx, 'View Vendor');
    const tok = await f.sdkToken(app.ctx, v.org, { org_name: 'View Employer' });
    const res = await connectCall(app.url, await openSession(app.url, tok.access_token), '');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'pending', proof: { required: false, proven: false } });
  });

  it('refuses a request without the cookie, and a forged cookie', async () => {
    expectError(await connectCall(app.url, '', ''), 401, plain('Authentication credentials were not provided.'));
    expectError(await connectCall(app.url, 'hrx_connect=forged', ''), 401, plain('Invalid token.'));
  });
});
