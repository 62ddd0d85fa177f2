/**
 * `POST /api/vendor/endpoints/{id}/test/` (docs/events.md "Self-service"): an `endpoint.test`
 * event through the outbox to that endpoint alone, signed (checked with the `standardwebhooks`
 * package) and recorded; another vendor's endpoint is 404 and gets nothing.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { vendor } from '../../support/factories';
import { type TestApp, waitFor } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';
import { selfServiceApp, vendorCall } from '../../support/self-service';

describe('POST /api/vendor/endpoints/{id}/test/', () => {
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

  it('202; the endpoint (and no other of the vendor) receives a signed endpoint.test', async () => {
    const v = await vendor(app.ctx);
    const ep = (await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/t1') })).body.data;
    await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/t2') });
    const res = await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${ep.id}/test/`);
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ event_id: expect.stringMatching(/^msg_/), delivery_id: expect.any(String), type: 'endpoint.test' });
    const [got] = await rx.waitForCount('/t1', 1);
    expect(got!.headers['webhook-id']).toBe(res.body.data.event_id);
    const payload = new Webhook(ep.secret).verify(got!.body, got!.headers as Record<string, string>);
    expect(payload).toEqual({ type: 'endpoint.test', timestamp: expect.any(String), data: { endpoint_id: ep.id, vendor_org_id: v.org.uuid } });
    // The receiver has the request before the deliverer records the attempt: wait for the row.
    const delivery = async () => (await ormQuery(app, `select status, attempts from event_deliveries where id = ?`, [res.body.data.delivery_id]))[0];
    await waitFor(async () => ((await delivery())?.status !== 'pending' ? true : null), 10_000);
    expect(await delivery()).toEqual({ status: 'delivered', attempts: 1 });
    expect(rx.at('/t2')).toEqual([]);
  });

  it("another vendor's endpoint is 404 and nothing is written or sent", async () => {
    const [v, other] = [await vendor(app.ctx), await vendor(app.ctx)];
    const theirs = (await vendorCall(app, other.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/theirs') })).body.data;
    expectError(await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${theirs.id}/test/`), 404, plain('Not found.'));
    expect(await ormQuery(app, `select 1 from event_deliveries where endpoint_id = ?`, [theirs.id])).toEqual([]);
    expect(rx.at('/theirs')).toEqual([]);
  });
});
