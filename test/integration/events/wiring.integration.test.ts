/**
 * Events (docs/events.md) from the producers built beside them: the update webhook emits
 * `employee.updated` (ids and changed data point names, never values) once its write commits,
 * and the Connect flow's decision emits `connection.approved` / `connection.rejected` in the
 * transaction of the decision. Real hrx, PostgreSQL, Redis/BullMQ and a real HTTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBasic, client, connection, employees, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';

describe('events from the update webhook and the Connect flow', () => {
  let app: TestApp;
  let rx: Receiver;

  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '500,500' } });
    await app.startEventsWorker();
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await app?.stop();
  });

  it('the update webhook announces employee.updated with ids and data point names, once per change', async () => {
    const v = await vendor(app.ctx);
    const c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const [stored] = await employees(app.ctx, c.org.id, [{ employeeId: 'E1', name: 'Asha Rao' }]);
    const ep = await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/emp'), events: ['employee.updated'] });
    const update = (body: unknown) =>
      call(`${app.url}/api/webhook/v1/employee/update/`, {
        method: 'POST',
        headers: { authorization: appBasic(c), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const res = await update({ employeeId: 'E1', pan: 'ABCPD1234K', salaryDetails: { ctc: { basic: 720000 } } });
    expect(res.status).toBe(200);
    expect(res.body.data.updated_fields).toEqual(['pan', 'ctc_basic']);
    const [got] = await rx.waitForCount('/emp', 1);
    expect(verifySignature(ep.secret, got!)).toBe(true);
    expect(got!.json.type).toBe('employee.updated');
    expect(got!.json.data).toEqual({ client_org_id: c.org.uuid, employees: [{ id: stored!.id, employee_id: 'E1', updated_fields: ['pan', 'ctc_basic'] }] });
    // Never the values.
    expect(got!.body).not.toContain('ABCPD1234K');
    expect(got!.body).not.toContain('720000');

    // The same body again changes nothing, so nothing is announced.
    expect((await update({ employeeId: 'E1', pan: 'ABCPD1234K' })).body.data.updated_fields).toEqual([]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.received.filter((r) => r.path === '/emp')).toHaveLength(1);
  });

  it("the Connect decision announces connection.approved and connection.rejected to the vendor's endpoint", async () => {
    const v = await vendor(app.ctx);
    const ep = await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/connect') });
    const flags = { detail_info_fields: { gender: -1, dob: 1 } };
    const yes = await client(app.ctx);
    const no = await client(app.ctx);
    const a = await app.ctx.services.connections.ensureRequested(v.org.id, yes.org.id, flags);
    const b = await app.ctx.services.connections.ensureRequested(v.org.id, no.org.id, flags);
    await app.ctx.services.connections.decideInConnect(a.id, flags, { to: 'approved', optedIn: [] });
    await app.ctx.services.connections.decideInConnect(b.id, flags, { to: 'rejected' });
    const got = await rx.waitForCount('/connect', 2);
    for (const g of got) expect(verifySignature(ep.secret, g)).toBe(true);
    const byType = Object.fromEntries(got.map((g) => [g.json.type, g.json.data]));
    expect(byType['connection.approved']).toEqual({ connection_id: a.id, vendor_org_id: v.org.uuid, client_org_id: yes.org.uuid, status: 'approved' });
    expect(byType['connection.rejected']).toEqual({ connection_id: b.id, vendor_org_id: v.org.uuid, client_org_id: no.org.uuid, status: 'rejected' });
    // A refused second decision announces nothing more.
    await expect(app.ctx.services.connections.decideInConnect(a.id, flags, { to: 'rejected' })).rejects.toMatchObject({ code: 'CONNECTION_DECIDED' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(rx.received.filter((r) => r.path === '/connect')).toHaveLength(2);
  });
});
