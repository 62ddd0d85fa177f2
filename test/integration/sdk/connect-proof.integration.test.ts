/**
 * `POST /api/sdk/connect/proof/` (docs/connect.md "The session"): for an employer hrx already knows, the session
 * proves control with the employer's app credentials before it may approve.
 */
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

let n = 0;
const employerSession = async () => {
  const domain = `proof-${++n}.example`;
  const e = await app.ctx.services.orgs.create({ name: `Proof Employer ${n}`, vendor: false, client: true, domain });
  // Employees delivered by the update webhook: an established org, so a session must prove control.
  await f.employees(app.ctx, e.org.id, [{ employeeId: 'EMP1' }]);
  const v = await f.vendor(app.ctx);
  const s = await openSession(app.url, (await f.sdkToken(app.ctx, v.org, { email: `hr@${domain}`, org_name: `Proof Employer ${n}` })).access_token);
  return { e, s };
};

describe('POST /api/sdk/connect/proof/', () => {
  it("accepts the employer's own app credentials", async () => {
    const { e, s } = await employerSession();
    const res = await connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret });
    expect(res.status).toBe(200);
    expect(res.body.data).toStrictEqual({ proven: true });
    expect((await connectCall(app.url, s, '')).body.data.proof).toStrictEqual({ required: true, proven: true });
  });

  it('refuses a wrong secret', async () => {
    const { e, s } = await employerSession();
    expectError(
      await connectCall(app.url, s, 'proof/', { app_key: e.org.appKey, app_secret: e.appSecret.slice(0, -1) + 'x' }),
      403,
      plain('Proof of control failed'),
    );
    expect((await connectCall(app.url, s, '')).body.data.proof).toStrictEqual({ required: true, proven: false });
  });
});
