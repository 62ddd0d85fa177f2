/** `GET /api/sdk/connect/` (docs/connect.md "The session"): what the Connect page shows, for the session cookie only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { connectCall, openSession } from '../../support/connect';

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
    });
    for (let i = 0; i < 5; i++) expect((await connectCall(app.url, s, 'proof/', { app_key: employer.org.appKey, app_secret: `wrong-${i}` })).status).toBe(403);
    const locked = (await connectCall(app.url, s, '')).body.data.lock.locked_until;
    expect(Date.parse(locked) - Date.now()).toBeGreaterThan(14 * 60_000);
    const before = Date.now();
    expect((await connectCall(app.url, s, 'reject/', undefined)).status).toBe(200);
    const decided = (await connectCall(app.url, s, '')).body.data;
    expect(decided.status).toBe('rejected');
    expect(Math.abs(Date.parse(decided.decided_at) - before)).toBeLessThan(5000);
  });

  it('refuses a request without the cookie, and a forged cookie', async () => {
    expectError(await connectCall(app.url, '', ''), 401, plain('Authentication credentials were not provided.'));
    expectError(await connectCall(app.url, 'hrx_connect=forged', ''), 401, plain('Invalid token.'));
  });
});
