/**
 * Migration20261127050000 (docs/behaviour.md "Coverage", docs/events.md `sync.degraded`): adds
 * `sync_runs.coverage` (jsonb, null for older runs) and subscribes endpoints of every former
 * event type to `sync.degraded`; endpoints that chose their types keep their choice. Its `down`
 * undoes both. Real PostgreSQL, the real migrator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/orm';
import { EVENT_TYPES, type EventType } from '../../../src/events/types';
import { vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

const BEFORE: EventType[] = EVENT_TYPES.filter((t) => t !== 'sync.degraded');

describe('Migration20261127050000', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  // As a set (sorted): later migrations add types of their own, in their own order.
  const typesOf = async (id: string) =>
    ((await dbQuery(app, `select event_types from event_endpoints where id = $1`, [id])).rows[0].event_types as string[]).sort();
  const set = (types: string[]) => [...types].sort();
  const coverageColumn = async () =>
    (
      await dbQuery(
        app,
        `select data_type, is_nullable from information_schema.columns where table_schema = current_schema() and table_name = 'sync_runs' and column_name = 'coverage'`,
      )
    ).rows;

  it('adds sync_runs.coverage and subscribes endpoints of every former type to sync.degraded, and no other', async () => {
    const v = await vendor(app.ctx);
    const add = (path: string, events?: EventType[]) =>
      app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: `https://hooks.example.com/${path}`, ...(events ? { events } : {}) });
    const all = await add('all');
    const former = await add('former', BEFORE);
    const chosen = await add('chosen', ['sync.completed']);
    expect(await coverageColumn()).toEqual([{ data_type: 'jsonb', is_nullable: 'YES' }]);
    expect(await typesOf(all.id)).toEqual(set([...BEFORE, 'sync.degraded']));

    await app.ctx.db.orm.getMigrator().down({ migrations: ['Migration20261127050000'] });
    expect(await coverageColumn()).toEqual([]);
    expect(await typesOf(all.id)).toEqual(set(BEFORE));

    expect(await migrate(app.ctx.db, app.ctx.migrationKeys)).toContain('Migration20261127050000');
    expect(await coverageColumn()).toEqual([{ data_type: 'jsonb', is_nullable: 'YES' }]);
    expect(await typesOf(all.id)).toEqual(set([...BEFORE, 'sync.degraded']));
    expect(await typesOf(former.id)).toEqual(set([...BEFORE, 'sync.degraded']));
    expect(await typesOf(chosen.id)).toEqual(['sync.completed']);
  });
});
