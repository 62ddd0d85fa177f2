/** `GET /api/org_details/:org/` (docs/api.md "Org details"): the top-level org record. */
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

describe("GET /api/org_details/:org/: another vendor's remote_org_id", () => {
  it('shows the remote_org_id to the vendor that set it only; a connected vendor gets null', async () => {
    const setter = await f.vendor(app.ctx, 'Setter');
    const other = await f.vendor(app.ctx, 'Other Lender');
    const tok = await f.sdkToken(app.ctx, setter.org, { email: 'hr@gmail.com', org_name: 'Remote Employer', remote_org_id: 'crm-secret-77' });
    await f.connection(app.ctx, other.org.uuid, tok.org_id, { status: 'pending' });
    const details = (v: { apiKey: string }) => call(`${app.url}/api/org_details/${tok.org_id}/`, { headers: { authorization: v.apiKey } });
    const mine = await details(setter);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ uuid: tok.org_id, remote_org_id: 'crm-secret-77' });
    const theirs = await details(other);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ uuid: tok.org_id, remote_org_id: null });
    expect(JSON.stringify(theirs.body)).not.toContain('crm-secret-77');
  });
});
