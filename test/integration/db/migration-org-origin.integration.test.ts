/**
 * Migration20261127010000 (how an org was made, and whose `remote_org_id` it holds) on rows made
 * before it: its `down`, then its `up` over them, backfills `created_via` and
 * `remote_org_vendor_id` as docs/connect.md "Org resolution" says, and the name rule then finds
 * only the orgs it made. Real PostgreSQL, the real migrator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/orm';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

describe('Migration20261127010000', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  const origin = async (uuid: string) =>
    (await dbQuery(app, `select created_via, remote_org_vendor_id from orgs where uuid = $1`, [uuid])).rows[0] as {
      created_via: string;
      remote_org_vendor_id: number | null;
    };

  it('backfills created_via and the remote id owner of orgs made before it; the name rule then finds only its own', async () => {
    const v = await f.vendor(app.ctx, 'Backfill Lender');
    const operatorWithDomain = await f.client(app.ctx, 'Operator Domain', 'operator-domain.example');
    const operatorBare = await f.client(app.ctx, 'Operator Bare');
    const byName = await f.sdkToken(app.ctx, v.org, { email: 'a@gmail.com', org_name: 'Named Pending' });
    const byNameAccepted = await f.sdkToken(app.ctx, v.org, { email: 'b@gmail.com', org_name: 'Named Accepted' });
    await dbQuery(app, `update orgs set invite_status = 'accepted' where uuid = $1`, [byNameAccepted.org_id]);
    const byDomain = await f.sdkToken(app.ctx, v.org, { email: 'hr@token-domain.example', org_name: 'X' });
    const byRemote = await f.sdkToken(app.ctx, v.org, { email: 'c@gmail.com', org_name: 'Remote Co', remote_org_id: 'crm-backfill' });

    await app.ctx.db.orm.getMigrator().down({ migrations: ['Migration20261127010000'] });
    const cols = await dbQuery(app, `select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'orgs'`);
    expect(cols.rows.map((r) => r.column_name)).not.toContain('created_via');
    expect(await migrate(app.ctx.db, app.ctx.migrationKeys)).toContain('Migration20261127010000');

    expect(await origin(operatorWithDomain.org.uuid)).toEqual({ created_via: 'operator', remote_org_vendor_id: null });
    expect(await origin(operatorBare.org.uuid)).toEqual({ created_via: 'operator', remote_org_vendor_id: null });
    expect(await origin(byName.org_id)).toEqual({ created_via: 'name', remote_org_vendor_id: null });
    // Accepted: counted as the operator's (the safe side).
    expect(await origin(byNameAccepted.org_id)).toEqual({ created_via: 'operator', remote_org_vendor_id: null });
    expect(await origin(byDomain.org_id)).toEqual({ created_via: 'email_domain', remote_org_vendor_id: null });
    expect(await origin(byRemote.org_id)).toEqual({ created_via: 'remote_org_id', remote_org_vendor_id: v.org.id });

    // The name rule finds the pending org it made, and no longer the accepted one.
    expect((await f.sdkToken(app.ctx, v.org, { email: 'd@gmail.com', org_name: 'named pending' })).org_id).toBe(byName.org_id);
    expect((await f.sdkToken(app.ctx, v.org, { email: 'e@gmail.com', org_name: 'named accepted' })).org_id).not.toBe(byNameAccepted.org_id);
    expect((await f.sdkToken(app.ctx, v.org, { email: 'f@gmail.com', org_name: 'Remote Co', remote_org_id: 'crm-backfill' })).org_id).toBe(byRemote.org_id);
  });
});
