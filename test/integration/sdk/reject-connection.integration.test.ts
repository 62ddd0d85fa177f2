/** `POST /api/sdk/connect/reject/` (docs/connect.md "Reference: the SDK token and the Connect endpoints"): the employer turns the vendor's request down. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { connectCall, openSession } from '../../support/connect';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('POST /api/sdk/connect/reject/', () => {
  it('rejects the pending connection', async () => {
    const s = await openSession(app.url, (await f.sdkToken(app.ctx, (await f.vendor(app.ctx)).org)).access_token);
    const res = await connectCall(app.url, s, 'reject/', undefined);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('rejected');
  });

  it('refuses a request without the session cookie', async () => {
    expectError(await connectCall(app.url, '', 'reject/'), 401, plain('Authentication credentials were not provided.'));
  });
});
