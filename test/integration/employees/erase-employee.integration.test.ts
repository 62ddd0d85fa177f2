/**
 * The erasure webhook `POST /api/webhook/v1/employee/erase/` (docs/erasure-and-retention.md "Erasing an employee") end to end: an
 * employee synced from the reference HRMS simulator, read by a vendor under consent, updated
 * through the webhook, then erased. Afterwards none of its values (name, e-mails, PAN, Aadhaar,
 * UAN, mobile, bank account, father's name, addresses, dependants; the one the webhook posted)
 * is in any table of the schema, any Redis key of the app, any log line, or any employee row
 * decrypted; both vendors connected to the employer got `employee.removed` (reason `erased`:
 * one outbox event each, one delivery each); consent and audit records are kept without values
 * (the consent statement, which named the employee, as its keyed digest); a sync from the
 * simulator, which still lists the employee, does not bring it back, nor does a live read reach
 * it; the employer posting it again through the update webhook does. Refusals: another
 * employer's app credentials get the answer an unknown employee gets, vendors and strangers a
 * 401, bad bodies a 400. The race with a running sync: employee-erase-race.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementDigest, tombstoneHash, tombstoneKeys } from '../../../src/crypto/tombstone';
import { deriveKey } from '../../../src/infra';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { decryptedEmployees, dumpRedis, dumpTables, findValues } from '../../support/dump';
import { expectError, invalid, plain, UUID_V4, withoutRequestId } from '../../support/expect-error';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';

const simCreds = { clientId: 'erase-client', clientSecret: 'erase-hrms-secret-Wq7' };
const POSTED_EMAIL = 'tara.erase.target.q7@example.in';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let rx: Receiver;
let v: Awaited<ReturnType<typeof f.vendor>>;
let live: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
let other: Awaited<ReturnType<typeof f.client>>;
let secret: string;
const lines: string[] = [];
/** The employee erased, its store id before erasure, and every value of it the test looks for. */
let target: { employeeId: string; id: string; statement: string };
const seeded: string[] = [];

const json = (path: string, body: unknown, headers: Record<string, string>) =>
  call(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const erase = (body: unknown, who: { org: { appKey: string }; appSecret: string } = c) =>
  json('/api/webhook/v1/employee/erase/', body, { authorization: f.appBasic(who) });
const read = (id: string, vendor = v, extra = '') =>
  call(`${app.url}/api/employee_details/${encodeURIComponent(id)}?org=${c.org.uuid}&vendor_org=${vendor.org.uuid}${extra}`, {
    headers: { username: vendor.apiKey },
  });
const sync = () => app.ctx.services.sync.run(c.org.id, 'test', `erase-${randomUUID()}`);
const tombstoneKey = () => tombstoneKeys([deriveKey(Buffer.from(app.env.HRX_MASTER_KEY!, 'base64'), 'employee-tombstone')])[0]!;

/** Where a seeded value still is: tables, Redis keys, log lines, decrypted employee rows, event bodies. */
async function leaks(): Promise<string[]> {
  const decrypted = (await decryptedEmployees(app)).map((e) => e.json);
  return [
    ...findValues('table row', await dumpTables(app), seeded),
    ...findValues('redis key', await dumpRedis(app), seeded),
    ...findValues('log line', lines, seeded),
    ...findValues('decrypted employee', decrypted, seeded),
    ...findValues(
      'event body',
      rx.received.map((r) => r.body),
      seeded,
    ),
  ];
}

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await startTestApp({
    worker: false,
    logStream: sink,
    env: { LOG_LEVEL: 'debug', HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_SYNC_BATCH_SIZE: '10' },
  });
  await app.startEventsWorker();
  rx = await startReceiver();
  sim = await startSim({ employees: 25, seed: 'erase', ...simCreds });
  v = await f.vendor(app.ctx);
  live = await f.vendor(app.ctx);
  c = await f.client(app.ctx);
  other = await f.client(app.ctx);
  secret = (await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/v'), events: ['employee.removed', 'employee.updated'] })).secret;
  // Both vendors listen for removals, so the erasure must tell each of them (not just the first).
  await app.ctx.services.endpoints.add({ orgUuid: live.org.uuid, url: rx.url('/live'), events: ['employee.removed'] });
  await f.connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
  // A vendor without consent requirement and with live reads: the tombstone must stop those too.
  await f.connection(app.ctx, live.org.uuid, c.org.uuid, { consentRequired: false, liveSource: true });
  expect((await json('/api/webhook/v1/setup-config/', f.setupBody(c, sim, simCreds), {})).status).toBe(200);
  expect(await sync()).toMatchObject({ status: 'succeeded', employees: 25 });
  await f.employees(app.ctx, other.org.id, [{ employeeId: 'OTHER-1', name: 'Someone Else Entirely' }]);

  // The target: an employee whose identifying values no other employee's record holds (not a
  // manager of anyone, no shared address), so every hit after erasure is a leak.
  const all = await decryptedEmployees(app);
  const mine = all.filter((e) => e.orgId === c.org.id);
  const valuesOf = (r: Record<string, any>): string[] => [
    r.name,
    r.email,
    r.personalEmail,
    r.uan,
    r.fatherName,
    r.dob,
    r.currentAddress.addressLine,
    r.permanentAddress.addressLine,
    ...r.dependentDetails.flatMap((d: Record<string, string>) => [d.name, d.mobileNumber, d.email]),
  ];
  const stored = await dbQuery(app, `select employee_id, id from employees where org_id = $1`, [c.org.id]);
  for (const e of [...mine].reverse()) {
    const others = all.filter((o) => o !== e).map((o) => o.json);
    const full = e.record as Record<string, any>;
    const core = [full.name, full.email, full.pan, full.aadhar, full.mobileNumber, full.bankDetails.accountNumber];
    const unique = (x: unknown): x is string => typeof x === 'string' && x.length >= 5 && x !== 'NOT AVAILABLE' && !others.some((o) => o.includes(x));
    if (!core.every(unique)) continue;
    seeded.push(...core, ...valuesOf(full).filter(unique), POSTED_EMAIL);
    const id = stored.rows.find((r) => r.employee_id === e.employeeId)!.id as string;
    target = { employeeId: e.employeeId, id, statement: `I, ${full.name as string}, agree that my employer shares my details with the lender.` };
    break;
  }
  expect(target).toBeDefined();
  expect(mine.length).toBe(25);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await rx?.close();
  await app?.stop();
});

describe('erase webhook: refusals', () => {
  it("another employer cannot erase this employer's employee: the answer of an unknown employee, and nothing happens", async () => {
    const theirs = await erase({ employee_id: target.employeeId }, other);
    expectError(theirs, 404, plain('Employee not found'));
    const unknown = await erase({ employee_id: 'NO-SUCH-EMPLOYEE' }, other);
    expect({ status: unknown.status, body: withoutRequestId(unknown.body) }).toStrictEqual({ status: theirs.status, body: withoutRequestId(theirs.body) });
    // And the employer cannot reach the other's employee either.
    expectError(await erase({ employee_id: 'OTHER-1' }), 404, plain('Employee not found'));
    expect((await dbQuery(app, `select count(*)::int as n from employees where employee_id in ($1, 'OTHER-1')`, [target.employeeId])).rows[0].n).toBe(2);
    expect((await read(target.employeeId, live)).status).toBe(200);
    expect((await dbQuery(app, `select count(*)::int as n from employee_tombstones`)).rows[0].n).toBe(0);
  });

  it('refuses vendors, missing and wrong credentials (401) and bad bodies (400)', async () => {
    const res = (headers: Record<string, string>, body: unknown = { employee_id: target.employeeId }) => json('/api/webhook/v1/employee/erase/', body, headers);
    expectError(await res({}), 401, plain('Authentication credentials were not provided.'));
    expectError(await res({ authorization: v.apiKey }), 401, plain('Invalid token.'));
    // A vendor org's own app credentials: not an employer.
    expectError(await res({ authorization: f.appBasic(v) }), 401, plain('Invalid token.'));
    expectError(await res({ authorization: f.appBasic({ org: c.org, appSecret: `${c.appSecret}x` }) }), 401, plain('Invalid token.'));
    expect((await res({ authorization: f.appBasic(c) }, {})).body.data.errors[0].field).toBe('employee_id');
    expectError(await res({ authorization: f.appBasic(c) }, { employee_id: target.employeeId, name: 'x' }), 400, invalid('name', 'unknown field'));
    expect((await res({ authorization: f.appBasic(c) }, { employee_id: '..' })).status).toBe(400);
    expect((await read(target.employeeId, live)).status).toBe(200);
  });
});

describe('erase webhook: erasure', () => {
  let erasedAt: string;

  it('before: the values are held (so the checks below can fail), never logged', async () => {
    const now = Date.now();
    const consent = await json(
      '/api/v1/employee/consent-data/',
      {
        org: c.org.uuid,
        employee_id: target.employeeId,
        consent_language: target.statement,
        consent_timestamp: new Date(now).toISOString(),
        consent_expiry: new Date(now + 86_400_000).toISOString(),
      },
      { authorization: v.apiKey },
    );
    expect(consent.status).toBe(200);
    expect((await read(target.employeeId)).status).toBe(200);
    const upd = await json(
      '/api/webhook/v1/employee/update/',
      { employeeId: target.employeeId, managerEmail5: POSTED_EMAIL },
      { authorization: f.appBasic(c) },
    );
    expect(upd.body.data.updated_fields).toEqual(['managerEmail5']);
    await rx.waitForCount('/v', 1, 'employee.updated');
    expect(seeded.length).toBeGreaterThanOrEqual(10);
    const held = [...(await dumpTables(app)), ...(await decryptedEmployees(app)).map((e) => e.json)];
    expect(findValues('held', held, seeded)).toHaveLength(seeded.length);
    expect(findValues('log line', lines, seeded)).toEqual([]);
  });

  it('answers {employee_id, erased_at} and tells both vendors employee.removed (reason erased), ids only', async () => {
    const before = Date.now();
    const res = await erase({ employee_id: ` ${target.employeeId} ` });
    expect(res.headers.get('x-request-id')).toMatch(UUID_V4);
    expect(res.status).toBe(200);
    erasedAt = res.body.data?.erased_at as string;
    expect(res.body).toStrictEqual({
      requestId: res.headers.get('x-request-id'),
      message: 'success',
      data: { employee_id: target.employeeId, erased_at: erasedAt },
    });
    expect(new Date(erasedAt).toISOString()).toBe(erasedAt);
    expect(Math.abs(new Date(erasedAt).getTime() - before)).toBeLessThan(5000);
    const [removed] = await rx.waitForCount('/v', 1, 'employee.removed');
    expect(removed!.json).toStrictEqual({
      type: 'employee.removed',
      timestamp: erasedAt,
      data: { client_org_id: c.org.uuid, sync_run_id: null, reason: 'erased', employees: [{ id: target.id, employee_id: target.employeeId }] },
    });
    expect(verifySignature(secret, removed!)).toBe(true);
    // Every vendor connected to the employer, not only the first: the outbox holds one
    // employee.removed per vendor for this employee, and each receiver gets it.
    const outbox = await dbQuery(
      app,
      `select vendor_org_id from events
        where type = 'employee.removed' and client_org_id = $1
          and payload::jsonb -> 'data' -> 'employees' @> $2::jsonb
        order by vendor_org_id`,
      [c.org.id, JSON.stringify([{ id: target.id, employee_id: target.employeeId }])],
    );
    expect(outbox.rows.map((r) => r.vendor_org_id as number)).toStrictEqual([v.org.id, live.org.id].sort((a, b) => a - b));
    const [toLive] = await rx.waitForCount('/live', 1, 'employee.removed');
    expect(toLive!.json.data).toStrictEqual(removed!.json.data);
  });

  it('afterwards no table, Redis key, log line or decrypted row holds any of its values', async () => {
    expect(await leaks()).toEqual([]);
    expect((await dbQuery(app, `select count(*)::int as n from employees where org_id = $1`, [c.org.id])).rows[0].n).toBe(24);
    expect(lines.some((l) => l.includes('"msg":"sync succeeded"'))).toBe(true);
  });

  it('keeps the proof without values: consent (statement as its keyed digest), audit entries, a tombstone of a keyed hash', async () => {
    const consents = await dbQuery(app, `select vendor_org_id, consent_language_enc, revoked_at from consents where client_org_id = $1 and employee_id = $2`, [
      c.org.id,
      target.employeeId,
    ]);
    expect(consents.rows).toStrictEqual([
      { vendor_org_id: v.org.id, consent_language_enc: statementDigest(tombstoneKey(), target.statement), revoked_at: null },
    ]);
    expect(consents.rows[0].consent_language_enc).toMatch(/^erased:hmac-sha256:[0-9a-f]{64}$/);
    const audit = await dbQuery(app, `select action, actor_org_id, data_points from audit_log where employee_id = $1 order by id`, [target.employeeId]);
    // The reads (the refusals' checks, the consent's answer, the vendor's read), the update, the erasure.
    expect(audit.rows.map((r) => r.action)).toEqual(['employee.read', 'employee.read', 'employee.read', 'employee.read', 'employee.update', 'employee.erase']);
    expect(audit.rows.at(-1)).toStrictEqual({ action: 'employee.erase', actor_org_id: c.org.id, data_points: [] });
    const tomb = await dbQuery(app, `select t::text as row, org_id, id_hash, erased_at from employee_tombstones t`);
    expect(tomb.rows.map((r) => ({ org: r.org_id, hash: r.id_hash, at: (r.erased_at as Date).toISOString() }))).toStrictEqual([
      { org: c.org.id, hash: tombstoneHash(tombstoneKey(), c.org.id, target.employeeId), at: erasedAt },
    ]);
    expect(tomb.rows[0].row).not.toContain(target.employeeId);
  });

  it('a read, stored or live, finds nothing; erasing again answers the same and tells nobody twice', async () => {
    expectError(await read(target.employeeId), 404, plain('Employee not found'));
    expectError(await read(target.id), 404, plain('Employee not found'));
    expectError(await read(target.employeeId, live, '&source=hrms'), 404, plain('Employee not found'));
    // The same live read of another employee the simulator serves goes through.
    const someoneElse = (await dbQuery(app, `select employee_id from employees where org_id = $1 limit 1`, [c.org.id])).rows[0].employee_id as string;
    expect((await read(someoneElse, live, '&source=hrms')).status).toBe(200);
    const again = await erase({ employee_id: target.employeeId });
    expect(again.status).toBe(200);
    expect(again.body.data).toStrictEqual({ employee_id: target.employeeId, erased_at: erasedAt });
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.at('/v').filter((r) => r.json.type === 'employee.removed')).toHaveLength(1);
    expect(rx.at('/live').filter((r) => r.json.type === 'employee.removed')).toHaveLength(1);
  });
});

describe('erase webhook: later syncs and the employer posting it again', () => {
  it('a sync from the HRMS, which still lists the employee, does not bring it back', async () => {
    const listed = await call(`${sim.url}/api/v1/employees/${target.employeeId}`, { headers: { 'x-api-key': simCreds.clientSecret } });
    expect(listed.status).toBe(200);
    expect(await sync()).toMatchObject({ status: 'succeeded', employees: 24, removed: 0 });
    expect(
      (await dbQuery(app, `select count(*)::int as n from employees where org_id = $1 and employee_id = $2`, [c.org.id, target.employeeId])).rows[0].n,
    ).toBe(0);
    expect(await leaks()).toEqual([]);
    expectError(await read(target.employeeId, live), 404, plain('Employee not found'));
  });

  it('the update webhook posting it again brings it back (new id), and syncs carry it again', async () => {
    const res = await json('/api/webhook/v1/employee/update/', { employeeId: target.employeeId, designation: 'Returned' }, { authorization: f.appBasic(c) });
    expect(res.status).toBe(200);
    expect(res.body.data.id).not.toBe(target.id);
    expect((await dbQuery(app, `select count(*)::int as n from employee_tombstones`)).rows[0].n).toBe(0);
    expect((await read(target.employeeId, live)).body.data.designation).toBe('Returned');
    expect(await sync()).toMatchObject({ status: 'succeeded', employees: 25, removed: 0 });
    const back = await read(target.employeeId, live);
    expect(back.status).toBe(200);
    // The HRMS's values again (the sync's page was asked for after the webhook wrote).
    expect(back.body.data.name).toBe(seeded[0]);
    expect(back.body.data.id).toBe(res.body.data.id);
    await waitFor(() =>
      rx
        .at('/v')
        .some(
          (r) =>
            r.json.type === 'employee.updated' &&
            r.json.data.employees[0].employee_id === target.employeeId &&
            r.json.data.employees[0].id === res.body.data.id,
        ),
    );
  });
});
