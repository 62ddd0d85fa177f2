/**
 * Migration20261123110000 (docs/events.md, docs/privacy.md): endpoints that subscribed to every event type
 * there was before `consent.revoked` existed are subscribed to it; endpoints that chose their
 * types keep their choice. Also its indexes of the access log and the employer's withdrawal, and
 * its `down`. Real PostgreSQL, the real migrator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/orm';
import type { EventType } from '../../../src/events/types';
import { vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

const BEFORE: EventType[] = [
  'connection.approved',
  'connection.rejected',
  'connection.terminated',
  'sync.completed',
  'sync.failed',
  'employee.updated',
  'employee.removed',
  'consent.expired',
];

describe('Migration20261123110000', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  const typesOf = async (id: string) => (await dbQuery(app, `select event_types from event_endpoints where id = $1`, [id])).rows[0].event_types as string[];
  const indexes = async () =>
    (
      await dbQuery(
        app,
        `select indexname from pg_indexes where schemaname = current_schema()
    and indexname in ('audit_log_employee_idx', 'consents_employee_idx') order by indexname`,
      )
    ).rows.map((r) => r.indexname);

  it('subscribes endpoints of every former type to consent.revoked, and no other', async () => {
    const v = await vendor(app.ctx);
    const add = (path: string, events?: EventType[]) =>
      app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: `https://hooks.example.com/${path}`, ...(events ? { events } : {}) });
    const all = await add('all');
    const former = await add('former', BEFORE);
    const chosen = await add('chosen', ['consent.expired', 'employee.removed']);
    expect(await indexes()).toEqual(['audit_log_employee_idx', 'consents_employee_idx']);

    // Types added by later migrations stay where they are.
    const later = (await typesOf(all.id)).filter((t) => !BEFORE.includes(t as EventType) && t !== 'consent.revoked');
    // Only this migration goes down (whatever others came after it), then up again.
    await app.ctx.db.orm.getMigrator().down({ migrations: ['Migration20261123110000'] });
    expect(await typesOf(all.id)).toEqual([...BEFORE, ...later]);
    expect(await indexes()).toEqual([]);

    expect(await migrate(app.ctx.db, app.ctx.migrationKeys)).toContain('Migration20261123110000');
    expect(await typesOf(all.id)).toEqual([...BEFORE, ...later, 'consent.revoked']);
    expect(await typesOf(former.id)).toEqual([...BEFORE, 'consent.revoked']);
    expect(await typesOf(chosen.id)).toEqual(['consent.expired', 'employee.removed']);
    expect(await indexes()).toEqual(['audit_log_employee_idx', 'consents_employee_idx']);
  });
});
