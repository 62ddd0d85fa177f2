/**
 * The proof-of-control lock (docs/connect.md "Reference: the SDK token and the Connect endpoints") holds across API processes: it lives in PostgreSQL,
 * not in a process's memory. Five wrong proofs through one process lock the pair; a second
 * `hrx serve` on the same database then refuses the right credentials and the approval too, and
 * both processes' attempts land in the one audit table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecondApi, startTestApp, type SecondApi, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';

describe('Connect proof lock across API processes', () => {
  let app: TestApp;
  let second: SecondApi;

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    second = await startSecondApi(app);
  }, 90_000);
  afterAll(async () => {
    await second?.stop();
    await app?.stop();
  });

  it('five failures on one process lock the approval on the other', async () => {
    const v = await f.vendor(app.ctx);
    const employer = await f.client(app.ctx, undefined, 'lockout-processes.example');
    await f.employees(app.ctx, employer.org.id, [{ employeeId: 'E1', name: 'One' }]);
    const tok = await f.sdkToken(app.ctx, v.org, { email: 'ops@lockout-processes.example', org_name: employer.org.orgName });
    expect(tok.org_id).toBe(employer.org.uuid);
    const s = await openSession(app.url, tok.access_token);
    for (let i = 0; i < 5; i++) {
      expectError(await connectCall(app.url, s, 'proof/', { app_key: employer.org.appKey, app_secret: `wrong-${i}` }), 403, plain('Proof of control failed'));
    }
    // The same session cookie, on the other process.
    expect((await connectCall(second.url, s, '')).body.data.proof).toStrictEqual({ required: true, proven: false });
    expectError(
      await connectCall(second.url, s, 'proof/', { app_key: employer.org.appKey, app_secret: employer.appSecret }),
      403,
      plain('Proof of control failed'),
    );
    expectError(await connectCall(second.url, s, 'approve/', { opted_in: [], opted_out: [] }), 403, plain('Proof of control failed'));
    const { rows } = await dbQuery(
      app,
      `select a.outcome from connect_proof_audit a join connections c on c.id = a.connection_id where c.vendor_org_id = $1 order by a.id`,
      [v.org.id],
    );
    expect(rows.map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed', 'locked', 'locked']);
    expect((await dbQuery(app, `select status from connections where vendor_org_id = $1`, [v.org.id])).rows[0].status).toBe('pending');
  });
});
