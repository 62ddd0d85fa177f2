/**
 * Events to vendors (docs/events.md) as a vendor's receiver sees them: connection events with
 * verifiable Standard Webhooks signatures, nothing after `connection.terminated`, no event of one
 * vendor reaching another, `employee.updated` with ids and names only, `consent.expired` once.
 * Real hrx, PostgreSQL, Redis/BullMQ and a real HTTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCompletedEvent } from '../../../src/events/catalog';
import { ormQuery } from '../../support/db';
import { client, connection, employees, vendor } from '../../support/factories';
import { call, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let app: TestApp;
let rx: Receiver;

beforeAll(async () => {
  app = await startTestApp({
    worker: false,
    env: {
      HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1',
      HRX_EVENTS_RETRY_SCHEDULE_MS: '700,700,700',
      HRX_EVENTS_CONSENT_SCAN_MS: '200',
      HRX_EVENTS_RELAY_MS: '500',
    },
  });
  await app.startEventsWorker();
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await app?.stop();
});

const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);
const endpoint = (orgUuid: string, path: string, events?: any[]) =>
  app.ctx.services.endpoints.add({ orgUuid, url: rx.url(path), ...(events ? { events } : {}) });
const terminate = (apiKey: string, clientOrg: string) => {
  const form = new FormData();
  form.set('client_org', clientOrg);
  return call(`${app.url}/api/terminate_connection/`, { method: 'POST', headers: { authorization: apiKey }, body: form });
};

describe('events to vendors: connection approved and terminated', () => {
  it('delivers connection.approved and connection.terminated, signed, with the Standard Webhooks headers', async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    const ep = await endpoint(v.org.uuid, '/conn');
    const conn = await connection(app.ctx, v.org.uuid, c.org.uuid, { status: 'pending' });
    await app.ctx.services.connections.decide(conn.id, 'approved');
    const [approved] = await rx.waitForCount('/conn', 1);
    const now = Math.floor(Date.now() / 1000);
    expect(approved!.headers['content-type']).toBe('application/json');
    expect(approved!.headers['webhook-id']).toMatch(/^msg_[0-9a-z]{9}[0-9a-f]{20}$/);
    expect(approved!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Number(approved!.headers['webhook-timestamp']) - now)).toBeLessThan(30);
    expect(approved!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifySignature(ep.secret, approved!)).toBe(true);
    expect(verifySignature((await endpoint(v.org.uuid, '/other', ['sync.failed'])).secret, approved!)).toBe(false);
    expect(approved!.json).toEqual({
      type: 'connection.approved',
      timestamp: expect.stringMatching(ISO),
      data: { connection_id: conn.id, vendor_org_id: v.org.uuid, client_org_id: c.org.uuid, status: 'approved' },
    });
    // The body sent is byte for byte the outbox row.
    const [row] = await sql(`select payload::text as payload, type, vendor_org_id from events where id = ?`, [approved!.headers['webhook-id']]);
    expect(row).toEqual({ payload: approved!.body, type: 'connection.approved', vendor_org_id: v.org.id });

    const res = await terminate(v.apiKey, c.org.uuid);
    expect(res.status).toBe(200);
    const [, terminated] = await rx.waitForCount('/conn', 2);
    expect(terminated!.json).toEqual({
      type: 'connection.terminated',
      timestamp: expect.stringMatching(ISO),
      data: { connection_id: conn.id, vendor_org_id: v.org.uuid, client_org_id: c.org.uuid, status: 'terminated' },
    });
    expect(verifySignature(ep.secret, terminated!)).toBe(true);
    expect(terminated!.headers['webhook-id']).not.toBe(approved!.headers['webhook-id']);
    // The receiver has the request before the deliverer records the attempt: wait for both rows.
    const attempts = await waitFor(async () => {
      const rows = await sql(
        `select e.type, d.status, d.attempts, a.attempt, a.http_status, a.error from event_deliveries d
           join events e on e.id = d.event_id join event_attempts a on a.delivery_id = d.id
          where d.endpoint_id = ? order by a.at`,
        [ep.id],
      );
      return rows.length >= 2 && rows.every((r) => r.status === 'delivered') ? rows : null;
    }, 10_000);
    expect(attempts).toEqual([
      { type: 'connection.approved', status: 'delivered', attempts: 1, attempt: 1, http_status: 200, error: null },
      { type: 'connection.terminated', status: 'delivered', attempts: 1, attempt: 1, http_status: 200, error: null },
    ]);
  });

  it("a terminated connection's vendor gets connection.terminated and nothing after it, even what was queued before", async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const ep = await endpoint(v.org.uuid, '/cut', ['employee.updated', 'connection.terminated', 'sync.completed']);
    rx.plan('/cut', [500]);
    const w = await app.ctx.services.events.employeesUpdated(c.org.id, [{ employeeId: 'EMP00001', updatedFields: ['dob'] }]);
    expect(w.eventIds).toHaveLength(1);
    await rx.waitForCount('/cut', 1, 'employee.updated');
    // The first attempt failed; its retry is 700 ms away. Terminate before it.
    expect((await terminate(v.apiKey, c.org.uuid)).status).toBe(200);
    await rx.waitForCount('/cut', 1, 'connection.terminated');
    const [d] = await waitFor(
      async () => {
        const rows = await sql(`select status, attempts from event_deliveries where id = ?`, [w.deliveryIds[0]]);
        return rows[0]?.status === 'cancelled' ? rows : null;
      },
      10_000,
      50,
    );
    expect(d).toEqual({ status: 'cancelled', attempts: 1 });
    // New events about that client org do not go to this vendor at all.
    const late = await app.ctx.services.events.emit(
      syncCompletedEvent({
        clientOrgId: c.org.id,
        runId: '00000000-0000-4000-8000-000000000001',
        startedAt: new Date(),
        finishedAt: new Date(),
        employeesSeen: 1,
        employeesRemoved: 0,
      }),
    );
    expect(late.deliveryIds).toEqual([]);
    expect((await app.ctx.services.events.employeesUpdated(c.org.id, [{ employeeId: 'EMP00001', updatedFields: ['dob'] }])).deliveryIds).toEqual([]);
    await sleep(1500);
    expect(rx.at('/cut').map((r) => r.json.type)).toEqual(['employee.updated', 'connection.terminated']);
    expect((await sql(`select count(*)::int as n from event_deliveries where endpoint_id = ?`, [ep.id]))[0].n).toBe(2);
  });
});

describe('events to vendors: endpoint removal, isolation, employee updates', () => {
  it('removing an endpoint stops its pending deliveries', async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const ep = await endpoint(v.org.uuid, '/gone', ['employee.updated']);
    rx.setDefault('/gone', 503);
    const w = await app.ctx.services.events.employeesUpdated(c.org.id, [{ employeeId: 'EMP00002', updatedFields: ['gender'] }]);
    await rx.waitForCount('/gone', 1);
    expect(await app.ctx.services.endpoints.remove(ep.id)).toEqual({ id: ep.id, removed: true, cancelled_deliveries: 1 });
    // The retry (700 ms later) never comes, and its queued job is gone.
    await sleep(1500);
    expect(rx.at('/gone')).toHaveLength(1);
    expect(await sql(`select status, attempts from event_deliveries where id = ?`, [w.deliveryIds[0]])).toEqual([{ status: 'cancelled', attempts: 1 }]);
    expect(await app.ctx.eventsQueue.queue.getJob(w.deliveryIds[0]!)).toBeUndefined();
    expect(await app.ctx.services.endpoints.list(v.org.uuid)).toEqual([]);
    await expect(app.ctx.services.endpoints.remove(ep.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // New events find no endpoint.
    expect((await app.ctx.services.events.employeesUpdated(c.org.id, [{ employeeId: 'EMP00002', updatedFields: ['dob'] }])).deliveryIds).toEqual([]);
  });

  it("never sends vendor A's events to vendor B's endpoint", async () => {
    const a = await vendor(app.ctx);
    const b = await vendor(app.ctx);
    const c1 = await client(app.ctx);
    const c2 = await client(app.ctx);
    await endpoint(a.org.uuid, '/a');
    await endpoint(b.org.uuid, '/b');
    const ac1 = await connection(app.ctx, a.org.uuid, c1.org.uuid);
    const bc2 = await connection(app.ctx, b.org.uuid, c2.org.uuid);
    // B's pending connection with C1 does not entitle it to C1's events.
    await connection(app.ctx, b.org.uuid, c1.org.uuid, { status: 'pending' });
    await app.ctx.services.events.employeesUpdated(c1.org.id, [{ employeeId: 'EMP00009', updatedFields: ['gender'] }]);
    await app.ctx.services.events.emit(
      syncCompletedEvent({
        clientOrgId: c1.org.id,
        runId: '00000000-0000-4000-8000-000000000002',
        startedAt: new Date(),
        finishedAt: new Date(),
        employeesSeen: 3,
        employeesRemoved: 0,
      }),
    );
    const toA = await rx.waitForCount('/a', 3);
    await sleep(500);
    expect(toA.map((r) => r.json.type).sort()).toEqual(['connection.approved', 'employee.updated', 'sync.completed']);
    expect(toA.every((r) => r.json.data.client_org_id === c1.org.uuid)).toBe(true);
    expect(toA.find((r) => r.json.type === 'connection.approved')!.json.data.connection_id).toBe(ac1.id);
    const toB = rx.at('/b');
    expect(toB.map((r) => r.json)).toEqual([
      {
        type: 'connection.approved',
        timestamp: expect.stringMatching(ISO),
        data: { connection_id: bc2.id, vendor_org_id: b.org.uuid, client_org_id: c2.org.uuid, status: 'approved' },
      },
    ]);
    expect(toB.some((r) => r.body.includes(c1.org.uuid) || r.body.includes(a.org.uuid))).toBe(false);
  });

  it('employeesUpdated sends employee.updated with ids and the data point names each vendor is shared, no values', async () => {
    const full = await vendor(app.ctx);
    const partial = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, full.org.uuid, c.org.uuid);
    await connection(app.ctx, partial.org.uuid, c.org.uuid, { shared: ['gender', 'dob'] });
    await endpoint(full.org.uuid, '/upd-full', ['employee.updated']);
    await endpoint(partial.org.uuid, '/upd-partial', ['employee.updated']);
    const [e1, e2] = await employees(app.ctx, c.org.id, [
      { employeeId: 'U1', name: 'Asha Rao' },
      { employeeId: 'U2', name: 'Ravi Kumar' },
    ]);
    const written = await app.ctx.services.events.employeesUpdated(c.org.id, [
      { employeeId: 'U1', id: e1!.id, updatedFields: ['gender', 'bankDetails_accountNumber', 'ctc_basic'] },
      { employeeId: 'U2', id: e2!.id, updatedFields: ['bankDetails_accountNumber'] },
    ]);
    expect(written.eventIds).toHaveLength(2);
    const [toFull] = await rx.waitForCount('/upd-full', 1);
    const [toPartial] = await rx.waitForCount('/upd-partial', 1);
    expect(toFull!.json).toEqual({
      type: 'employee.updated',
      timestamp: expect.stringMatching(ISO),
      data: {
        client_org_id: c.org.uuid,
        employees: [
          { id: e1!.id, employee_id: 'U1', updated_fields: ['gender', 'bankDetails_accountNumber', 'ctc_basic'] },
          { id: e2!.id, employee_id: 'U2', updated_fields: ['bankDetails_accountNumber'] },
        ],
      },
    });
    expect(toPartial!.json.data).toEqual({ client_org_id: c.org.uuid, employees: [{ id: e1!.id, employee_id: 'U1', updated_fields: ['gender'] }] });
    expect(toFull!.body).not.toMatch(/Asha|Ravi/);
  });
});

describe("events to vendors: connections, isolation, employees, consents: announces consent.expired once, to the consent's vendor, and not for a consent renewed in time", () => {
  it("announces consent.expired once, to the consent's vendor, and not for a consent renewed in time", async () => {
    const v = await vendor(app.ctx);
    const other = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
    await connection(app.ctx, other.org.uuid, c.org.uuid, { consentRequired: true });
    await endpoint(v.org.uuid, '/consent', ['consent.expired']);
    await endpoint(other.org.uuid, '/consent-other', ['consent.expired']);
    await employees(app.ctx, c.org.id, [{ employeeId: 'K1' }, { employeeId: 'K2' }]);
    const now = Date.now();
    const expiry = new Date(now + 1500);
    const consent = (employeeId: string, until: Date) =>
      call(`${app.url}/api/v1/employee/consent-data/`, {
        method: 'POST',
        headers: { authorization: v.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          org: c.org.uuid,
          employee_id: employeeId,
          consent_language: 'I agree',
          consent_timestamp: new Date(now).toISOString(),
          consent_expiry: until.toISOString(),
        }),
      });
    expect((await consent('K1', expiry)).status).toBe(200);
    expect((await consent('K2', expiry)).status).toBe(200);
    expect((await consent('K2', new Date(now + 3_600_000))).status).toBe(200);
    const [got] = await rx.waitForCount('/consent', 1, 'consent.expired', 20_000);
    expect(got!.json).toEqual({
      type: 'consent.expired',
      timestamp: expiry.toISOString(),
      data: { client_org_id: c.org.uuid, employee_id: 'K1', consent_expiry: expiry.toISOString() },
    });
    // Several more scans (every 200 ms) announce nothing again.
    await sleep(1500);
    expect(rx.at('/consent')).toHaveLength(1);
    expect(rx.at('/consent-other')).toHaveLength(0);
    expect(await app.ctx.services.events.scanExpiredConsents()).toBe(0);
    const announced = await sql(`select k.employee_id from consent_expiry_announcements a join consents k on k.id = a.consent_id where k.client_org_id = ?`, [
      c.org.id,
    ]);
    expect(announced).toEqual([{ employee_id: 'K1' }]);
  });
});
