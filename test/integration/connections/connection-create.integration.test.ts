/**
 * The operator's connection create (docs/cli.md, `hrx connection create`, through its service):
 * one active (pending or approved) connection per vendor and client org pair, refused with a
 * validation failure naming `client`, and held by the unique index `connections_active_pair_uq`
 * (Migration20261124100000 renamed it from `connections_live_pair_uq`: "live" only means read
 * from the HRMS) even for a write that skips the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { startTestApp, type TestApp } from '../../support/harness';

describe('operator connection create: one active connection per pair', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('a second active connection of the pair is a validation failure naming client', async () => {
    const v = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid, { status: 'pending' });
    const err = await app.ctx.services.connections.create({ vendorUuid: v.org.uuid, clientUuid: c.org.uuid }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).fieldErrors).toEqual([{ field: 'client', message: 'an active connection with this client exists' }]);
  });

  it('the unique index is connections_active_pair_uq, and it refuses a duplicate written past the service', async () => {
    const { rows } = await dbQuery(
      app,
      `select indexname from pg_indexes where schemaname = current_schema() and tablename = 'connections' and indexname like 'connections_%_pair_uq'`,
    );
    expect(rows.map((r: { indexname: string }) => r.indexname)).toEqual(['connections_active_pair_uq']);
    const v = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    const { id } = await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    const copy = dbQuery(
      app,
      `insert into connections (id, vendor_org_id, client_org_id, status)
      select gen_random_uuid(), vendor_org_id, client_org_id, 'pending' from connections where id = $1`,
      [id],
    );
    await expect(copy).rejects.toMatchObject({ code: '23505', constraint: 'connections_active_pair_uq' });
  });
});
