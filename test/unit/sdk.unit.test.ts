/**
 * Pure parts of the SDK token and Connect flow: escaping and headers of the Connect page, the
 * common-domain configuration, and the split of data_model_flags into required and optional.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_COMMON_EMAIL_DOMAINS, loadConfig, operatorContact } from '../../src/config';
import { requestSplit } from '../../src/connections/requested-points';
import { ALL_DATA_POINTS } from '../../src/domain/data-points';
import { escapeHtml, pageHeaders, renderConnectPage } from '../../src/sdk/page';

describe('Connect page', () => {
  it('escapes every character that can leave a text or attribute context', () => {
    expect(escapeHtml(`<img src=x onerror="a('b')">&\``)).toBe('&#60;img src=x onerror=&#34;a(&#39;b&#39;)&#34;&#62;&#38;&#96;');
    expect(escapeHtml('Acme Pvt. Ltd.')).toBe('Acme Pvt. Ltd.');
  });

  it('renders only the escaped API path server-side (names come through textContent), with a fresh nonce per page', () => {
    const operator = { name: 'Ops & <b>Co</b>', contact: null };
    const a = renderConnectPage({ apiBase: '/sandbox/api/sdk/connect', operator });
    const b = renderConnectPage({ apiBase: '/x"><script>alert(1)</script>', operator });
    expect(a.html).toContain('data-api="/sandbox/api/sdk/connect"');
    expect(b.html).not.toContain('<script>alert(1)');
    expect(b.html).toContain('data-api="/x&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
    expect(a.html.match(/<script/g)).toHaveLength(1);
    // The token is read from the fragment and dropped from the address bar; never sent as a header.
    expect(a.html).toContain('location.hash');
    expect(a.html).toContain('history.replaceState');
    expect(a.html).toMatch(/credentials: ["']same-origin["']/);
    expect(a.html).not.toMatch(/authorization|location\.search\)\.get/i);
    expect(a.nonce).not.toBe(b.nonce);
    // The operator's name (configuration) is the only other server-rendered text, escaped.
    expect(a.html).toContain('run by Ops &#38; &#60;b&#62;Co&#60;/b&#62;');
    expect(a.html).not.toContain('<b>Co');
    expect(Buffer.from(a.nonce, 'base64')).toHaveLength(16);
  });

  it("links the operator's contact: mailto: for an address, the https URL as it is; a favicon, the viewport meta and one <main>", () => {
    const mail = renderConnectPage({ apiBase: '/api/sdk/connect', operator: { name: 'Ops', contact: 'help@ops.example' } }).html;
    expect(mail).toContain('<a id="operator-contact" href="mailto:help@ops.example">help@ops.example</a>');
    const web = renderConnectPage({ apiBase: '/api/sdk/connect', operator: { name: 'Ops', contact: 'https://ops.example/help?a=1&b=2' } }).html;
    expect(web).toContain('href="https://ops.example/help?a=1&#38;b=2"');
    // Nothing configured (dev): still a link, to the site the page came from (the script shows its origin).
    const none = renderConnectPage({ apiBase: '/api/sdk/connect', operator: { name: 'Ops', contact: null } }).html;
    expect(none).toContain('Contact Ops: <a id="operator-contact" href="/" data-origin="1">this site</a>.');
    const site = renderConnectPage({ apiBase: '/api/sdk/connect', operator: { name: 'Ops', contact: 'http://localhost:8080' } }).html;
    expect(site).toContain('<a id="operator-contact" href="http://localhost:8080">http://localhost:8080</a>');
    for (const html of [mail, web, none]) {
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(html.match(/<main>/g)).toHaveLength(1);
      expect(html).toMatch(/<link rel="icon" type="image\/svg\+xml" href="data:image\/svg\+xml,/);
    }
  });

  it('sends a CSP that allows only the nonce, same-origin fetches and the configured framing', () => {
    expect(pageHeaders('n0nce', "'none'")).toStrictEqual({
      'content-security-policy':
        "default-src 'none'; script-src 'nonce-n0nce'; style-src 'nonce-n0nce'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
    const framed = pageHeaders('n', 'https://app.lender.example');
    expect(framed['content-security-policy']).toContain('frame-ancestors https://app.lender.example;');
    expect(framed['x-frame-options']).toBeUndefined();
  });
});

describe('configuration', () => {
  it('defaults the common e-mail domains to the list of docs/connect.md "E-mail verification before an organisation is set up" and takes a replacement', () => {
    expect(loadConfig({}).HRX_COMMON_EMAIL_DOMAINS).toStrictEqual([...DEFAULT_COMMON_EMAIL_DOMAINS]);
    expect(DEFAULT_COMMON_EMAIL_DOMAINS).toHaveLength(19);
    expect(loadConfig({ HRX_COMMON_EMAIL_DOMAINS: ' Gmail.com , ,example.org' }).HRX_COMMON_EMAIL_DOMAINS).toStrictEqual(['gmail.com', 'example.org']);
  });

  it('refuses a frame-ancestors value that could inject CSP directives', () => {
    expect(loadConfig({}).HRX_CONNECT_FRAME_ANCESTORS).toBe("'none'");
    expect(() => loadConfig({ HRX_CONNECT_FRAME_ANCESTORS: "*; script-src 'unsafe-inline'" })).toThrow(ConfigError);
  });

  it("always offers a way to reach the operator: HRX_OPERATOR_CONTACT, else HRX_SMTP_FROM's address, else HRX_PUBLIC_URL's origin", () => {
    const smtp = { HRX_SMTP_URL: 'smtp://smtp.example:25', HRX_SMTP_FROM: 'hrx <no-reply@hrx.example>' };
    const site = { HRX_PUBLIC_URL: 'https://hrx.example:8443/base/path?x=1' };
    expect(operatorContact(loadConfig({ HRX_OPERATOR_CONTACT: 'help@ops.example', ...smtp, ...site }))).toBe('help@ops.example');
    expect(operatorContact(loadConfig({ ...smtp, ...site }))).toBe('no-reply@hrx.example');
    expect(operatorContact(loadConfig({ HRX_SMTP_FROM: 'desk@ops.example', ...site }))).toBe('desk@ops.example');
    expect(operatorContact(loadConfig(site))).toBe('https://hrx.example:8443');
    // Nothing set: the config still loads (dev); the page then links its own origin.
    expect(operatorContact(loadConfig({}))).toBeNull();
  });

  it('validates the SMTP and operator settings once, never echoing a password', () => {
    const c = loadConfig({
      HRX_SMTP_URL: 'smtps://mailer:s3cret@smtp.example:465',
      HRX_SMTP_FROM: 'hrx <no-reply@hrx.example>',
      HRX_OPERATOR_CONTACT: 'help@ops.example',
    });
    expect([c.HRX_SMTP_URL, c.HRX_SMTP_FROM, c.HRX_OPERATOR_NAME, c.HRX_OPERATOR_CONTACT]).toStrictEqual([
      'smtps://mailer:s3cret@smtp.example:465',
      'hrx <no-reply@hrx.example>',
      'the operator of this service',
      'help@ops.example',
    ]);
    expect(loadConfig({}).HRX_SMTP_URL).toBeUndefined();
    expect(loadConfig({ HRX_OPERATOR_CONTACT: 'https://ops.example/help' }).HRX_OPERATOR_CONTACT).toBe('https://ops.example/help');
    const refused: [Record<string, string>, string][] = [
      [{ HRX_SMTP_URL: 'smtp://smtp.example:25' }, 'Invalid configuration: HRX_SMTP_FROM is required when HRX_SMTP_URL is set'],
      [{ HRX_SMTP_URL: 'http://u:s3cret@smtp.example' }, 'Invalid configuration: HRX_SMTP_URL must be an smtp:// or smtps:// URL'],
      [{ HRX_SMTP_FROM: 'nobody' }, 'Invalid configuration: HRX_SMTP_FROM must be an e-mail address or Name <address>'],
      [{ HRX_OPERATOR_CONTACT: 'javascript:alert(1)' }, 'Invalid configuration: HRX_OPERATOR_CONTACT must be an e-mail address or an https:// URL'],
    ];
    for (const [env, message] of refused) {
      expect(() => loadConfig(env)).toThrow(message);
      try {
        loadConfig(env);
      } catch (err) {
        expect(String(err)).not.toContain('s3cret');
      }
    }
  });
});

describe('requestSplit', () => {
  it('splits flags into required and optional points in record order; none: all optional', () => {
    expect(requestSplit({ ctc_details_fields: { ctc_basic: 1, monthly_year: -1 }, detail_info_fields: { pan: -1, dob: 1, gender: 0 } })).toStrictEqual({
      required: ['pan', 'monthly_year'],
      optional: ['dob', 'ctc_basic'],
    });
    expect(requestSplit(null)).toStrictEqual({ required: [], optional: [...ALL_DATA_POINTS] });
  });
});
