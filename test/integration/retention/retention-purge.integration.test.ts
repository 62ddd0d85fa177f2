/**
 * The retention purge (docs/erasure-and-retention.md "Retention"): rows seeded with old and new timestamps, and
 * the exact sets left after a purge.
 * - With both retentions at 0 days, the real retention worker (its job scheduler every second,
 *   as `hrx worker` starts it) removes every audit entry and Connect proof audit entry from the
 *   past, every consent that ended in the past of an employee no longer held (erased, purged in
 *   the same run, or never stored), and every employee removed in the past; it keeps what lies
 *   ahead, consents in force, consents of employees still held, live employees and tombstones.
 * - At 30 days (the service over the test's database), the boundary: 31 days old goes, 29 stays.
 * - The event outbox at 30 days: events whose deliveries all ended (or that have none) go after
 *   30 days with their deliveries and attempts, an ended `employee.removed` at once; an event
 *   with a delivery pending stays, whatever its age.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'bullmq';
import { retentionWorkerDeps } from '../../../jobs/deps';
import { startRetentionWorker } from '../../../jobs/retention.worker';
import { createRetentionService, type PurgeCounts } from '../../../src/retention/service';
import { createRetentionStore } from '../../../src/retention/store';
import * as f from '../../support/factories';
import { dbQuery, testPool } from '../../support/db';
import { call, startTestApp, waitFor, type TestApp } from '../../support/harness';

let app: TestApp;
let c: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;

beforeAll(async () => {
  app = await startTestApp({
    worker: false,
    env: { HRX_AUDIT_RETENTION_DAYS: '0', HRX_REMOVED_RETENTION_DAYS: '0', HRX_RETENTION_PURGE_MS: '1000' },
  });
  c = await f.client(app.ctx);
  v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
});
afterAll(async () => app?.stop());

/** A timestamp `offset` from the database's now, e.g. `- interval '31 days'`. */
const at = (offset: string) => `now() ${offset}`;
async function audit(tag: string, when: string): Promise<void> {
  await dbQuery(
    app,
    `insert into audit_log (at, request_id, actor_org_id, action, client_org_id, employee_id, data_points)
    values (${when}, $1, $2, 'employee.read', $2, $3, '{name}')`,
    [randomUUID(), c.org.id, tag],
  );
}
async function proofAudit(tag: string, when: string): Promise<void> {
  await dbQuery(
    app,
    `insert into connect_proof_audit (at, request_id, connection_id, vendor_org_id, client_org_id, session_id, user_id, method, outcome, source_address)
    values (${when}, $1, $1, $2, $3, $1, $1, 'approve', 'approved', $4)`,
    [randomUUID(), v.org.id, c.org.id, tag],
  );
}
async function consent(tag: string, employeeId: string, expiry: string, revoked = 'null'): Promise<void> {
  await dbQuery(
    app,
    `insert into consents (id, vendor_org_id, client_org_id, employee_id, consent_language_enc, consent_timestamp, consent_expiry, revoked_at, request_id)
    values ($1, $2, $3, $4, $5, now() - interval '400 days', ${expiry}, ${revoked}, $1)`,
    [randomUUID(), v.org.id, c.org.id, employeeId, tag],
  );
}
async function employee(employeeId: string, removedAt: string | null): Promise<void> {
  await f.employees(app.ctx, c.org.id, [{ employeeId, name: `Person ${employeeId}` }]);
  if (removedAt) await dbQuery(app, `update employees set removed_at = ${removedAt} where org_id = $1 and employee_id = $2`, [c.org.id, employeeId]);
}
/** One column of a table, sorted (in JS: the database's collation may order differently). */
const col = async (sql: string): Promise<string[]> => (await dbQuery(app, sql)).rows.map((r) => Object.values(r)[0] as string).sort();
/** What is left of each kind, by tag. */
const left = async () => ({
  audit: await col(`select employee_id from audit_log`),
  proof: await col(`select source_address from connect_proof_audit`),
  // Each consent's tag stands where its statement's envelope would be (nothing here opens it).
  consents: await col(`select consent_language_enc from consents`),
  employees: await col(`select employee_id from employees`),
  tombstones: (await dbQuery(app, `select count(*)::int as n from employee_tombstones`)).rows[0].n,
});
async function clear(): Promise<void> {
  for (const t of ['audit_log', 'connect_proof_audit', 'consents', 'employees', 'employee_tombstones']) await dbQuery(app, `delete from ${t}`);
}

describe('retention purge at 0 days, by its job scheduler', () => {
  let worker: Worker | undefined;
  afterAll(async () => worker?.close());

  it('removes exactly what is past, keeps what lies ahead, in force or still held', async () => {
    await employee('LIVE', null);
    await employee('REMOVED-PAST', at(`- interval '1 minute'`));
    await employee('REMOVED-AHEAD', at(`+ interval '1 hour'`));
    await employee('ERASED', null);
    expect(
      (
        await call(`${app.url}/api/webhook/v1/employee/erase/`, {
          method: 'POST',
          headers: { authorization: f.appBasic(c), 'content-type': 'application/json' },
          body: JSON.stringify({ employee_id: 'ERASED' }),
        })
      ).status,
    ).toBe(200);
    await audit('audit-old', at(`- interval '500 days'`));
    await audit('audit-recent', at(`- interval '1 second'`));
    await audit('audit-ahead', at(`+ interval '1 hour'`));
    await proofAudit('proof-old', at(`- interval '2 days'`));
    await proofAudit('proof-ahead', at(`+ interval '1 hour'`));
    await consent('k-never-held-expired', 'GONE', at(`- interval '2 days'`));
    await consent('k-never-held-revoked', 'GONE', at(`+ interval '30 days'`), at(`- interval '1 day'`));
    await consent('k-never-held-in-force', 'GONE', at(`+ interval '30 days'`));
    await consent('k-erased-expired', 'ERASED', at(`- interval '1 day'`));
    await consent('k-live-expired', 'LIVE', at(`- interval '10 days'`));
    await consent('k-removed-past-expired', 'REMOVED-PAST', at(`- interval '3 days'`));
    await consent('k-removed-ahead-expired', 'REMOVED-AHEAD', at(`- interval '3 days'`));

    worker = await startRetentionWorker(retentionWorkerDeps(app.ctx));
    const scheduler = await app.ctx.retentionQueue.queue.getJobScheduler('retention-purge');
    expect(Number(scheduler?.every)).toBe(1000);
    await waitFor(async () => (await left()).audit.length === 1, 20_000, 200);
    // One more run after the first: nothing more is due.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await left()).toStrictEqual({
      audit: ['audit-ahead'],
      proof: ['proof-ahead'],
      consents: ['k-live-expired', 'k-never-held-in-force', 'k-removed-ahead-expired'],
      employees: ['LIVE', 'REMOVED-AHEAD'],
      tombstones: 1,
    });
    const done = (await app.ctx.retentionQueue.queue.getCompleted()).map((j) => j.returnvalue as PurgeCounts);
    expect(done.length).toBeGreaterThanOrEqual(2);
    expect(done.reduce((s, r) => s + r.removedEmployees, 0)).toBe(1);
    expect(done.reduce((s, r) => s + r.consents, 0)).toBe(4);
    expect(done.reduce((s, r) => s + r.proofAuditEntries, 0)).toBe(1);
    // Housekeeping out of the way of the dashboard's other lists (docs/operations.md "The job dashboard: `/admin/queues`").
    const { syncQueue, eventsQueue, housekeepingQueue } = app.ctx;
    for (const q of [syncQueue.queue, eventsQueue.queue, housekeepingQueue.queue]) {
      expect((await q.getJobSchedulers(0, -1)).map((j) => j.key)).not.toContain('retention-purge');
      expect((await q.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'paused', 'completed', 'failed'])).map((j) => j.name)).not.toContain('purge');
    }
  });
});

describe('retention purge at 30 days: the boundary', () => {
  it('removes rows 31 days past, keeps rows 29 days past', async () => {
    await clear();
    await employee('LIVE', null);
    await employee('REMOVED-31', at(`- interval '31 days'`));
    await employee('REMOVED-29', at(`- interval '29 days'`));
    await audit('audit-31', at(`- interval '31 days'`));
    await audit('audit-29', at(`- interval '29 days'`));
    await proofAudit('proof-31', at(`- interval '31 days'`));
    await proofAudit('proof-29', at(`- interval '29 days'`));
    await consent('k-gone-31', 'GONE', at(`- interval '31 days'`));
    await consent('k-gone-29', 'GONE', at(`- interval '29 days'`));
    await consent('k-gone-revoked-31', 'GONE', at(`+ interval '1 day'`), at(`- interval '31 days'`));
    await consent('k-removed-31-expired-31', 'REMOVED-31', at(`- interval '31 days'`));
    // A batch of 2 rows a statement: the purge goes on until a batch comes back short.
    const service = createRetentionService({
      store: createRetentionStore(testPool(app)),
      auditDays: 30,
      removedDays: 30,
      eventDays: 30,
      log: app.ctx.log,
      batch: 2,
    });
    expect(await service.purge()).toStrictEqual({ auditEntries: 1, proofAuditEntries: 1, consents: 3, removedEmployees: 1, events: 0, idempotencyKeys: 0 });
    expect(await left()).toStrictEqual({
      audit: ['audit-29'],
      proof: ['proof-29'],
      consents: ['k-gone-29'],
      employees: ['LIVE', 'REMOVED-29'],
      tombstones: 0,
    });
    expect(await service.purge()).toStrictEqual({ auditEntries: 0, proofAuditEntries: 0, consents: 0, removedEmployees: 0, events: 0, idempotencyKeys: 0 });
  });
});

describe('retention purge of the event outbox', () => {
  /** An event of `type` written `age` ago with one delivery in `status` (none when null), tagged by its id. */
  async function event(tag: string, type: string, age: string, status: string | null): Promise<void> {
    await dbQuery(
      app,
      `insert into events (id, type, vendor_org_id, client_org_id, payload, created_at) values ($1, $2, $3, $4, '{}'::json, now() - $5::interval)`,
      [tag, type, v.org.id, c.org.id, age],
    );
    if (!status) return;
    const delivery = randomUUID();
    await dbQuery(app, `insert into event_deliveries (id, event_id, endpoint_id, status) values ($1, $2, $3, $4)`, [delivery, tag, endpoint, status]);
    await dbQuery(app, `insert into event_attempts (delivery_id, attempt, at, duration_ms) values ($1, 1, now(), 5)`, [delivery]);
  }
  let endpoint: string;

  it('deletes events whose deliveries ended past 30 days, and ended employee.removed at once; keeps pending and recent ones', async () => {
    endpoint = randomUUID();
    await dbQuery(app, `insert into event_endpoints (id, org_id, url, event_types, secret_enc) values ($1, $2, 'https://example.com/hook', '{}', 'x')`, [
      endpoint,
      v.org.id,
    ]);
    await event('old-delivered', 'employee.updated', '31 days', 'delivered');
    await event('old-failed', 'sync.completed', '31 days', 'failed');
    await event('old-cancelled', 'consent.revoked', '31 days', 'cancelled');
    await event('old-undelivered', 'sync.failed', '31 days', null);
    await event('old-pending', 'employee.updated', '31 days', 'pending');
    await event('recent-delivered', 'employee.updated', '29 days', 'delivered');
    await event('removed-delivered', 'employee.removed', '1 minute', 'delivered');
    await event('removed-pending', 'employee.removed', '1 minute', 'pending');
    const service = createRetentionService({
      store: createRetentionStore(testPool(app)),
      auditDays: 30,
      removedDays: 30,
      eventDays: 30,
      log: app.ctx.log,
      batch: 2,
    });
    expect((await service.purge()).events).toBe(5);
    expect(await col(`select id from events`)).toStrictEqual(['old-pending', 'recent-delivered', 'removed-pending']);
    // Their deliveries and attempts went with them.
    expect(await col(`select event_id from event_deliveries`)).toStrictEqual(['old-pending', 'recent-delivered', 'removed-pending']);
    expect((await dbQuery(app, `select count(*)::int as n from event_attempts`)).rows[0].n).toBe(3);
    expect((await service.purge()).events).toBe(0);
  });
});
