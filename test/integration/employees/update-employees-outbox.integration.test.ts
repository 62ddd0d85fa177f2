/**
 * Outbox atomicity of the update webhook (docs/events.md "Outbox"): `employee.updated` is
 * written in the webhook's own transaction, so a committed update always has its outbox row and
 * a rolled-back one never does. The failures are real PostgreSQL ones: deferred constraint
 * triggers this test installs in its own schema raise at COMMIT, i.e. after every write of the
 * transaction (the event included) was made.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormQuery } from '../../support/db';
import { appBasic, client, connection, employees, vendor } from '../../support/factories';
import { call, DATABASE_URL, startTestApp, type TestApp } from '../../support/harness';
import { storedRecords } from '../../support/stored';

describe('employee.updated commits or rolls back with the update', () => {
  let app: TestApp;
  let c: Awaited<ReturnType<typeof client>>;

  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1' } });
    const v = await vendor(app.ctx);
    c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    await employees(app.ctx, c.org.id, [{ employeeId: 'E1', name: 'Asha Rao' }]);
    // Someone to deliver to: without a subscribed endpoint no event row is written at all.
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: 'http://127.0.0.1:9/hook', events: ['employee.updated'] });
    const s = `"${app.config.HRX_DB_SCHEMA}"`;
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`create function ${s}.test_refuse_commit() returns trigger language plpgsql as $$
        begin raise exception 'test: commit refused'; end $$`);
      // Fires at COMMIT, after the event row was inserted, for events naming FAIL-AT-COMMIT.
      await admin.query(`create constraint trigger test_refuse_event after insert on ${s}.events
        deferrable initially deferred for each row when (new.payload::text like '%FAIL-AT-COMMIT%')
        execute function ${s}.test_refuse_commit()`);
      // Fires at COMMIT for the employee row FAIL-EMPLOYEE (the event was written before it).
      await admin.query(`create constraint trigger test_refuse_employee after insert or update on ${s}.employees
        deferrable initially deferred for each row when (new.employee_id = 'FAIL-EMPLOYEE')
        execute function ${s}.test_refuse_commit()`);
    } finally {
      await admin.end();
    }
  });
  afterAll(async () => {
    await app?.stop();
  });

  const sql = (q: string, p: unknown[] = []) => ormQuery(app, q, p);
  const update = (body: unknown) =>
    call(`${app.url}/api/webhook/v1/employee/update/`, {
      method: 'POST',
      headers: { authorization: appBasic(c), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const eventsNaming = (employeeId: string) =>
    sql(
      `select e.id, e.payload::text as payload, (select count(*)::int from event_deliveries d where d.event_id = e.id) as deliveries
           from events e where e.type = 'employee.updated' and e.payload::text like ?`,
      [`%"${employeeId}"%`],
    );
  const employeeRows = (employeeId: string) => sql(`select id from employees where org_id = ? and employee_id = ?`, [c.org.id, employeeId]);
  const auditRows = (employeeId: string) => sql(`select id from audit_log where action = 'employee.update' and employee_id = ?`, [employeeId]);

  it('a committed update always has its employee.updated row, there as soon as the answer is', async () => {
    const res = await update([
      { employeeId: 'E1', designation: 'Lead' },
      { employeeId: 'E2', name: 'Ravi Kumar' },
    ]);
    expect(res.status).toBe(200);
    for (const id of ['E1', 'E2']) {
      const rows = await eventsNaming(id);
      expect(rows).toHaveLength(1);
      expect(rows[0].deliveries).toBe(1);
    }
    const payload = JSON.parse((await eventsNaming('E1'))[0].payload);
    expect(payload.data.employees.map((e: { employee_id: string }) => e.employee_id)).toEqual(['E1', 'E2']);
    expect(payload.data.employees[0].updated_fields).toEqual(['designation']);
  });

  it('an update whose transaction fails after the event was written leaves no event, no change and no audit entry', async () => {
    const res = await update([
      { employeeId: 'E1', designation: 'Director' },
      { employeeId: 'FAIL-AT-COMMIT', name: 'Nobody' },
    ]);
    expect(res.status).toBe(500);
    expect(await eventsNaming('FAIL-AT-COMMIT')).toHaveLength(0);
    expect(await employeeRows('FAIL-AT-COMMIT')).toHaveLength(0);
    expect(await auditRows('FAIL-AT-COMMIT')).toHaveLength(0);
    // The other record of the same body is rolled back too: E1 keeps its designation.
    expect((await storedRecords(app, c.org.id)).get('E1')!.record.designation).toBe('Lead');
  });

  it('an update whose employee write fails at commit leaves no event', async () => {
    const res = await update({ employeeId: 'FAIL-EMPLOYEE', name: 'Nobody Either' });
    expect(res.status).toBe(500);
    expect(await employeeRows('FAIL-EMPLOYEE')).toHaveLength(0);
    expect(await eventsNaming('FAIL-EMPLOYEE')).toHaveLength(0);
    expect(await auditRows('FAIL-EMPLOYEE')).toHaveLength(0);
  });
});
