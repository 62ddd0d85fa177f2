/**
 * `POST /api/sdk/connect/email-code/` is no mail bomb (docs/connect.md "E-mail verification
 * before an organisation is set up"): at most 5 codes an hour to one address and 50 an hour asked
 * for by one vendor, whatever the sessions, tokens, vendors and orgs (the defaults, over HTTP, into a real
 * SMTP server in the test process); the address is counted by a keyed hash only. And the mail
 * carries no text the vendor chose in its subject or first lines ("What the e-mail says").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { expectError, plain, type Res } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_OPERATOR_NAME: 'Limit Ops' } });
});
afterAll(async () => {
  await app?.stop();
});

/** A token asked for over HTTP with the vendor's key, exchanged for a session, and one code asked for in it. */
async function codeFor(v: { apiKey: string }, body: Record<string, string>): Promise<Res> {
  const token = await call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ fullname: 'Asha Rao', ...body }),
  });
  expect(token.status).toBe(200);
  const s = await openSession(app.url, token.body.data.access_token as string);
  return connectCall(app.url, s, 'email-code/', undefined);
}

/** The exact 429 of the error table, with `Retry-After` about an hour away. */
function expectHourThrottled(res: Res): void {
  const n = Number(res.headers.get('retry-after'));
  expect(n).toBeGreaterThan(3000);
  expect(n).toBeLessThanOrEqual(3600);
  expectError(res, 429, plain(`Request was throttled. Expected available in ${n} seconds.`));
}

describe('POST /api/sdk/connect/email-code/: per-address limit', () => {
  it('a sixth code to one address within the hour is 429, across tokens, sessions and vendors; the address is stored only hashed', async () => {
    // One org (the address's own domain: the org a code can set up), far below its 20 an hour.
    const target = 'Payroll.Head@Victim-Corp.example';
    const [a, b, c] = [await f.vendor(app.ctx, 'Bomb Lender'), await f.vendor(app.ctx, 'Second Lender'), await f.vendor(app.ctx, 'Third Lender')];
    for (const v of [a, a, a, b, b]) expect((await codeFor(v, { email: target, org_name: 'Victim Corp' })).status).toBe(200);
    expectHourThrottled(await codeFor(a, { email: target, org_name: 'Victim Corp' }));
    // Another vendor, another spelling of the same address: still that address.
    expectHourThrottled(await codeFor(c, { email: ' payroll.head@VICTIM-CORP.example', org_name: 'Victim Corp' }));
    expect(app.mailbox!.to(target)).toHaveLength(5);
    // Another address is not held back.
    expect((await codeFor(c, { email: 'someone.else@victim-corp.example', org_name: 'Victim Corp' })).status).toBe(200);
    const rows = (await dbQuery(app, `select recipient_hash, vendor_org_id from connect_email_codes`)).rows as {
      recipient_hash: Buffer;
      vendor_org_id: number;
    }[];
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((r) => r.recipient_hash.toString('hex'))).size).toBe(2);
    expect(rows.map((r) => r.vendor_org_id).sort()).toEqual([a.org.id, a.org.id, a.org.id, b.org.id, b.org.id, c.org.id].sort());
    for (const r of rows) expect(r.recipient_hash).toHaveLength(32);
    const dump = JSON.stringify((await dbQuery(app, `select * from connect_email_codes`)).rows).toLowerCase();
    expect(dump).not.toContain('victim-corp');
    expect(dump).not.toContain(Buffer.from('payroll.head@victim-corp.example').toString('hex'));
  });
});

describe('POST /api/sdk/connect/email-code/: per-vendor limit', () => {
  it("a vendor's 51st code within the hour is 429, each to a new address and org; another vendor is not held back", async () => {
    const v = await f.vendor(app.ctx, 'Spray Lender');
    // In parallel, ten at a time: the limit holds under concurrent requests too.
    for (let batch = 0; batch < 5; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => codeFor(v, { email: `hr@spray-${batch * 10 + i + 1}.example`, org_name: `Spray ${batch * 10 + i + 1}` })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array<number>(10).fill(200));
    }
    expectHourThrottled(await codeFor(v, { email: 'hr@spray-51.example', org_name: 'Spray 51' }));
    expect(app.mailbox!.to('hr@spray-51.example')).toHaveLength(0);
    expect(app.mailbox!.to('hr@spray-50.example')).toHaveLength(1);
    const other = await f.vendor(app.ctx, 'Calm Lender');
    expect((await codeFor(other, { email: 'hr@spray-52.example', org_name: 'Spray 52' })).status).toBe(200);
  });
});

describe('POST /api/sdk/connect/email-code/: what the e-mail says', () => {
  it("the subject is fixed text and the code; the vendor's org name is only quoted further down, as the vendor's", async () => {
    const v = await f.vendor(app.ctx, 'Phish Lender');
    const orgName = 'Payroll locked - call +1-555-0100 now ref 1\nURGENT: call +1-555-0100';
    const email = 'hr@phished.example';
    expect((await codeFor(v, { email, org_name: orgName })).status).toBe(200);
    const [mail] = app.mailbox!.to(email);
    const head = mail!.raw.slice(0, mail!.raw.indexOf('\r\n\r\n'));
    const subject = /^Subject: (.*)$/m.exec(head)![1]!;
    expect(subject).toMatch(/^Your hrx verification code: [0-9]{6}$/);
    expect(head).not.toContain('555');
    expect(head).not.toContain('Payroll');
    const lines = mail!.text.trimEnd().split(/\r?\n/);
    expect(lines.slice(0, 4).join('\n')).not.toMatch(/555|Payroll|Phish/);
    expect(lines[0]).toBe(`Your verification code is ${subject.slice(-6)}. It is good for 10 minutes, on the page where you asked for it.`);
    // The name is quoted as one JSON string on one line: its newline cannot start a line of its own.
    expect(lines).toContain(
      'The link came from Phish Lender. The organisation name given by Phish Lender (not checked by Limit Ops): "Payroll locked - call +1-555-0100 now ref 1\\nURGENT: call +1-555-0100"',
    );
    expect(lines.filter((l) => l.includes('555'))).toHaveLength(1);
    expect(lines.at(-1)).toBe('Sent by Limit Ops, which runs this hrx service.');
  });
});
