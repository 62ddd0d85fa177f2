/**
 * The retention purge and the credentials issued about a purged employee
 * (docs/erasure-and-retention.md "Retention", docs/credentials.md "Revocation"): credentials
 * issued over HTTP, employees marked removed by SQL (as a full sync does), one purge of the
 * retention service over the test's database, no credential sweep running. The purged employee's
 * credential rows keep their place, are revoked (an earlier revocation kept) and hold the employee
 * id no more; a verifier and the vendor's view say revoked; another employee's credential is
 * untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetentionService } from '../../../src/retention/service';
import { createRetentionStore } from '../../../src/retention/store';
import { credentialWorld, issue, verifyOnApp } from '../../support/credentials';
import { dbQuery, testPool } from '../../support/db';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
}, 120_000);
afterAll(async () => app?.stop());

const get = (id: string, apiKey: string) => call(`${app.url}/api/credentials/${id}/`, { headers: { authorization: apiKey } });

describe('retention purge of a removed employee with credentials', () => {
  it('revokes and blanks the employee id of its credential rows, keeps their place, leaves others alone', async () => {
    const w = await credentialWorld(app.ctx);
    const issued = async (employeeId: string) => {
      const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: employeeId });
      expect(res.status).toBe(201);
      return res.body.data as { credential_id: string; sd_jwt: string };
    };
    const [gone, goneRevoked, kept] = [await issued('E1'), await issued('E3'), await issued('E2')];
    expect((await call(`${app.url}/api/credentials/${goneRevoked.credential_id}/`, { method: 'DELETE', headers: { authorization: w.v.apiKey } })).status).toBe(
      200,
    );
    const places = async () =>
      (await dbQuery(app, `select id, status_list, status_idx from credentials where client_org_id = $1 order by id`, [w.c.org.id])).rows;
    const placesBefore = await places();
    await dbQuery(app, `update employees set removed_at = now() - interval '31 days' where org_id = $1 and employee_id in ('E1', 'E3')`, [w.c.org.id]);

    const service = createRetentionService({ store: createRetentionStore(testPool(app)), auditDays: 400, removedDays: 30, eventDays: 30, log: app.ctx.log });
    expect((await service.purge()).removedEmployees).toBe(2);

    const rows = (await dbQuery(app, `select id, employee_id, revoked_reason from credentials where client_org_id = $1`, [w.c.org.id])).rows;
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.employee_id, r.revoked_reason]]))).toStrictEqual({
      [gone.credential_id]: ['', 'employee_not_active'],
      [goneRevoked.credential_id]: ['', 'vendor'],
      [kept.credential_id]: ['E2', null],
    });
    expect(await places()).toStrictEqual(placesBefore);
    const dump = JSON.stringify((await dbQuery(app, `select * from credentials where client_org_id = $1`, [w.c.org.id])).rows);
    expect(dump).not.toMatch(/"E1"|"E3"/);

    expect(await verifyOnApp(app.url, gone.sd_jwt)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(await verifyOnApp(app.url, goneRevoked.sd_jwt)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(await verifyOnApp(app.url, kept.sd_jwt)).toMatchObject({ ok: true });
    expect((await get(gone.credential_id, w.v.apiKey)).body.data).toMatchObject({ status: 'revoked', revoked_reason: 'employee_not_active' });
    expect((await get(kept.credential_id, w.v.apiKey)).body.data).toMatchObject({ status: 'valid', revoked_reason: null });
  });
});
