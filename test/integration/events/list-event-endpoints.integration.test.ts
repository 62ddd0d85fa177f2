/**
 * `GET /api/vendor/endpoints/` (docs/api.md "Vendor self-service"): the calling vendor's active
 * endpoints, never a secret, never another vendor's; no credential is 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, plain } from '../../support/expect-error';
import { client, vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { vendorCall } from '../../support/self-service';

describe('GET /api/vendor/endpoints/', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1' } });
  });
  afterAll(async () => app?.stop());

  it("lists the vendor's own active endpoints, oldest first, without secrets", async () => {
    const [v, other] = [await vendor(app.ctx), await vendor(app.ctx)];
    const a = await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: 'http://127.0.0.1:9/a', events: ['sync.completed'] });
    const b = await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: 'http://127.0.0.1:9/b' });
    await vendorCall(app, other.apiKey, 'POST', '/api/vendor/endpoints/', { url: 'http://127.0.0.1:9/other' });
    await vendorCall(app, v.apiKey, 'DELETE', `/api/vendor/endpoints/${b.body.data.id}/`);
    const res = await vendorCall(app, v.apiKey, 'GET', '/api/vendor/endpoints/');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ id: a.body.data.id, url: 'http://127.0.0.1:9/a', events: ['sync.completed'], created_at: a.body.data.created_at }]);
    expect(JSON.stringify(res.body)).not.toContain('whsec_');
  });

  it('refuses a request without a credential (401) and an employer org (401)', async () => {
    expectError(await vendorCall(app, null, 'GET', '/api/vendor/endpoints/'), 401, plain('Authentication credentials were not provided.'));
    const c = await client(app.ctx);
    const key = await app.ctx.services.orgs.createApiKey(c.org.uuid);
    expectError(await vendorCall(app, key, 'GET', '/api/vendor/endpoints/'), 401, plain('Invalid token.'));
  });
});
