/**
 * The Connect page's sign-in choice (docs/connect.md "The steps", step 3) in a real Chromium: a
 * product that offers several sign-ins (SAP SuccessFactors: API user and password, or OAuth 2.0
 * with a SAML assertion) asks "Sign-in method" first and its fields follow the choice; the OAuth
 * fields, the private key pasted into its one-line field, connect against the SAP SuccessFactors
 * simulator (switch `oauth`), which gives a token only for an assertion signed with that key. The
 * state passes axe and the layout checks. Needs a Chromium (test/support/browser.ts).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSapSfSim } from '../../../src/hrms/sap_sf/sim';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { checkState, haveChromium, launchBrowser, newPage } from '../../support/browser';
import { dbQuery } from '../../support/db';
import { client, vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';

describe.skipIf(!haveChromium)('the Connect page: a product with several sign-ins', () => {
  let app: TestApp;
  let sim: DialectSim;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    sim = await startSapSfSim({ employees: 5, seed: 'connect-signin', throttle: false, variants: { oauth: true } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    await app?.stop();
  });

  it('SAP SuccessFactors: the sign-in method decides the fields; OAuth with the pasted private key connects', async () => {
    const v = await vendor(app.ctx, 'Signin Lender');
    const c = await client(app.ctx, 'Signin Client', 'signin-client.example');
    const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
    const token = await app.ctx.services.sdk.issueToken(principal, {
      email: 'hr@signin-client.example',
      org_name: 'Signin Client',
      fullname: 'Meera Iyer',
      data_model_flags: { detail_info_fields: { gender: -1 } },
    });
    const { page, problems } = await newPage(browser, 'desktop');
    await page.goto(`${app.url}/connect#token=${encodeURIComponent(token.access_token)}`);
    await page.waitForSelector('#decide:not([hidden])');
    await page.click('#send-code');
    await page.fill('#code', await app.mailbox!.code('hr@signin-client.example'));
    await page.click('#verify');
    await page.waitForSelector('#email-done:not([hidden])');

    const labels = () => page.$$eval('#hrms-fields label', (ls) => ls.map((l) => l.textContent));
    await page.selectOption('#hrms_id', 'reference');
    expect(await page.$$('#hrms-grant')).toHaveLength(0);
    await page.selectOption('#hrms_id', 'sap_sf');
    expect(await page.$$eval('#hrms-grant option', (os) => os.map((o) => o.textContent))).toEqual([
      'API user and password (HTTP Basic)',
      'OAuth 2.0 with a SAML assertion (recommended by SAP)',
    ]);
    expect(await labels()).toEqual(['Sign-in method', 'API server', 'Company ID', 'API user name', 'Password']);
    await page.selectOption('#hrms-grant', 'saml2_bearer');
    expect(await labels()).toEqual(['Sign-in method', 'API server', 'Company ID', 'API Key', 'User ID', 'Private key']);
    expect(await checkState(page, 'signin-oauth', 'desktop')).toEqual({ axe: [], layout: [] });

    const s = sim.setup();
    await page.fill('#hrms_host', sim.url);
    await page.fill('#client_id', s.access_credentials.client_id!);
    await page.fill('#api_configs-oauth-client_id', s.api_configs[0]!.access_credentials.client_id!);
    await page.fill('#api_key', s.access_credentials.api_key!);
    // A one-line field keeps no line breaks: the key arrives on one line and is still read.
    await page.fill('#client_secret', s.access_credentials.client_secret!);
    sim.resetStats();
    await page.click('#hrms-form [type=submit]');
    await page.waitForSelector('#approve:not([disabled])');
    expect(await page.inputValue('#client_secret')).toBe('');
    expect(sim.stats()).toMatchObject({ tokenRequests: 1, authFailures: 0 });
    const [row] = (await dbQuery(app, 'select hrms_id, configured_apis from hrms_configs where org_id = $1', [c.org.id])).rows;
    expect(row).toEqual({ hrms_id: 'sap_sf', configured_apis: ['oauth'] });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
