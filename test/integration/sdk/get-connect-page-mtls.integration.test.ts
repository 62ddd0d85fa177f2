/**
 * The Connect page's multi-line secret fields (src/hrms/product-info.ts `multiline`) in a real
 * Chromium: an HR admin sets up ADP Workforce Now against its simulator serving HTTPS that requires
 * a client certificate (a test CA made with the openssl command line, trusted by this test
 * process only). The certificate and key are text areas keeping their line breaks; a key of
 * another certificate is marked under the key field without quoting it; the right pair is
 * accepted, the key's text area emptied, and the payroll currency is sent as typed.
 *
 * Needs a Chromium binary (test/support/browser.ts); skipped where there is none.
 */
import tls from 'node:tls';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdpWfnSim, type AdpWfnSim } from '../../../src/hrms/adp_wfn/sim';
import { haveChromium, launchBrowser } from '../../support/browser';
import { dbQuery, storesOf } from '../../support/db';
import { vendor } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { makeTestPki, type TestPki } from '../../support/test-pki';

describe.skipIf(!haveChromium)('the Connect page: a client certificate in text areas', () => {
  let app: TestApp;
  let sim: AdpWfnSim;
  let browser: Browser;
  let pki: TestPki;

  beforeAll(async () => {
    pki = makeTestPki();
    // The simulator's CA is trusted by this process only: hrx's own trust stays the system's.
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), pki.ca]);
    app = await startTestApp({ worker: false });
    sim = await startAdpWfnSim({ employees: 5, seed: 'adp-page', throttle: false, tls: { ...pki.server, clientCa: pki.ca } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    await app?.stop();
  });

  it('pastes the certificate and key into text areas; a mismatched key is marked, the right one accepted and emptied', async () => {
    const v = await vendor(app.ctx, 'Lender mTLS');
    const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
    const token = await app.ctx.services.sdk.issueToken(principal, {
      email: 'hr@adp-page.example',
      org_name: 'ADP Page Co',
      fullname: 'Ravi Iyer',
      data_model_flags: { detail_info_fields: { gender: -1 } },
    });
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
    });
    await page.goto(`${app.url}/connect#token=${encodeURIComponent(token.access_token)}`);
    await page.waitForSelector('#decide:not([hidden])');
    await page.click('#send-code');
    await page.fill('#code', await app.mailbox!.code('hr@adp-page.example'));
    await page.click('#verify');
    await page.waitForSelector('#email-done:not([hidden])');

    await page.selectOption('#hrms_id', 'adp_wfn');
    expect(await page.$eval('#tls_client_cert', (e) => e.tagName)).toBe('TEXTAREA');
    expect(await page.$eval('#tls_client_key', (e) => e.tagName)).toBe('TEXTAREA');
    expect(await page.$eval('#payroll_currency', (e) => e.tagName)).toBe('INPUT');
    const { access_credentials: creds } = sim.setup();
    await page.fill('#hrms_host', sim.url);
    await page.fill('#client_id', creds.client_id!);
    await page.fill('#client_secret', creds.client_secret!);
    await page.fill('#tls_client_cert', pki.client.cert);
    await page.fill('#tls_client_key', pki.strayKey);
    await page.fill('#payroll_currency', 'INR');
    await page.click('#hrms-form [type=submit]');
    await page.waitForSelector('#hrms-status.error');
    expect(await page.textContent('#tls_client_key-error')).toBe('Check this value: is not the private key of tls_client_cert.');
    expect(await page.getAttribute('#tls_client_key', 'aria-invalid')).toBe('true');

    await page.fill('#client_secret', creds.client_secret!);
    await page.fill('#tls_client_key', pki.client.key);
    await page.click('#hrms-form [type=submit]');
    await page.waitForSelector('#approve:not([disabled])');
    expect(await page.inputValue('#tls_client_key')).toBe('');
    expect(await page.inputValue('#client_secret')).toBe('');

    // What was stored is what was pasted, line breaks kept (trimmed), with the currency as typed.
    const [row] = (await dbQuery(app, 'select client_org_id from connections where vendor_org_id = $1', [v.org.id])).rows as { client_org_id: number }[];
    const stored = await storesOf(app).hrmsConfigs.load(row!.client_org_id);
    expect(stored?.credentials).toMatchObject({ tls_client_cert: pki.client.cert.trim(), tls_client_key: pki.client.key.trim(), payroll_currency: 'INR' });
    expect(sim.stats().tokenRequests).toBe(1);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
