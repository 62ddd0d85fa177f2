/**
 * The Connect page (docs/connect.md "Reference: the SDK token and the Connect endpoints") as an HR admin uses it, in a real Chromium driven by
 * playwright-core: the token read from the URL fragment, dropped from the address bar and
 * exchanged once for an HttpOnly, SameSite=Strict cookie; the vendor name shown as text, the
 * requested data points, wrong HRMS credentials refused on the page, right ones accepted
 * (against the reference simulator, after the e-mail code), one optional point ticked, approve, and the connection then
 * shares exactly what was chosen. For an established org, the proof step (app key and secret).
 * An invalid token shows the link-expired text. No script error, nothing blocked by the CSP.
 *
 * Needs a Chromium binary (`HRX_TEST_CHROMIUM`, default /usr/bin/chromium; Debian package
 * `chromium`); where there is none the file is skipped and says so (it fails instead under
 * `HRX_REQUIRE_CHROMIUM=1`, as in CI: test/support/browser.ts).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchBrowser } from '../../support/browser';
import { client, vendor } from '../../support/factories';
import { startSim, startTestApp, type TestApp } from '../../support/harness';
import { dbQuery, storesOf } from '../../support/db';

describe.skipIf(!haveChromium)('the Connect page in Chromium', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  let browser: Browser;
  const creds = { clientId: 'page-client', clientSecret: 'page-secret' };

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    sim = await startSim({ employees: 12, ...creds });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    await app?.stop();
  });

  it('takes the HR admin from the token to an approved connection sharing what was ticked', async () => {
    const v = await vendor(app.ctx, 'Lender <b>&</b> Co');
    const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
    const token = await app.ctx.services.sdk.issueToken(principal, {
      email: 'hr@acme-page.example',
      org_name: 'Acme Page',
      fullname: 'Asha Rao',
      data_model_flags: { detail_info_fields: { gender: -1, dob: 1, pan: 1 } },
    });
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
    });

    await page.goto(`${app.url}/connect#token=${encodeURIComponent(token.access_token)}`);
    await page.waitForSelector('#decide:not([hidden])');
    // The token left the address bar and history; the session is an HttpOnly, SameSite=Strict cookie scripts cannot read.
    expect(page.url()).toBe(`${app.url}/connect`);
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path }))).toEqual([
      { name: 'hrx_connect', httpOnly: true, sameSite: 'Strict', path: '/api/sdk/connect' },
    ]);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.textContent('#main h1')).toBe('Share employee data of Acme Page with Lender <b>&</b> Co?');
    expect(await page.$$('#main b')).toHaveLength(0);
    expect(await page.textContent('#user')).toBe('hr@acme-page.example (named \u201cAsha Rao\u201d by Lender <b>&</b> Co)');
    expect(await page.$$eval('#required li', (li) => li.map((x) => x.textContent))).toEqual(['Gender']);
    expect(await page.$$eval('input[name=optional]', (b) => b.map((x) => (x as unknown as { value: string }).value))).toEqual(['dob', 'pan']);
    expect(await page.isDisabled('#approve')).toBe(true);

    // A new org: the e-mail code first (docs/connect.md "What an e-mail code can set up").
    await page.click('#send-code');
    await page.fill('#code', await app.mailbox!.code('hr@acme-page.example'));
    await page.click('#verify');
    await page.waitForSelector('#email-done:not([hidden])');
    await page.selectOption('#hrms_id', 'reference');
    await page.fill('#hrms_host', sim.url);
    await page.fill('#client_id', creds.clientId);
    await page.fill('#client_secret', 'wrong');
    await page.click('#hrms-form [type=submit]');
    await page.waitForSelector('#hrms-status.error');
    expect(await page.textContent('#client_secret-error')).toBe('Reference HRMS (test) did not accept these details. Check the client secret, then try again.');
    expect(await page.isDisabled('#approve')).toBe(true);

    await page.fill('#client_secret', creds.clientSecret);
    await page.click('#hrms-form [type=submit]');
    await page.waitForSelector('#approve:not([disabled])');
    expect(await page.inputValue('#client_secret')).toBe('');

    await page.check('input[name=optional][value=pan]');
    await page.click('#approve');
    await page.waitForSelector('#outcome:not([hidden])');
    expect(await page.textContent('#outcome-text')).toMatch(
      /^Approved on .*\. Lender <b>&<\/b> Co receives the 2 data points ticked below, and nothing else\.$/,
    );

    const [c] = (await dbQuery(app, 'select status, shared_data_points, not_shared_data_points from connections where vendor_org_id = $1', [v.org.id])).rows;
    expect(c).toEqual({ status: 'approved', shared_data_points: ['gender', 'pan'], not_shared_data_points: ['dob'] });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('an established org: approve stays off until control is proven with the app key and secret', async () => {
    const v = await vendor(app.ctx, 'Lender Two');
    const employer = await client(app.ctx, 'Established Page Co', 'established-page.example');
    await storesOf(app).hrmsConfigs.save({
      orgId: employer.org.id,
      hrmsId: 'reference',
      apiConfigs: [],
      credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, hrms_host: sim.url },
    });
    const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
    const token = await app.ctx.services.sdk.issueToken(principal, {
      email: 'hr@established-page.example',
      org_name: 'established page co',
      fullname: 'Ravi K',
      data_model_flags: { detail_info_fields: { name: -1 } },
    });
    expect(token.org_id).toBe(employer.org.uuid);
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
    });
    await page.goto(`${app.url}/connect#token=${encodeURIComponent(token.access_token)}`);
    await page.waitForSelector('#proof-form:not([hidden])');
    expect(await page.isVisible('#proof-note')).toBe(true);
    expect(await page.isDisabled('#approve')).toBe(true);
    await page.fill('#app_key', employer.org.appKey);
    await page.fill('#app_secret', 'not-the-secret');
    await page.click('#proof-form [type=submit]');
    await page.waitForSelector('#proof-status.error');
    expect(await page.textContent('#app_key-error')).toMatch(/^This key and secret do not belong to Established Page Co\./);
    expect(await page.isDisabled('#approve')).toBe(true);
    await page.fill('#app_secret', employer.appSecret);
    await page.click('#proof-form [type=submit]');
    await page.waitForSelector('#approve:not([disabled])');
    expect(await page.inputValue('#app_secret')).toBe('');
    // A reload keeps the session (the cookie) and its proof; the fragment is gone.
    await page.reload();
    await page.waitForSelector('#approve:not([disabled])');
    await page.click('#approve');
    await page.waitForSelector('#outcome:not([hidden])');
    const [c] = (await dbQuery(app, 'select status from connections where vendor_org_id = $1', [v.org.id])).rows;
    expect(c.status).toBe('approved');
    expect(problems).toEqual([]);
  });

  it('a bad or spent token shows the link-expired text', async () => {
    const v = await vendor(app.ctx, 'Lender Three');
    const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
    const token = await app.ctx.services.sdk.issueToken(principal, { email: 'hr@spent-page.example', org_name: 'Spent', fullname: 'X' });
    // The vendor exchanged it first: the HR admin's page fails, visibly.
    const first = await fetch(`${app.url}/api/sdk/connect/session/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: token.access_token }),
    });
    expect(first.status).toBe(200);
    for (const t of [token.access_token, 'not.a.token']) {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${app.url}/connect#token=${encodeURIComponent(t)}`);
      await page.waitForSelector('#invalid:not([hidden])');
      expect(await page.textContent('#invalid h1')).toBe('This link is invalid or has expired');
      expect(await page.isHidden('#main')).toBe(true);
      await page.context().close();
    }
  });
});
