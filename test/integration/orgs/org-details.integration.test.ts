/** `GET /api/org_details/:org/` (interface.md "Get organization details"): the top-level org record. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /api/org_details/:org/', () => {
  it("answers the caller's own org record, top-level, with the app secret masked", async () => {
    const v = await f.vendor(app.ctx, 'Details Vendor');
    const res = await call(`${app.url}/api/org_details/${v.org.uuid}/`, { headers: { authorization: v.apiKey } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: v.org.uuid, org_name: 'Details Vendor', is_vendor: true, is_client: false });
    expect(res.body.application.app_secret).toMatch(/^\*+.{4}$/);
    expect(JSON.stringify(res.body)).not.toContain(v.appSecret);
  });

  it('refuses a request without an API key', async () => {
    const v = await f.vendor(app.ctx);
    expectError(await call(`${app.url}/api/org_details/${v.org.uuid}/`), 401, plain('Authentication credentials were not provided.'));
  });
});
