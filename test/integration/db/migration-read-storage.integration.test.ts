/**
 * Migration20261124110000 (the read path's storage): `masked_enc`, the envelope every plain
 * vendor read fetches, stays in the employee's row (storage `main`) instead of the TOAST table;
 * `record_enc` goes out of line (`external`); the unused `audit_log_actor_idx`, paid on every
 * read's audit insert, is gone. Also its `down`. Real PostgreSQL, the real migrator.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/orm';
import { client, employees } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

describe('Migration20261124110000', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  const storage = async () =>
    Object.fromEntries(
      (
        await dbQuery(
          app,
          `select attname, attstorage from pg_attribute
            where attrelid = 'employees'::regclass and attname in ('masked_enc', 'record_enc')`,
        )
      ).rows.map((r) => [r.attname, r.attstorage]),
    );
  const actorIndex = async () =>
    (await dbQuery(app, `select count(*)::int as n from pg_indexes where schemaname = current_schema() and indexname = 'audit_log_actor_idx'`)).rows[0]
      .n as number;
  /** How many values the employees' TOAST table holds (one per value stored out of line). */
  const outOfLine = async () => {
    const toast = (await dbQuery(app, `select reltoastrelid::regclass::text as t from pg_class where oid = 'employees'::regclass`)).rows[0].t as string;
    return (await dbQuery(app, `select count(distinct chunk_id)::int as n from ${toast}`)).rows[0].n as number;
  };

  it('keeps masked_enc in the row and record_enc out of line, for rows stored before it too', async () => {
    expect(await storage()).toEqual({ masked_enc: 'm', record_enc: 'e' });
    expect(await actorIndex()).toBe(0);
    const c = await client(app.ctx);
    // Records of some 2 kB each (an employee with a long address would do), so the row passes
    // the 2 kB at which PostgreSQL starts moving values out of line.
    const people = Array.from({ length: 20 }, (_, i) => ({ employeeId: `RS${i}`, name: `Read Storage ${randomBytes(800).toString('hex')}` }));
    await employees(app.ctx, c.org.id, people);
    // One value out of line per employee: its record_enc.
    expect(await outOfLine()).toBe(20);

    // Only this migration goes down (rows written under the old rule), then up again.
    await app.ctx.db.orm.getMigrator().down({ migrations: ['Migration20261124110000'] });
    expect(await storage()).toEqual({ masked_enc: 'x', record_enc: 'x' });
    expect(await actorIndex()).toBe(1);
    await dbQuery(app, `update employees set masked_enc = masked_enc || '' where org_id = $1`, [c.org.id]);
    expect(await outOfLine()).toBe(40);

    expect(await migrate(app.ctx.db, app.ctx.migrationKeys)).toContain('Migration20261124110000');
    expect(await storage()).toEqual({ masked_enc: 'm', record_enc: 'e' });
    expect(await actorIndex()).toBe(0);
    expect(await outOfLine()).toBe(20);
  });
});
