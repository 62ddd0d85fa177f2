/**
 * `POST /api/sdk/connect/email-code/` (docs/connect.md "What an e-mail code can set up"): a 6-digit code sent
 * with nodemailer to the token's e-mail, received here by a real SMTP server in the test process.
 * Stored only as a keyed hash, audited, never logged; one every 30 s per session; refused for an
 * established org; without HRX_SMTP_URL the page is told that the operator must approve, and the
 * HRMS step of a new org is refused.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { expectError, invalid, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { codeOf } from '../../support/mailbox';

let app: TestApp;
const lines: string[] = [];
beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await startTestApp({ worker: false, env: { LOG_LEVEL: 'debug', HRX_OPERATOR_NAME: 'Mail Ops' }, logStream: sink });
});
afterAll(async () => {
  await app?.stop();
});

const session = async (email: string, orgName = 'Mailed Co') => {
  const v = await f.vendor(app.ctx, 'Mail Lender');
  return openSession(app.url, (await f.sdkToken(app.ctx, v.org, { email, org_name: orgName })).access_token);
};

describe('POST /api/sdk/connect/email-code/', () => {
  it("sends a 6-digit code to the token's e-mail, good for 10 minutes, stored only as a keyed hash, audited, never logged", async () => {
    const email = 'priya@mailed-one.example';
    const s = await session(email, 'Mailed One');
    const before = Date.now();
    const res = await connectCall(app.url, s, 'email-code/', undefined);
    expect(res.status).toBe(200);
    expect(res.body.data.sent_to).toBe(email);
    const ttl = Date.parse(res.body.data.expires_at) - before;
    expect(ttl).toBeGreaterThan(595_000);
    expect(ttl).toBeLessThan(605_000);
    const [mail] = app.mailbox!.to(email);
    expect(mail!.to).toEqual([email]);
    expect(mail!.from).toBe('no-reply@hrx.test');
    const code = codeOf(mail!)!;
    expect(code).toMatch(/^[0-9]{6}$/);
    expect(mail!.raw).toMatch(new RegExp(`^Subject: Your hrx verification code: ${code}\r?$`, 'm'));
    expect(mail!.text).toContain(`Your verification code is ${code}. It is good for 10 minutes, on the page where you asked for it.`);
    expect(mail!.text).toContain('If that was not you, ignore this e-mail: without the code, nothing is set up.');
    expect(mail!.text).toContain('The link came from Mail Lender. The organisation name given by Mail Lender (not checked by Mail Ops): "Mailed One"');
    expect(mail!.text).toContain('Sent by Mail Ops, which runs this hrx service.');
    const rows = (await dbQuery(app, `select code_hash, attempts, used_at from connect_email_codes`)).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0].code_hash).toHaveLength(32);
    expect(rows[0].code_hash.toString('latin1')).not.toContain(code);
    expect(JSON.stringify(rows)).not.toContain(code);
    const audit = (await dbQuery(app, `select method, outcome from connect_proof_audit`)).rows;
    expect(audit).toEqual([{ method: 'email', outcome: 'sent' }]);
    expect(lines.some((l) => l.includes('connect: e-mail code sent'))).toBe(true);
    expect(lines.filter((l) => l.includes(code) || l.includes(email))).toEqual([]);
  });

  it('one code every 30 s per session: a second at once is 429 with Retry-After', async () => {
    const email = 'hr@mailed-two.example';
    const s = await session(email, 'Mailed Two');
    expect((await connectCall(app.url, s, 'email-code/', undefined)).status).toBe(200);
    const again = await connectCall(app.url, s, 'email-code/', undefined);
    expect(again.status).toBe(429);
    const wait = Number(again.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(25);
    expect(wait).toBeLessThanOrEqual(30);
    expectError(again, 429, plain(`Request was throttled. Expected available in ${wait} seconds.`));
    expect(app.mailbox!.to(email)).toHaveLength(1);
  });

  it('an SMTP server that refuses the message: 503, the code void', async () => {
    const email = 'hr@mailed-three.example';
    const s = await session(email, 'Mailed Three');
    app.mailbox!.refuse(true);
    try {
      const res = await connectCall(app.url, s, 'email-code/', undefined);
      expectError(res, 503, plain('Service temporarily unavailable'));
      expect(res.headers.get('retry-after')).toBe('30');
    } finally {
      app.mailbox!.refuse(false);
    }
    expect(
      (
        await dbQuery(
          app,
          `select count(*)::int as n from connect_email_codes where used_at is null and client_org_id =
      (select id from orgs where email_domain = 'mailed-three.example')`,
        )
      ).rows[0].n,
    ).toBe(0);
    expect((await connectCall(app.url, s, '')).body.data.email_verification.code_expires_at).toBeNull();
  });

  it('is refused for an established org (proof of control is asked there), and without the session cookie', async () => {
    const employer = await app.ctx.services.orgs.create({ name: 'Mailed Established', vendor: false, client: true, domain: 'mailed-established.example' });
    const v = await f.vendor(app.ctx);
    const s = await openSession(app.url, (await f.sdkToken(app.ctx, v.org, { email: 'hr@mailed-established.example' })).access_token);
    await f.employees(app.ctx, employer.org.id, [{ employeeId: 'M1' }]);
    expectError(await connectCall(app.url, s, 'email-code/', undefined), 400, invalid('email', 'not needed: this organisation is already set up'));
    expect((await connectCall(app.url, s, '')).body.data.email_verification).toMatchObject({ required: false, verified: false });
    expectError(await connectCall(app.url, '', 'email-code/', undefined), 401, plain('Authentication credentials were not provided.'));
  });
});

describe('without HRX_SMTP_URL', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp({ worker: false, env: { HRX_SMTP_URL: '' } });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it("the page is told that the operator must approve; no code is sent and a new org's HRMS step is refused", async () => {
    expect(bare.mailbox).toBeUndefined();
    const v = await f.vendor(bare.ctx);
    const s = await openSession(bare.url, (await f.sdkToken(bare.ctx, v.org)).access_token);
    expect((await connectCall(bare.url, s, '')).body.data.email_verification).toMatchObject({ required: true, available: false, verified: false });
    const operatorOnly = invalid(
      'email',
      'this service cannot send e-mail codes, so a new organisation cannot be set up here: the operator must approve this connection (hrx connection approve)',
    );
    expectError(await connectCall(bare.url, s, 'email-code/', undefined), 400, operatorOnly);
    expectError(
      await connectCall(bare.url, s, 'hrms/', {
        hrms_id: 'reference',
        access_credentials: { grant_type: 'client_credentials', client_id: 'a', client_secret: 'b', hrms_host: 'https://hrms.example' },
      }),
      400,
      operatorOnly,
    );
  });
});
