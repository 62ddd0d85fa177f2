/**
 * Migration20261123190000 (docs/at-rest.md): rows written in clear by an older hrx are
 * moved into envelopes and blind indexes, and back by `down`. Data is seeded through today's
 * services, the migration is taken down (the old layout: employees' plain `record` JSONB beside
 * `sensitive_enc`, users' `email` and `full_name`, consents' `consent_language`, all in clear),
 * a row as a still older hrx wrote it (no masked form) is added, and the migration runs again:
 * without the keys it refuses and changes nothing; with them every value is back in envelopes,
 * equal when opened, served by the API, and found by its blind index; no table row holds a value.
 */
import type { Migrator } from '@mikro-orm/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_DB_TIMEOUTS, migrate } from '../../../src/db/orm';
import { normalizeRecord, type EmployeeRecord } from '../../../src/domain/record';
import { decodeJwt } from 'jose';
import * as f from '../../support/factories';
import { dbQuery, storesOf } from '../../support/db';
import { dumpTables, findValues } from '../../support/dump';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { storedRecords, storedUsers } from '../../support/stored';

const NAME = 'Migration20261123190000';
const ADMIN = { email: 'mig.admin@mig-at-rest.example', fullname: 'Migrating Admin Person' };
const LEGACY_ID = '7d1e9c40-5b2a-4f3e-8a61-0c9d8e7f6a51';

let app: TestApp;
let v: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
let adminOrgId: number;
let adminId: string;
const people: EmployeeRecord[] = [];
let legacy: EmployeeRecord;
let statement: string;
/** What the stores held before the migration went down (opened). */
let before: { records: Awaited<ReturnType<typeof storedRecords>>; users: Awaited<ReturnType<typeof storedUsers>>; history: unknown };

const json = (path: string, body: unknown, headers: Record<string, string>) =>
  call(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const history = async (employeeId: string) =>
  (await call(`${app.url}/api/v1/employee/consent-data/?org=${c.org.uuid}&employee_id=${employeeId}`, { headers: { authorization: v.apiKey } })).body.data as {
    consent_language: string;
  }[];
const columns = async (table: string) =>
  (await dbQuery(app, `select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1`, [table])).rows
    .map((r) => r.column_name as string)
    .sort();
/** The migrator of an ORM of its own, with the keys (as `migrate()` builds it). */
async function withKeyedMigrator<T>(fn: (m: Migrator) => Promise<T>): Promise<T> {
  const own = await app.ctx.db.reopen({ poolMax: 1, timeouts: MIGRATION_DB_TIMEOUTS, migrationKeys: app.ctx.migrationKeys });
  try {
    return await fn(own.orm.getMigrator());
  } finally {
    await own.close();
  }
}
const valuesOf = (r: EmployeeRecord) => [r.name, r.email, r.dob, r.pan, r.aadhar, r.fatherName, r.currentAddress.addressLine, r.bankDetails.accountNumber];

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  v = await f.vendor(app.ctx);
  c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
  for (const [i, name] of ['Meera Migrated Iyer', 'Arjun Migrated Rao', 'Erased Migrated Person'].entries()) {
    people.push(
      normalizeRecord(
        {
          employeeId: `MIG-${i + 1}`,
          name,
          email: `mig.person.${i + 1}@acme-mig.example`,
          dob: `1990-0${i + 1}-15`,
          pan: `ABCPM${i}234Z`,
          aadhar: `49${i}1 2345 678${i}`,
          fatherName: `Father Of Mig ${i + 1}`,
          currentAddress: { addressLine: `${i + 1}0 Migration Road`, addressCity: 'Chennai' },
          bankDetails: { accountNumber: `00012345678${i}`, ifscCode: 'HDFC0001234' },
          salaryDetails: { ctc: { basic: 600000 + i } },
        },
        `0b7e0d5c-1f2a-4c3b-9d4e-5f6a7b8c9d0${i}`,
      ),
    );
  }
  await storesOf(app).employees.upsertBatch(c.org.id, null, people);
  const tok = await f.sdkToken(app.ctx, v.org, ADMIN);
  adminId = decodeJwt(tok.access_token).sub!;
  adminOrgId = (await dbQuery(app, `select id from orgs where uuid = $1`, [tok.org_id])).rows[0].id;
  statement = `I, ${people[0]!.name}, agree to share my details.`;
  const now = Date.now();
  for (const p of [people[0]!, people[2]!]) {
    const res = await json(
      '/api/v1/employee/consent-data/',
      {
        org: c.org.uuid,
        employee_id: p.employeeId,
        consent_language: statement.replace(people[0]!.name, p.name),
        consent_timestamp: new Date(now).toISOString(),
        consent_expiry: new Date(now + 86_400_000).toISOString(),
      },
      { authorization: v.apiKey },
    );
    expect(res.status).toBe(200);
  }
  // Erased: its consent keeps only the statement's keyed digest, which the migration leaves alone.
  expect((await json('/api/webhook/v1/employee/erase/', { employee_id: 'MIG-3' }, { authorization: f.appBasic(c) })).status).toBe(200);
  before = {
    records: await storedRecords(app, c.org.id),
    users: await storedUsers(app, adminOrgId),
    history: [await history('MIG-1'), await history('MIG-3')],
  };
  expect(before.records.size).toBe(2);
});
afterAll(async () => app?.stop());

describe(`${NAME} down: the layout before it, values in clear`, () => {
  it('moves every value back where it was', async () => {
    await withKeyedMigrator((m) => m.down({ migrations: [NAME] }));
    expect(await columns('employees')).toEqual(expect.arrayContaining(['record', 'sensitive_enc', 'masked_enc']));
    expect(await columns('employees')).not.toContain('record_enc');
    const row = (await dbQuery(app, `select record, sensitive_enc from employees where employee_id = 'MIG-1'`)).rows[0];
    expect(row.record.name).toBe('Meera Migrated Iyer');
    expect(row.record).not.toHaveProperty('pan');
    expect(JSON.parse(app.ctx.cipher.decrypt(row.sensitive_enc, `employee:${c.org.id}:MIG-1`)).pan).toBe('ABCPM0234Z');
    expect((await dbQuery(app, `select email, full_name from users where org_id = $1`, [adminOrgId])).rows).toStrictEqual([
      { email: ADMIN.email, full_name: ADMIN.fullname },
    ]);
    const statements = (await dbQuery(app, `select employee_id, consent_language from consents order by employee_id`)).rows;
    expect(statements[0]).toStrictEqual({ employee_id: 'MIG-1', consent_language: statement });
    expect(statements[1].consent_language).toMatch(/^erased:hmac-sha256:[0-9a-f]{64}$/);
  });

  it('a row as an older hrx wrote it (no masked form) is added in that layout', async () => {
    legacy = normalizeRecord({ employeeId: 'MIG-OLD', name: 'Legacy Clear Person', email: 'legacy.clear@acme-mig.example', pan: 'LEGPC1234Q' }, LEGACY_ID);
    const { id: _i, employeeId: _e, pan, aadhar, uan, mobileNumber, bankDetails, dependentDetails, salaryDetails, ...plain } = legacy;
    const sensitive = app.ctx.cipher.encrypt(
      JSON.stringify({ pan, aadhar, uan, mobileNumber, bankDetails, dependentDetails, salaryDetails }),
      `employee:${c.org.id}:MIG-OLD`,
    );
    await dbQuery(
      app,
      `insert into employees (id, org_id, employee_id, record, sensitive_enc, masked_enc, updated_at) values ($1, $2, 'MIG-OLD', $3, $4, null, now())`,
      [LEGACY_ID, c.org.id, JSON.stringify(plain), sensitive],
    );
    // The control: in this layout a dump shows them (identity numbers and bank were encrypted already).
    const p = people[0]!;
    const clear = [legacy.name, legacy.email, p.name, p.email, p.dob, p.fatherName, p.currentAddress.addressLine, ADMIN.email, ADMIN.fullname, statement];
    expect(findValues('table row', await dumpTables(app), clear)).toHaveLength(clear.length);
  });
});

describe(`${NAME} up`, () => {
  it('without the keys: refuses, naming no value, and changes nothing', async () => {
    await expect(app.ctx.db.orm.getMigrator().up()).rejects.toThrow(/Migration20261123190000 encrypts existing rows and needs the master key/);
    expect(await columns('employees')).toContain('record');
    expect(await columns('users')).toContain('email');
  });

  it('with them: the clear columns are gone, no table row holds a value, the tables are rewritten', async () => {
    const files = async () =>
      (
        await dbQuery(
          app,
          `select relname, pg_relation_filenode(oid::regclass)::text as file,
        (select pg_relation_filenode(reltoastrelid::regclass)::text) as toast
      from pg_class where relnamespace = current_schema()::regnamespace and relname in ('employees', 'users', 'consents') order by relname`,
        )
      ).rows;
    const old = await files();
    expect(await migrate(app.ctx.db, app.ctx.migrationKeys)).toEqual([NAME]);
    // New files (table and TOAST): the row versions that held clear values went with the old ones.
    const now = await files();
    for (const [i, t] of old.entries()) {
      expect(now[i]!.file).not.toBe(t.file);
      expect(now[i]!.toast).not.toBe(t.toast);
    }
    expect(await columns('employees')).toEqual([
      'employee_id',
      'id',
      'last_sync_run_id',
      'masked_enc',
      'org_id',
      'record_enc',
      'removed_at',
      'updated_at',
      'write_seq',
    ]);
    expect(await columns('users')).toEqual(['created_at', 'email_hash', 'id', 'org_id', 'profile_enc']);
    expect(await columns('consents')).not.toContain('consent_language');
    const values = [legacy.name, legacy.email, legacy.pan, ...people.slice(0, 2).flatMap(valuesOf), ADMIN.email, ADMIN.fullname, statement];
    expect(findValues('table row', await dumpTables(app), values)).toEqual([]);
  });

  it('opened, everything is as it was; the older row too; the API serves them', async () => {
    const records = await storedRecords(app, c.org.id);
    expect(records.get('MIG-OLD')!.record).toStrictEqual(legacy);
    records.delete('MIG-OLD');
    expect(records).toStrictEqual(before.records);
    expect(await storedUsers(app, adminOrgId)).toStrictEqual(before.users);
    expect([await history('MIG-1'), await history('MIG-3')]).toStrictEqual(before.history);
    for (const id of ['MIG-1', 'MIG-OLD']) {
      if (id === 'MIG-OLD') {
        await json(
          '/api/v1/employee/consent-data/',
          {
            org: c.org.uuid,
            employee_id: id,
            consent_language: 'I agree.',
            consent_timestamp: new Date().toISOString(),
            consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
          },
          { authorization: v.apiKey },
        );
      }
      const res = await call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
      expect(res.body.data?.name).toBe(id === 'MIG-OLD' ? legacy.name : people[0]!.name);
    }
  });

  it('the user is found by the blind index the migration wrote: same e-mail, same user', async () => {
    const again = await f.sdkToken(app.ctx, v.org, { email: ADMIN.email.toUpperCase(), fullname: 'Another Name' });
    expect(decodeJwt(again.access_token).sub).toBe(adminId);
    expect(await storedUsers(app, adminOrgId)).toStrictEqual(before.users);
    const uq = await dbQuery(app, `select conname from pg_constraint where conrelid = 'users'::regclass and contype = 'u'`);
    expect(uq.rows.map((r) => r.conname)).toEqual(['users_org_id_email_hash_key']);
  });
});
