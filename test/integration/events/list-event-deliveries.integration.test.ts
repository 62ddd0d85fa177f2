/**
 * `GET /api/vendor/endpoints/{id}/deliveries/` (docs/events.md "Self-service"): the endpoint's
 * deliveries newest first with attempts and the last outcome, never the payload; paged; another
 * vendor's endpoint is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, plain } from '../../support/expect-error';
import { vendor } from '../../support/factories';
import { waitFor, type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';
import { selfServiceApp, vendorCall } from '../../support/self-service';

describe('GET /api/vendor/endpoints/{id}/deliveries/', () => {
  let app: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    app = await selfServiceApp();
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await app?.stop();
  });

  it('newest first: event id, type, status, attempts, last outcome; paged; no payload', async () => {
    const v = await vendor(app.ctx);
    const ep = (await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/d') })).body.data;
    rx.setDefault('/d', 500);
    const first = (await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${ep.id}/test/`)).body.data;
    const list = () => vendorCall(app, v.apiKey, 'GET', `/api/vendor/endpoints/${ep.id}/deliveries/`);
    await waitFor(async () => (await list()).body.data[0]?.status === 'failed', 20_000);
    rx.setDefault('/d', 204);
    const second = (await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${ep.id}/test/`)).body.data;
    await waitFor(async () => (await list()).body.data[0]?.status === 'delivered', 20_000);
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.pageInfo).toEqual({ totalPages: 1, totalItems: 2, items: 2, next: false, previous: false });
    const common = { type: 'endpoint.test', last_attempt_at: expect.any(String), last_error: null, created_at: expect.any(String) };
    expect(res.body.data).toEqual([
      { ...common, id: second.delivery_id, event_id: second.event_id, status: 'delivered', attempts: 1, last_http_status: 204 },
      { ...common, id: first.delivery_id, event_id: first.event_id, status: 'failed', attempts: 3, last_http_status: 500 },
    ]);
    expect(JSON.stringify(res.body)).not.toContain('vendor_org_id');
    const page2 = await vendorCall(app, v.apiKey, 'GET', `/api/vendor/endpoints/${ep.id}/deliveries/?page=2&page_size=1`);
    expect(page2.body.data.map((d: { id: string }) => d.id)).toEqual([first.delivery_id]);
    expectError(await vendorCall(app, v.apiKey, 'GET', `/api/vendor/endpoints/${ep.id}/deliveries/?page=3&page_size=1`), 404, plain('Invalid page.'));
  });

  it("another vendor's endpoint is 404, exactly as an unknown one", async () => {
    const [v, other] = [await vendor(app.ctx), await vendor(app.ctx)];
    const theirs = (await vendorCall(app, other.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/theirs') })).body.data;
    await vendorCall(app, other.apiKey, 'POST', `/api/vendor/endpoints/${theirs.id}/test/`);
    expectError(await vendorCall(app, v.apiKey, 'GET', `/api/vendor/endpoints/${theirs.id}/deliveries/`), 404, plain('Not found.'));
  });
});
