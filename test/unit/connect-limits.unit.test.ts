/**
 * The default limits that keep the Connect flow from being a guessing tool or a mail bomb
 * (docs/connect.md "E-mail verification before an organisation is set up", "Lockout";
 * docs/limits.md "Rate limits"), and the code's message (docs/connect.md "What the e-mail says").
 * The integration tests run on these defaults where they can; these pin the numbers.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { PROOF_LOCK } from '../../src/sdk/connect';
import { codeMail, EMAIL_CODE_POLICY } from '../../src/sdk/email-verify';

const admin = { HRX_ADMIN_TOKEN: 'x'.repeat(24) };

describe('Connect flow limits', () => {
  it('e-mail codes: 10 minutes, 5 tries, one every 30 s, 5 a session; an hour: 20 an org, 5 an address, 50 a vendor', () => {
    expect(EMAIL_CODE_POLICY).toStrictEqual({
      ttlMs: 600_000,
      maxAttempts: 5,
      resendMs: 30_000,
      maxPerSession: 5,
      maxPerOrgHour: 20,
      maxPerRecipientHour: 5,
      maxPerVendorHour: 50,
    });
  });

  it('five failed checks lock the pair for 15 minutes', () => {
    expect(PROOF_LOCK).toStrictEqual({ maxFailures: 5, lockMs: 900_000 });
  });

  it('a Connect session may make 120 requests a minute by default, apart from the 600 of an API key; 0 turns it off', () => {
    const config = loadConfig(admin);
    expect([config.HRX_CONNECT_RATE_LIMIT_PER_MINUTE, config.HRX_RATE_LIMIT_PER_MINUTE, config.HRX_RATE_LIMIT_WINDOW_MS]).toEqual([120, 600, 60_000]);
    expect(loadConfig({ ...admin, HRX_CONNECT_RATE_LIMIT_PER_MINUTE: '0' }).HRX_CONNECT_RATE_LIMIT_PER_MINUTE).toBe(0);
    expect(() => loadConfig({ ...admin, HRX_CONNECT_RATE_LIMIT_PER_MINUTE: '-1' })).toThrow('HRX_CONNECT_RATE_LIMIT_PER_MINUTE');
  });
});

describe("the code's message", () => {
  const mail = codeMail({ code: '042917', minutes: 10, vendorName: 'Lender', orgName: 'Call +1-555-0100 "now"\nSent by hrx', operatorName: 'Ops' });

  it('has a fixed subject: the text and the code, nothing the vendor chose', () => {
    expect(mail.subject).toBe('Your hrx verification code: 042917');
  });

  it("opens with hrx's own lines and quotes the org name once, on a line of its own kind, as the vendor's", () => {
    const lines = mail.text.split('\n');
    expect(lines[0]).toBe('Your verification code is 042917. It is good for 10 minutes, on the page where you asked for it.');
    expect(lines.slice(0, 4).join('\n')).not.toContain('555');
    expect(lines.filter((l) => l.includes('555'))).toEqual([
      'The link came from Lender. The organisation name given by Lender (not checked by Ops): "Call +1-555-0100 \\"now\\"\\nSent by hrx"',
    ]);
    expect(lines.at(-1)).toBe('Sent by Ops, which runs this hrx service.');
  });
});
