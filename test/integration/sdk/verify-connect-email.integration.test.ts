/**
 * `POST /api/sdk/connect/verify-email/` (docs/connect.md "What an e-mail code can set up"): the code read from
 * the real SMTP server verifies the session's e-mail, once; an expired code, a malformed one and a
 * session without a code are refused in plain words; the code never reaches a log.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession, type TestSession } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { expectError, invalid } from '../../support/expect-error';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
const lines: string[] = [];
beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await startTestApp({ worker: false, env: { LOG_LEVEL: 'debug' }, logStream: sink });
});
afterAll(async () => {
  await app?.stop();
});

let n = 0;
const opened = async (): Promise<{ s: TestSession; email: string }> => {
  const email = `hr@verify-${++n}.example`;
  const v = await f.vendor(app.ctx);
  return { s: await openSession(app.url, (await f.sdkToken(app.ctx, v.org, { email })).access_token), email };
};
const sendCode = async (s: TestSession, email: string) => {
  expect((await connectCall(app.url, s, 'email-code/', undefined)).status).toBe(200);
  return app.mailbox!.code(email, app.mailbox!.to(email).length - 1);
};
const NO_CODE = invalid('code', 'no code is waiting (none sent, expired or used up): ask for a new code');

describe('POST /api/sdk/connect/verify-email/', () => {
  it("the right code verifies the session's e-mail, once; the code is spent and never logged", async () => {
    const { s, email } = await opened();
    const code = await sendCode(s, email);
    const res = await connectCall(app.url, s, 'verify-email/', { code: ` ${code} ` });
    expect(res.status).toBe(200);
    expect(res.body.data).toStrictEqual({ verified: true });
    expect((await connectCall(app.url, s, '')).body.data.email_verification).toMatchObject({ required: true, verified: true, sent_to: email });
    expect((await dbQuery(app, `select used_at is not null as used, attempts from connect_email_codes`)).rows).toEqual([{ used: true, attempts: 1 }]);
    expect((await dbQuery(app, `select method, outcome from connect_proof_audit order by id`)).rows.map((r) => `${r.method}:${r.outcome}`)).toEqual([
      'email:sent',
      'email:proven',
    ]);
    // It proves who reads the mail, not control of the org: no proof of control is recorded.
    expect((await dbQuery(app, `select proven_at, proof_method, email_verified_at is not null as verified from connect_sessions`)).rows).toEqual([
      { proven_at: null, proof_method: null, verified: true },
    ]);
    // Verified already: the same answer, nothing checked again.
    expect((await connectCall(app.url, s, 'verify-email/', { code: '000000' })).body.data).toStrictEqual({ verified: true });
    expect(lines.filter((l) => l.includes(code))).toEqual([]);
  });

  it('refuses a code that is not 6 digits, a session without a code, and an expired code', async () => {
    const { s, email } = await opened();
    for (const code of ['12345', '1234567', 'abcdef', '']) {
      expectError(await connectCall(app.url, s, 'verify-email/', { code }), 400, invalid('code', 'must be the 6 digits of the code'));
    }
    expectError(await connectCall(app.url, s, 'verify-email/', {}), 400, invalid('code', 'required'));
    expectError(await connectCall(app.url, s, 'verify-email/', { code: '123456' }), 400, NO_CODE);
    const code = await sendCode(s, email);
    await dbQuery(app, `update connect_email_codes set expires_at = now() - interval '1 second'`);
    expectError(await connectCall(app.url, s, 'verify-email/', { code }), 400, NO_CODE);
    expect((await connectCall(app.url, s, '')).body.data.email_verification.verified).toBe(false);
  });

  it('only the latest code counts: a newer code makes the earlier one useless', async () => {
    const { s, email } = await opened();
    const first = await sendCode(s, email);
    await dbQuery(app, `update connect_email_codes set created_at = created_at - interval '1 minute'`);
    const second = await sendCode(s, email);
    if (first !== second) expectError(await connectCall(app.url, s, 'verify-email/', { code: first }), 403, { message: 'Proof of control failed', data: null });
    expect((await connectCall(app.url, s, 'verify-email/', { code: second })).status).toBe(200);
  });
});
