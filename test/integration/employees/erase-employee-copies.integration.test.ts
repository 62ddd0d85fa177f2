/**
 * Every copy (docs/erasure-and-retention.md "Every copy"), over HTTP against the real app, events
 * worker and webhook receiver:
 * - An employee created through the update webhook next to another (one `employee.updated` event
 *   lists both), given consent and then revoked (`consent.revoked`), then erased. The erasure
 *   deletes the events naming only it, takes it out of the event listing both (the other stays
 *   listed), and writes its own `employee.removed`, which is delivered; the retention purge then
 *   deletes that notice (its delivery ended). A `pg_dump` of the schema afterwards holds the
 *   erased `employeeId` only in consent and audit records (the proof kept), and the tombstone only
 *   as its keyed hash: not in events, deliveries or attempts. A credential issued about it (a row
 *   written as the issuance writes it) is revoked by the erasure itself (`employee_erased`), keeps
 *   its status list place and loses the id.
 * - A consent of an erased employee that expires afterwards is not announced (`consent.expired`
 *   would name the erased id again).
 * - An employee a full sync no longer saw, purged by retention, leaves no event naming it either.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tombstoneHash, tombstoneKeys } from '../../../src/crypto/tombstone';
import { deriveKey } from '../../../src/infra';
import { createRetentionService } from '../../../src/retention/service';
import { createRetentionStore } from '../../../src/retention/store';
import * as f from '../../support/factories';
import { dbQuery, testPool } from '../../support/db';
import { call, DATABASE_URL, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';

const ERASED = 'ERASE-ME-4Q';
const KEPT = 'KEEP-ME-4Q';
const PURGED = 'PURGE-ME-4Q';

let app: TestApp;
let rx: Receiver;
let v: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;

const post = (path: string, body: unknown, authorization: string) =>
  call(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });
const update = (body: unknown) => post('/api/webhook/v1/employee/update/', body, f.appBasic(c));
/** The outbox's events naming `employeeId` anywhere in their payload: type and the employees listed. */
const eventsNaming = async (employeeId: string) =>
  (
    await dbQuery(app, `select type, payload::text as body from events where position($1 in payload::text) > 0 order by created_at, id`, [
      JSON.stringify(employeeId),
    ])
  ).rows as { type: string; body: string }[];
const purge = () =>
  createRetentionService({ store: createRetentionStore(testPool(app)), auditDays: 400, removedDays: 30, eventDays: 30, log: app.ctx.log }).purge();

/** A plain-SQL dump of the test's schema, as an operator's backup holds it. */
async function pgDump(): Promise<string> {
  const { stdout } = await promisify(execFile)('pg_dump', ['--dbname', DATABASE_URL, '--schema', app.config.HRX_DB_SCHEMA, '--no-owner'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}
/** The tables of a pg_dump whose data (`COPY ... FROM stdin` blocks) holds `text`, sorted. */
function tablesHolding(dump: string, text: string): string[] {
  const out = new Set<string>();
  let table: string | null = null;
  for (const line of dump.split('\n')) {
    const copy = /^COPY [^.]+\.(\S+) \(/.exec(line);
    if (copy) table = copy[1]!.replace(/"/g, '');
    else if (line === '\\.') table = null;
    else if (table && line.includes(text)) out.add(table);
  }
  return [...out].sort();
}

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200' } });
  await app.startEventsWorker();
  rx = await startReceiver();
  v = await f.vendor(app.ctx);
  c = await f.client(app.ctx);
  await app.ctx.services.endpoints.add({
    orgUuid: v.org.uuid,
    url: rx.url('/v'),
    events: ['employee.updated', 'employee.removed', 'consent.revoked', 'consent.expired'],
  });
  await f.connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
}, 60_000);

afterAll(async () => {
  await rx?.close();
  await app?.stop();
});

describe('every copy: erasure, delivery and the retention purge leave the id only in consent and audit records', () => {
  it('before: the outbox names the employee (so the checks after can fail)', async () => {
    expect(
      (
        await update([
          { employeeId: ERASED, name: 'Ira Erased' },
          { employeeId: KEPT, name: 'Kabir Kept' },
        ])
      ).status,
    ).toBe(200);
    const now = Date.now();
    const consent = {
      org: c.org.uuid,
      employee_id: ERASED,
      consent_language: 'I agree that my employer shares my details.',
      consent_timestamp: new Date(now).toISOString(),
      consent_expiry: new Date(now + 86_400_000).toISOString(),
    };
    expect((await post('/api/v1/employee/consent-data/', consent, v.apiKey)).status).toBe(200);
    expect((await post('/api/v1/employee/consent-data/revoke/', { org: c.org.uuid, employee_id: ERASED }, v.apiKey)).status).toBe(200);
    await rx.waitForCount('/v', 1, 'consent.revoked');
    await rx.waitForCount('/v', 1, 'employee.updated');
    expect((await eventsNaming(ERASED)).map((e) => e.type)).toStrictEqual(['employee.updated', 'consent.revoked']);
    // A live credential about the employee, as the issuance records it (docs/credentials.md "What hrx keeps").
    await dbQuery(
      app,
      `insert into credentials (id, vendor_org_id, client_org_id, employee_id, connection_id, vendor_kid, consent_required,
                                status_list, status_idx, issued_at, expires_at, checked_at)
       select gen_random_uuid(), k.vendor_org_id, k.client_org_id, $2, k.id, 'kid-4q', true, 0, 4242, now(), now() + interval '30 days', now()
         from connections k where k.vendor_org_id = $1`,
      [v.org.id, ERASED],
    );
    expect(tablesHolding(await pgDump(), ERASED)).toStrictEqual(['audit_log', 'consents', 'credentials', 'employees', 'events']);
  });

  it('the erasure deletes or scrubs the earlier events; its own employee.removed is delivered', async () => {
    expect((await post('/api/webhook/v1/employee/erase/', { employee_id: ERASED }, f.appBasic(c))).status).toBe(200);
    // The credential: revoked in the erasure's transaction (no sweep ran), its place kept, the id gone.
    expect((await dbQuery(app, `select employee_id, status_idx, revoked_reason, revoked_at is not null as revoked from credentials`)).rows).toStrictEqual([
      { employee_id: '', status_idx: 4242, revoked_reason: 'employee_erased', revoked: true },
    ]);
    // Only the erasure's notice names it now; the event that listed both still lists the other.
    expect((await eventsNaming(ERASED)).map((e) => e.type)).toStrictEqual(['employee.removed']);
    const listing = (await eventsNaming(KEPT)).map((e) => JSON.parse(e.body) as { type: string; data: { employees: { employee_id: string }[] } });
    expect(listing.map((e) => [e.type, e.data.employees.map((x) => x.employee_id)])).toStrictEqual([['employee.updated', [KEPT]]]);
    const [removed] = await rx.waitForCount('/v', 1, 'employee.removed');
    expect(JSON.parse(removed!.body).data.employees.map((x: { employee_id: string }) => x.employee_id)).toStrictEqual([ERASED]);
    await waitFor(
      async () =>
        (
          await dbQuery(
            app,
            `select count(*)::int as n from event_deliveries d join events e on e.id = d.event_id where e.type = 'employee.removed' and d.status = 'delivered'`,
          )
        ).rows[0].n === 1,
    );
  });

  it('after the retention purge, a pg_dump holds the id only in consent and audit records, the tombstone as its keyed hash', async () => {
    const counts = await purge();
    expect(counts.events).toBe(1);
    const dump = await pgDump();
    expect(tablesHolding(dump, ERASED)).toStrictEqual(['audit_log', 'consents']);
    const key = tombstoneKeys([deriveKey(Buffer.from(app.env.HRX_MASTER_KEY!, 'base64'), 'employee-tombstone')])[0]!;
    expect(tablesHolding(dump, tombstoneHash(key, c.org.id, ERASED))).toStrictEqual(['employee_tombstones']);
    // What the purge keeps: the recent, delivered event about the other employee.
    expect((await eventsNaming(KEPT)).map((e) => e.type)).toStrictEqual(['employee.updated']);
  });
});

describe('every copy: a consent of an erased employee that expires later', () => {
  it('is not announced: consent.expired would write the erased id to the outbox again', async () => {
    const LATER = 'EXPIRES-LATER-4Q';
    expect((await update({ employeeId: LATER, name: 'Lata Later' })).status).toBe(200);
    const now = Date.now();
    const consent = {
      org: c.org.uuid,
      employee_id: LATER,
      consent_language: 'I agree.',
      consent_timestamp: new Date(now).toISOString(),
      consent_expiry: new Date(now + 1000).toISOString(),
    };
    expect((await post('/api/v1/employee/consent-data/', consent, v.apiKey)).status).toBe(200);
    // A consent of an employee still held, expiring alongside: announced (so the check can fail).
    expect((await post('/api/v1/employee/consent-data/', { ...consent, employee_id: KEPT }, v.apiKey)).status).toBe(200);
    expect((await post('/api/webhook/v1/employee/erase/', { employee_id: LATER }, f.appBasic(c))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1200));
    await app.ctx.services.events.scanExpiredConsents();
    expect((await eventsNaming(KEPT)).map((e) => e.type)).toContain('consent.expired');
    expect((await eventsNaming(LATER)).map((e) => e.type)).toStrictEqual(['employee.removed']);
  });
});

describe('every copy: retention of an employee a full sync no longer saw', () => {
  it('purges the row and every event naming it', async () => {
    expect((await update({ employeeId: PURGED, name: 'Pari Purged' })).status).toBe(200);
    await rx.waitForCount('/v', 2, 'employee.updated');
    expect((await eventsNaming(PURGED)).map((e) => e.type)).toStrictEqual(['employee.updated']);
    await dbQuery(app, `update employees set removed_at = now() - interval '31 days' where org_id = $1 and employee_id = $2`, [c.org.id, PURGED]);
    expect((await purge()).removedEmployees).toBe(1);
    expect(await eventsNaming(PURGED)).toStrictEqual([]);
    expect(tablesHolding(await pgDump(), PURGED)).toStrictEqual(['audit_log']);
  });
});
