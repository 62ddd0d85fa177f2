/** `GET /api/vendor/connections/` (docs/api.md "Vendor connections"): the vendor's own connections, paged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { hrxJson } from '../../support/cli';
import { dbQuery } from '../../support/db';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /api/vendor/connections/', () => {
  it("lists the caller's connections only, with pageInfo", async () => {
    const v = await f.vendor(app.ctx);
    const other = await f.vendor(app.ctx);
    const c = await f.client(app.ctx, 'Listed Employer');
    const mine = await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    await f.connection(app.ctx, other.org.uuid, (await f.client(app.ctx, 'Not Mine')).org.uuid);
    const res = await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { org_name: string }) => e.org_name)).toStrictEqual(['Listed Employer']);
    expect(res.body.pageInfo).toBeDefined();
    // The connection's id, added to the interface's fields: what V2's connection_id names.
    expect(res.body.data[0].connection_id).toBe(mine.id);
  });

  it('refuses a request without an API key', async () => {
    expectError(await call(`${app.url}/api/vendor/connections/`), 401, plain('Authentication credentials were not provided.'));
  });
});

describe('GET /api/vendor/connections/: what a connection not yet approved shows', () => {
  it('a pending connection the vendor asked for by SDK token: no hrms_code, no last_successful_sync, until it is approved', async () => {
    const creds = { clientId: 'listed-hr', clientSecret: 'listed-hr-secret' };
    const sim = await startSim({ employees: 2, ...creds });
    try {
      const partner = await f.vendor(app.ctx, 'Partner');
      const stranger = await f.vendor(app.ctx, 'Stranger');
      const employer = await f.client(app.ctx, 'Synced Employer', 'synced-employer.example');
      await f.connection(app.ctx, partner.org.uuid, employer.org.uuid);
      await f.hrmsAt(app.ctx, employer.org.id, sim, creds);
      expect(await app.ctx.services.sync.run(employer.org.id, 'test', 'vendor-connections-sync')).toMatchObject({ status: 'succeeded' });
      const tok = await f.sdkToken(app.ctx, stranger.org, { email: 'hr@synced-employer.example' });
      expect(tok.org_id).toBe(employer.org.uuid);
      const entry = async (v: { apiKey: string }) =>
        (await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey } })).body.data.find(
          (e: { org_id: string }) => e.org_id === employer.org.uuid,
        );
      const DATE = /^\d{1,2}(st|nd|rd|th) [A-Z][a-z]+ \d{4}, \d\d:\d\d (AM|PM)$/;
      expect(await entry(partner)).toMatchObject({ hrms_code: 'reference', last_successful_sync: expect.stringMatching(DATE) });
      expect(await entry(stranger)).toMatchObject({
        org_name: 'Synced Employer',
        hrms_code: 'NOT AVAILABLE',
        last_successful_sync: 'NOT AVAILABLE',
        application_connection_status: 'Inactive',
      });
      // Approved (here by the operator), the connection shows them.
      const { id } = (await dbQuery(app, `select id from connections where vendor_org_id = $1 and status = 'pending'`, [stranger.org.id])).rows[0];
      expect(await hrxJson(['connection', 'approve', id], app.env)).toMatchObject({ status: 'approved' });
      expect(await entry(stranger)).toMatchObject({ hrms_code: 'reference', last_successful_sync: expect.stringMatching(DATE) });
    } finally {
      await sim.close();
    }
  });
});
