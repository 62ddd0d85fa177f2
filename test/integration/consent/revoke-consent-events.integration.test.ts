/**
 * `consent.revoked` (docs/consent.md "How consent works", docs/events.md) as the vendor's receiver sees it: signed, to the consent's
 * vendor only, once per withdrawal, saying who withdrew (`vendor` or `employer`); written in the
 * withdrawal's transaction (a withdrawal that revoked nothing writes no event). Real hrx, events
 * worker, PostgreSQL, Redis/BullMQ and a real HTTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBasic, client, connection, employees, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let app: TestApp;
let rx: Receiver;

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RELAY_MS: '500' } });
  await app.startEventsWorker();
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await app?.stop();
});

const json = (path: string, authorization: string, body: unknown) =>
  call(`${app.url}${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe("consent.revoked to the consent's vendor", () => {
  it("is delivered, signed, for the vendor's and the employer's withdrawals, to that vendor only", async () => {
    const v = await vendor(app.ctx);
    const w = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
    await connection(app.ctx, w.org.uuid, c.org.uuid, { consentRequired: true });
    await employees(app.ctx, c.org.id, [{ employeeId: 'R1' }, { employeeId: 'R2' }]);
    const epV = await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/v') });
    const epW = await app.ctx.services.endpoints.add({ orgUuid: w.org.uuid, url: rx.url('/w'), events: ['consent.revoked'] });
    // An endpoint of v that did not subscribe to it hears nothing.
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/v-expired-only'), events: ['consent.expired'] });
    expect(epV.events).toContain('consent.revoked');
    const consent = (who: typeof v, employeeId: string) =>
      json('/api/v1/employee/consent-data/', who.apiKey, {
        org: c.org.uuid,
        employee_id: employeeId,
        consent_language: 'I agree.',
        consent_timestamp: new Date().toISOString(),
        consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
      });
    for (const [who, id] of [
      [v, 'R1'],
      [v, 'R2'],
      [w, 'R2'],
    ] as const)
      expect((await consent(who, id)).status).toBe(200);

    // The vendor withdraws: only v hears of it.
    const byVendor = await json('/api/v1/employee/consent-data/revoke/', v.apiKey, { org: c.org.uuid, employee_id: 'R1' });
    expect(byVendor.status).toBe(200);
    const [first] = await rx.waitForCount('/v', 1, 'consent.revoked');
    expect(first!.json).toEqual({
      type: 'consent.revoked',
      timestamp: byVendor.body.data.revoked_at,
      data: { client_org_id: c.org.uuid, employee_id: 'R1', revoked_at: byVendor.body.data.revoked_at, revoked_by: 'vendor' },
    });
    expect(verifySignature(epV.secret, first!)).toBe(true);

    // The employer withdraws R2 for every vendor: each hears of its own consent.
    const byEmployer = await json('/api/webhook/v1/employee/consent/revoke/', appBasic(c), { employee_id: 'R2' });
    expect(byEmployer.body.data.revoked).toHaveLength(2);
    const at = byEmployer.body.data.revoked[0].revoked_at as string;
    const [, second] = await rx.waitForCount('/v', 2, 'consent.revoked');
    const [toW] = await rx.waitForCount('/w', 1, 'consent.revoked');
    const expected = { type: 'consent.revoked', timestamp: at, data: { client_org_id: c.org.uuid, employee_id: 'R2', revoked_at: at, revoked_by: 'employer' } };
    expect(second!.json).toEqual(expected);
    expect(toW!.json).toEqual(expected);
    expect(verifySignature(epW.secret, toW!)).toBe(true);
    expect(toW!.headers['webhook-id']).not.toBe(second!.headers['webhook-id']);

    // Withdrawals that revoke nothing write nothing.
    expect((await json('/api/v1/employee/consent-data/revoke/', v.apiKey, { org: c.org.uuid, employee_id: 'R1' })).status).toBe(404);
    expect((await json('/api/webhook/v1/employee/consent/revoke/', appBasic(c), { employee_id: 'R2' })).body.data.revoked).toEqual([]);
    await sleep(1000);
    expect(rx.at('/v')).toHaveLength(2);
    expect(rx.at('/w')).toHaveLength(1);
    expect(rx.at('/v-expired-only')).toHaveLength(0);
    const rows = await dbQuery(
      app,
      `select vendor_org_id, count(*)::int as n from events where type = 'consent.revoked' group by vendor_org_id order by vendor_org_id`,
    );
    expect(rows.rows).toEqual([
      { vendor_org_id: v.org.id, n: 2 },
      { vendor_org_id: w.org.id, n: 1 },
    ]);
  });
});
