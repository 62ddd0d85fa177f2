/** `GET /api/sdk/connect/` (docs/connect.md "The session"): what the Connect page shows, for the session cookie only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /api/sdk/connect/', () => {
  it('shows the session of the cookie', async () => {
    const v = await f.vendor(app.ctx, 'View Vendor');
    const tok = await f.sdkToken(app.ctx, v.org, { org_name: 'View Employer' });
    const res = await connectCall(app.url, await openSession(app.url, tok.access_token), '');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'pending', proof: { required: false, proven: false } });
  });

  it('labels the requested points, shows the lock after five failed proofs and, once decided, when', async () => {
    const v = await f.vendor(app.ctx, 'View Vendor Two');
    const employer = await f.client(app.ctx, 'View Established', 'view-established.example');
    await f.employees(app.ctx, employer.org.id, [{ employeeId: 'V1' }]);
    const tok = await f.sdkToken(app.ctx, v.org, {
      email: 'hr@view-established.example',
      org_name: 'view established',
      data_model_flags: { detail_info_fields: { aadhar: -1 }, ctc_details_fields: { ctc_deductions_esi: 1 } },
    });
    const s = await openSession(app.url, tok.access_token);
    const view = (await connectCall(app.url, s, '')).body.data;
    expect(view.data_points).toStrictEqual([
      { name: 'aadhar', label: 'Aadhaar number', category: 'personal', sensitive: true, required: true },
      { name: 'ctc_deductions_esi', label: 'ESI deduction (annual CTC)', category: 'annual_ctc', sensitive: false, required: false },
    ]);
    expect(view).toMatchObject({
      proof: { required: true, proven: false },
      email_verification: { required: false },
      lock: { locked_until: null },
      decided_at: null,
      decided_by: null,
    });
    for (let i = 0; i < 5; i++) expect((await connectCall(app.url, s, 'proof/', { app_key: employer.org.appKey, app_secret: `wrong-${i}` })).status).toBe(403);
    const locked = (await connectCall(app.url, s, '')).body.data.lock.locked_until;
    expect(Date.parse(locked) - Date.now()).toBeGreaterThan(14 * 60_000);
    const before = Date.now();
    expect((await connectCall(app.url, s, 'reject/', undefined)).status).toBe(200);
    const decided = (await connectCall(app.url, s, '')).body.data;
    expect(decided.status).toBe('rejected');
    expect(Math.abs(Date.parse(decided.decided_at) - before)).toBeLessThan(5000);
    expect(decided.decided_by).toBe('admin');
  });

  it('says who decided: the operator (CLI), the vendor (terminate), no one for an unrecorded decision, and forgets it on a new request', async () => {
    const v = await f.vendor(app.ctx, 'View Vendor Three');
    const tok = await f.sdkToken(app.ctx, v.org, { org_name: 'View Operator Co', email: 'hr@view-operator.example' });
    const s = await openSession(app.url, tok.access_token);
    const view = async () => (await connectCall(app.url, s, '')).body.data;
    const id = (await view()).connection_id;
    // `hrx connection reject ID`, then `approve ID`.
    await app.ctx.services.connections.decide(id, 'rejected');
    expect(await view()).toMatchObject({ status: 'rejected', decided_by: 'operator' });
    // The vendor asks again (a new token): pending, no one has decided.
    const again = await f.sdkToken(app.ctx, v.org, { org_name: 'View Operator Co', email: 'hr@view-operator.example' });
    const s2 = await openSession(app.url, again.access_token);
    expect((await connectCall(app.url, s2, '')).body.data).toMatchObject({ status: 'pending', decided_by: null, decided_at: null });
    await app.ctx.services.connections.decide(id, 'approved');
    expect((await connectCall(app.url, s2, '')).body.data).toMatchObject({ status: 'approved', decided_by: 'operator' });
    const [row] = (await dbQuery(app, 'select client_org_id from connections where id = $1', [id])).rows;
    const [org] = (await dbQuery(app, 'select uuid from orgs where id = $1', [row.client_org_id])).rows;
    await app.ctx.services.connections.terminate(v.org.id, org.uuid, 'view-terminate');
    expect((await connectCall(app.url, s2, '')).body.data).toMatchObject({ status: 'terminated', decided_by: 'vendor' });
    // A decision made before the column existed.
    await dbQuery(app, 'update connections set decided_by = null where id = $1', [id]);
    expect((await connectCall(app.url, s2, '')).body.data).toMatchObject({ status: 'terminated', decided_by: null });
  });

  it('refuses a request without the cookie, and a forged cookie', async () => {
    expectError(await connectCall(app.url, '', ''), 401, plain('Authentication credentials were not provided.'));
    expectError(await connectCall(app.url, 'hrx_connect=forged', ''), 401, plain('Invalid token.'));
  });
});
