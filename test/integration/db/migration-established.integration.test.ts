/**
 * Migration20261127030000 (docs/connect.md "Who may approve"; docs/erasure-and-retention.md
 * "Every copy"): `orgs.established_at` is backfilled for orgs established before it existed (an
 * HRMS configuration, or any employee row, removed or not) and left null for the others; the
 * outbox's indexes are created; `down` drops both. Real PostgreSQL, the real migrator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/orm';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

const INDEXES = ['events_client_org_idx', 'events_created_idx', 'events_removed_idx'];

describe('Migration20261127030000', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  const indexes = async () =>
    (
      await dbQuery(app, `select indexname from pg_indexes where schemaname = current_schema() and indexname = any($1::text[]) order by indexname`, [INDEXES])
    ).rows.map((r) => r.indexname);
  const established = async (orgIds: number[]) =>
    (
      await dbQuery(app, `select established_at is not null as e from orgs where id = any($1::int[]) order by array_position($1::int[], id)`, [orgIds])
    ).rows.map((r) => r.e);

  it('backfills established_at from configurations and employee rows, and only those; down drops it', async () => {
    const configured = await f.client(app.ctx);
    const withEmployees = await f.client(app.ctx);
    const withRemoved = await f.client(app.ctx);
    const fresh = await f.client(app.ctx);
    const vendor = await f.vendor(app.ctx);
    const ids = [configured.org.id, withEmployees.org.id, withRemoved.org.id, fresh.org.id, vendor.org.id];
    await f.hrmsAt(app.ctx, configured.org.id, { url: 'https://hrms.example.com' }, { clientId: 'c', clientSecret: 's' });
    await f.employees(app.ctx, withEmployees.org.id, [{ employeeId: 'A1' }]);
    await f.employees(app.ctx, withRemoved.org.id, [{ employeeId: 'R1' }]);
    await f.removeAllEmployees(app.ctx, withRemoved.org.id);
    expect(await indexes()).toEqual(INDEXES);

    // Only this migration goes down (whatever others came after it), then up again.
    await app.ctx.db.orm.getMigrator().down({ migrations: ['Migration20261127030000'] });
    expect(
      (
        await dbQuery(
          app,
          `select count(*)::int as n from information_schema.columns where table_schema = current_schema() and table_name = 'orgs' and column_name = 'established_at'`,
        )
      ).rows[0].n,
    ).toBe(0);
    expect(await indexes()).toEqual([]);

    expect(await migrate(app.ctx.db, app.ctx.migrationKeys)).toContain('Migration20261127030000');
    expect(await established(ids)).toEqual([true, true, true, false, false]);
    expect(await indexes()).toEqual(INDEXES);
  });
});
