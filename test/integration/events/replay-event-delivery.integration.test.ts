/**
 * `POST /api/vendor/deliveries/{id}/replay/` (docs/events.md "Self-service"): the same event
 * (same `webhook-id`, same body) to the same endpoint again, every attempt recorded; a failed
 * delivery gets the whole retry schedule again. Another vendor's delivery is 404 and not sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { vendor } from '../../support/factories';
import { waitFor, type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';
import { selfServiceApp, vendorCall } from '../../support/self-service';

describe('POST /api/vendor/deliveries/{id}/replay/', () => {
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
  const status = async (id: string) => (await ormQuery(app, `select status, attempts from event_deliveries where id = ?`, [id]))[0];

  it('202; a failed delivery is sent again with the whole schedule, same webhook-id and body', async () => {
    const v = await vendor(app.ctx);
    const ep = (await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/r') })).body.data;
    rx.setDefault('/r', 503);
    const sent = (await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${ep.id}/test/`)).body.data;
    await waitFor(async () => ((await status(sent.delivery_id)).status === 'failed' ? true : null), 20_000);
    rx.plan('/r', [500]);
    rx.setDefault('/r', 200);
    const res = await vendorCall(app, v.apiKey, 'POST', `/api/vendor/deliveries/${sent.delivery_id}/replay/`);
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ id: sent.delivery_id, event_id: sent.event_id, status: 'pending' });
    await waitFor(async () => ((await status(sent.delivery_id)).status === 'delivered' ? true : null), 20_000);
    // 3 failed attempts, then after the replay one more failure (a retry, not the end) and a success.
    expect(await status(sent.delivery_id)).toEqual({ status: 'delivered', attempts: 5 });
    const got = rx.at('/r');
    expect(got).toHaveLength(5);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([sent.event_id]));
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const attempts = await ormQuery(app, `select attempt, http_status from event_attempts where delivery_id = ? order by attempt`, [sent.delivery_id]);
    expect(attempts.map((a) => a.http_status)).toEqual([503, 503, 503, 500, 200]);
  });

  it("another vendor's delivery and an unknown id are 404 alike, and nothing is sent", async () => {
    const [v, other] = [await vendor(app.ctx), await vendor(app.ctx)];
    const theirs = (await vendorCall(app, other.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/theirs') })).body.data;
    const sent = (await vendorCall(app, other.apiKey, 'POST', `/api/vendor/endpoints/${theirs.id}/test/`)).body.data;
    await rx.waitForCount('/theirs', 1);
    for (const id of [sent.delivery_id, randomUUID(), 'nope']) {
      expectError(await vendorCall(app, v.apiKey, 'POST', `/api/vendor/deliveries/${id}/replay/`), 404, plain('Not found.'));
    }
    // The receiver has the request before the deliverer records the attempt: wait for the row.
    await waitFor(async () => ((await status(sent.delivery_id)).status !== 'pending' ? true : null), 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.at('/theirs')).toHaveLength(1);
    expect(await status(sent.delivery_id)).toEqual({ status: 'delivered', attempts: 1 });
  });
});
