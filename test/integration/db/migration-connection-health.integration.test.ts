/**
 * Migration20261127060000 (docs/sync.md "Connection health"): the `org_health` and
 * `sync_requests` tables, and the three health event types for endpoints that subscribed to every
 * type there was before them (endpoints that chose their types keep their choice). Also its
 * `down`. Real PostgreSQL, the real migrator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/orm';
import { EVENT_TYPES, type EventType } from '../../../src/events/types';
import { vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

const HEALTH: EventType[] = ['connection.needs_reauth', 'connection.failing', 'connection.healthy'];
// The types there were before that migration (those after it came later).
const BEFORE = EVENT_TYPES.slice(0, EVENT_TYPES.indexOf('connection.needs_reauth'));

describe('Migration20261127060000', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  const typesOf = async (id: string) => (await dbQuery(app, `select event_types from event_endpoints where id = $1`, [id])).rows[0].event_types as string[];
  const tables = async () =>
    (
      await dbQuery(
        app,
        `select table_name from information_schema.tables where table_schema = current_schema()
          and table_name in ('org_health', 'sync_requests') order by table_name`,
      )
    ).rows.map((r) => r.table_name);

  it('subscribes endpoints of every former type to the health events, and no other; down drops its tables', async () => {
    const v = await vendor(app.ctx);
    const add = (path: string, events?: EventType[]) =>
      app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: `https://hooks.example.com/${path}`, ...(events ? { events } : {}) });
    const former = await add('former', BEFORE);
    const chosen = await add('chosen', ['sync.failed']);
    expect(await tables()).toEqual(['org_health', 'sync_requests']);

    await app.ctx.db.orm.getMigrator().down({ migrations: ['Migration20261127060000'] });
    expect(await tables()).toEqual([]);

    expect(await migrate(app.ctx.db, app.ctx.migrationKeys)).toContain('Migration20261127060000');
    expect(await typesOf(former.id)).toEqual([...BEFORE, ...HEALTH]);
    expect(await typesOf(chosen.id)).toEqual(['sync.failed']);
    expect(await tables()).toEqual(['org_health', 'sync_requests']);
  });
});
