/**
 * `DELETE /api/vendor/endpoints/{id}/` (docs/api.md "Vendor self-service"): removes the caller's
 * endpoint; another vendor's endpoint answers exactly as an unknown or malformed id (404) and
 * stays registered.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { expectError, plain, withoutRequestId } from '../../support/expect-error';
import { vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { vendorCall } from '../../support/self-service';

describe('DELETE /api/vendor/endpoints/{id}/', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1' } });
  });
  afterAll(async () => app?.stop());

  it('removes its own endpoint: 200, then gone from the list; a second removal is 404', async () => {
    const v = await vendor(app.ctx);
    const ep = await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: 'http://127.0.0.1:9/x' });
    const res = await vendorCall(app, v.apiKey, 'DELETE', `/api/vendor/endpoints/${ep.body.data.id}/`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: ep.body.data.id, removed: true, cancelled_deliveries: 0 });
    expect((await vendorCall(app, v.apiKey, 'GET', '/api/vendor/endpoints/')).body.data).toEqual([]);
    expectError(await vendorCall(app, v.apiKey, 'DELETE', `/api/vendor/endpoints/${ep.body.data.id}/`), 404, plain('Not found.'));
  });

  it("another vendor's endpoint: the same 404 as an unknown or malformed id, and it stays", async () => {
    const [v, other] = [await vendor(app.ctx), await vendor(app.ctx)];
    const theirs = await vendorCall(app, other.apiKey, 'POST', '/api/vendor/endpoints/', { url: 'http://127.0.0.1:9/theirs' });
    const attack = await vendorCall(app, v.apiKey, 'DELETE', `/api/vendor/endpoints/${theirs.body.data.id}/`);
    const unknown = await vendorCall(app, v.apiKey, 'DELETE', `/api/vendor/endpoints/${randomUUID()}/`);
    const malformed = await vendorCall(app, v.apiKey, 'DELETE', `/api/vendor/endpoints/not-a-uuid/`);
    for (const r of [attack, unknown, malformed]) expectError(r, 404, plain('Not found.'));
    expect(withoutRequestId(attack.body)).toEqual(withoutRequestId(unknown.body));
    const [row] = await ormQuery(app, `select removed_at from event_endpoints where id = ?`, [theirs.body.data.id]);
    expect(row.removed_at).toBeNull();
  });
});
