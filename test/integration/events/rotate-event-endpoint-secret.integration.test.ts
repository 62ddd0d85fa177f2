/**
 * `POST /api/vendor/endpoints/{id}/rotate-secret/` (docs/events.md "Self-service"): a new secret
 * shown once; for 24 hours every delivery carries `v1,<new> v1,<old>`, each verifying with the
 * official `standardwebhooks` package; after the overlap only the new one signs. Another
 * vendor's endpoint is 404 and its secret unchanged.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import { vendor } from '../../support/factories';
import { type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';
import { selfServiceApp, vendorCall } from '../../support/self-service';

const verifies = (secret: string, r: { body: string; headers: Record<string, unknown> }) => {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

describe('POST /api/vendor/endpoints/{id}/rotate-secret/', () => {
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

  it('new secret once; deliveries are signed by both for 24 h, then by the new one alone', async () => {
    const v = await vendor(app.ctx);
    const ep = (await vendorCall(app, v.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/rot') })).body.data;
    const before = Date.now();
    const res = await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${ep.id}/rotate-secret/`);
    expect(res.status).toBe(200);
    const { secret, previous_secret_expires_at: until } = res.body.data;
    expect(res.body.data).toEqual({ id: ep.id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.any(String) });
    expect(secret).not.toBe(ep.secret);
    expect(Math.abs(Date.parse(until) - before - 24 * 3_600_000)).toBeLessThan(60_000);

    await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${ep.id}/test/`);
    const [both] = await rx.waitForCount('/rot', 1);
    expect(String(both!.headers['webhook-signature'])).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(secret, both!)).toBe(true);
    expect(verifies(ep.secret, both!)).toBe(true);

    // The overlap over: only the new secret signs.
    await ormQuery(app, `update event_endpoints set previous_secret_until = now() - interval '1 second' where id = ?`, [ep.id]);
    await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${ep.id}/test/`);
    const [, after] = await rx.waitForCount('/rot', 2);
    expect(String(after!.headers['webhook-signature'])).toMatch(/^v1,\S+$/);
    expect(verifies(secret, after!)).toBe(true);
    expect(verifies(ep.secret, after!)).toBe(false);
  });

  it("another vendor's endpoint is 404, exactly as an unknown one, and its secret is unchanged", async () => {
    const [v, other] = [await vendor(app.ctx), await vendor(app.ctx)];
    const theirs = (await vendorCall(app, other.apiKey, 'POST', '/api/vendor/endpoints/', { url: rx.url('/theirs') })).body.data;
    const [before] = await ormQuery(app, `select secret_enc from event_endpoints where id = ?`, [theirs.id]);
    expectError(await vendorCall(app, v.apiKey, 'POST', `/api/vendor/endpoints/${theirs.id}/rotate-secret/`), 404, plain('Not found.'));
    const [after] = await ormQuery(app, `select secret_enc, previous_secret_enc from event_endpoints where id = ?`, [theirs.id]);
    expect(after).toEqual({ secret_enc: before.secret_enc, previous_secret_enc: null });
  });
});
