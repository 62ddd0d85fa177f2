/**
 * Nothing in clear at rest (docs/at-rest.md). An employer's employees
 * are synced from the reference HRMS simulator; its HR admin asks for an SDK token (name and
 * e-mail) and opens the Connect session; a vendor records a consent whose statement names an
 * employee, reads (audit), and hears `employee.updated` after the employer posts new values
 * (events outbox, deliveries, attempts; BullMQ jobs in Redis). Then every row of every table of
 * the schema (`select t::text`), a `pg_dump` of the schema and every Redis key of the app are
 * searched for every seeded value: the employees' names, e-mails, dates of birth, identity
 * numbers, mobile numbers, bank accounts, fathers' names, addresses, managers, dependants; the
 * HR admin's name and e-mail; the consent statement; what the webhook posted. None may be there;
 * ids and timestamps are (the search finds the employee ids, so it would find a value).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_AVAILABLE } from '../../../src/domain/record';
import * as f from '../../support/factories';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { decryptedEmployees, dumpRedis, dumpTables, findValues } from '../../support/dump';
import { call, DATABASE_URL, startSim, startTestApp, type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';
import { storedUsers } from '../../support/stored';

const simCreds = { clientId: 'at-rest-client', clientSecret: 'at-rest-hrms-secret-R4' };
const ADMIN = { email: 'kavya.hr-admin.r4@at-rest-employer.example', fullname: 'Kavya Ramanathan-Iyer' };
const POSTED = { personalEmail: 'posted.personal.r4@example.in', addressLine: '14 Posted Lane, Indiranagar' };

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let rx: Receiver;
let v: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
/** The values searched for; `ids`: the employees' ids, which are kept in clear (the control). */
const seeded: string[] = [];
let ids: string[] = [];

const json = (path: string, body: unknown, headers: Record<string, string>) =>
  call(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Every text leaf of `x` (a record), but ids, empty values and texts too short to name anyone. */
function texts(x: unknown, out: string[] = []): string[] {
  if (typeof x === 'string') {
    // 8 characters and more: a shorter run (a city, a gender) could turn up by chance inside a
    // base64 envelope or key; a value of 8 does so about once in 10^14 characters.
    if (x.length >= 8 && x !== NOT_AVAILABLE) out.push(x);
  } else if (Array.isArray(x)) {
    for (const v of x) texts(v, out);
  } else if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) if (k !== 'id' && k !== 'employeeId') texts(v, out);
  }
  return out;
}

/** A plain-SQL dump of the test's schema (schema and data), as an operator's backup would hold it. */
async function pgDump(): Promise<string> {
  const { stdout } = await promisify(execFile)('pg_dump', ['--dbname', DATABASE_URL, '--schema', app.config.HRX_DB_SCHEMA, '--no-owner'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200' } });
  await app.startEventsWorker();
  rx = await startReceiver();
  sim = await startSim({ employees: 25, seed: 'at-rest', ...simCreds });
  v = await f.vendor(app.ctx);
  c = await f.client(app.ctx, undefined, 'at-rest-employer.example');
  await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/v') });
  await f.connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
  expect((await json('/api/webhook/v1/setup-config/', f.setupBody(c, sim, simCreds), {})).status).toBe(200);
  expect(await app.ctx.services.sync.run(c.org.id, 'test', `at-rest-${randomUUID()}`)).toMatchObject({ status: 'succeeded', employees: 25 });

  // The employer's HR admin, named by an SDK token request (an address on the org's own domain:
  // the org is found by it), opens the Connect session.
  const token = await json('/api/sdk/token/', { email: ADMIN.email, org_name: c.org.orgName, fullname: ADMIN.fullname }, { authorization: v.apiKey });
  expect(token.body.data?.org_id).toBe(c.org.uuid);
  const session = await openSession(app.url, token.body.data.access_token as string);
  expect((await connectCall(app.url, session, '')).body.data.user).toStrictEqual({ email: ADMIN.email, fullname: ADMIN.fullname });

  const employees = await decryptedEmployees(app);
  expect(employees).toHaveLength(25);
  ids = employees.map((e) => e.employeeId);
  const target = employees[0]!.record;
  const statement = `I, ${target.name}, born ${target.dob}, agree that ${target.email} details go to the lender.`;
  const now = Date.now();
  const consent = await json(
    '/api/v1/employee/consent-data/',
    {
      org: c.org.uuid,
      employee_id: target.employeeId,
      consent_language: statement,
      consent_timestamp: new Date(now).toISOString(),
      consent_expiry: new Date(now + 86_400_000).toISOString(),
    },
    { authorization: v.apiKey },
  );
  expect(consent.status).toBe(200);
  const read = await call(`${app.url}/api/employee_details/${target.employeeId}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
    headers: { username: v.apiKey },
  });
  expect(read.body.data?.name).toBe(target.name);
  const upd = await json(
    '/api/webhook/v1/employee/update/',
    {
      employeeId: target.employeeId,
      personalEmail: POSTED.personalEmail,
      currentAddress: { addressLine: POSTED.addressLine },
    },
    { authorization: f.appBasic(c) },
  );
  expect(upd.status).toBe(200);
  await rx.waitForCount('/v', 1, 'employee.updated');

  seeded.push(...new Set([...employees.flatMap((e) => texts(e.record)), ADMIN.email, ADMIN.fullname, statement, POSTED.personalEmail, POSTED.addressLine]));
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await rx?.close();
  await app?.stop();
});

describe('at rest: a dump of the database and of Redis', () => {
  it('the values searched for are real: the app holds each of them (decrypted) and serves them', async () => {
    expect(seeded.length).toBeGreaterThan(25 * 10);
    const decrypted = [...(await decryptedEmployees(app)).map((e) => e.json), JSON.stringify(await storedUsers(app, c.org.id))];
    const history = await call(`${app.url}/api/v1/employee/consent-data/?org=${c.org.uuid}&employee_id=${ids[0]}`, { headers: { authorization: v.apiKey } });
    decrypted.push(JSON.stringify(history.body.data));
    // Every value but the superseded ones the webhook replaced is held somewhere once opened.
    const held = findValues('held', decrypted, seeded);
    expect(held.length).toBeGreaterThanOrEqual(seeded.length - 2);
  });

  it('no table row holds a seeded value; every employee id is there (the search would find one)', async () => {
    const rows = await dumpTables(app);
    expect(findValues('table row', rows, ids)).toHaveLength(ids.length);
    expect(findValues('table row', rows, seeded)).toEqual([]);
  });

  it('neither does a pg_dump of the schema', async () => {
    const dump = await pgDump();
    expect(dump).toContain('COPY');
    expect(findValues('pg_dump', [dump], ids)).toHaveLength(ids.length);
    expect(findValues('pg_dump', [dump], seeded)).toEqual([]);
  });

  it('no Redis key holds a seeded value (queued and finished jobs, locks, counters)', async () => {
    const keys = await dumpRedis(app);
    expect(keys.length).toBeGreaterThan(0);
    expect(findValues('redis key', keys, seeded)).toEqual([]);
  });

  it('the stored forms are envelopes of the current key: employees, users, consents', async () => {
    const kid = app.ctx.cipher.currentKid;
    const envelope = new RegExp(`^v1\\.${kid}\\.[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]+$`);
    const { rows } = await dbQuery(
      app,
      `select
      (select array_agg(record_enc) || array_agg(masked_enc) from employees) as employees,
      (select array_agg(profile_enc) from users) as users, (select array_agg(consent_language_enc) from consents) as consents,
      (select array_agg(email_hash) from users) as hashes`,
    );
    const r = rows[0];
    for (const e of [...r.employees, ...r.users, ...r.consents]) expect(e).toMatch(envelope);
    expect(r.employees).toHaveLength(50);
    expect(r.hashes).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
  });
});
