/**
 * `GET /api/vendor/keys/` (docs/api.md "Vendor self-service"): the calling vendor's keys, revoked
 * ones included, newest first; never another vendor's; no credential is 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, plain } from '../../support/expect-error';
import { v2Vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { vendorCall } from '../../support/self-service';

describe('GET /api/vendor/keys/', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  it("lists its own keys with status, newest first, and none of another vendor's", async () => {
    const v = await v2Vendor(app.ctx, { kid: 'first' });
    const other = await v2Vendor(app.ctx, { kid: 'theirs' });
    const second = (await v2Vendor(app.ctx)).publicJwk;
    await app.ctx.services.external.addVendorKey(v.org.uuid, { ...second, kid: 'second' });
    await app.ctx.services.external.revokeVendorKey(v.org.uuid, 'first');
    const res = await vendorCall(app, v.apiKey, 'GET', '/api/vendor/keys/');
    expect(res.status).toBe(200);
    const row = { bits: 2048, use: null, alg: null, created_at: expect.any(String) };
    expect(res.body.data).toEqual([
      { ...row, kid: 'second', status: 'active', revoked_at: null },
      { ...row, kid: 'first', status: 'revoked', revoked_at: expect.any(String) },
    ]);
    expect(JSON.stringify(res.body)).not.toContain(other.kid);
  });

  it('refuses a request without a credential (401)', async () => {
    expectError(await vendorCall(app, null, 'GET', '/api/vendor/keys/'), 401, plain('Authentication credentials were not provided.'));
  });
});
