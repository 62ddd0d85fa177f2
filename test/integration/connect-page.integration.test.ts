/**
 * The Connect page (decisions §8) as an HR admin uses it, in a real Chromium driven by
 * playwright-core: the vendor name shown escaped, the requested data points, wrong HRMS
 * credentials refused on the page, right ones accepted (against the reference simulator), one
 * optional point ticked, approve, and the connection then shares exactly what was chosen. No
 * script error, nothing blocked by the page's CSP.
 *
 * Needs a Chromium binary (`HRX_TEST_CHROMIUM`, default /usr/bin/chromium; Debian package
 * `chromium`); where there is none the file is skipped and says so.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vendor } from '../support/factories';
import { startSim, startTestApp, type TestApp } from '../support/harness';

const CHROMIUM = process.env.HRX_TEST_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`connect-page test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set HRX_TEST_CHROMIUM)`);

describe.skipIf(!haveChromium)('the Connect page in Chromium', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  let browser: Browser;
  const creds = { clientId: 'page-client', clientSecret: 'page-secret' };

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    sim = await startSim({ employees: 12, ...creds });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
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
      email: 'hr@acme-page.example', org_name: 'Acme Page', fullname: 'Asha Rao',
      data_model_flags: { detail_info_fields: { gender: -1, dob: 1, pan: 1 } },
    });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (/Content Security Policy|Refused/i.test(m.text())) problems.push(m.text()); });

    await page.goto(`${app.url}/connect?token=${encodeURIComponent(token.access_token)}`);
    await page.waitForSelector('#decide:not([hidden])');
    expect(await page.textContent('h1')).toBe('Lender <b>&</b> Co asks for employee data of Acme Page');
    expect(await page.$$('h1 b')).toHaveLength(0);
    expect(await page.textContent('#user')).toBe('Asha Rao <hr@acme-page.example>');
    expect(await page.$$eval('#required li', (li) => li.map((x) => x.textContent))).toEqual(['gender']);
    expect(await page.$$eval('input[name=optional]', (b) => b.map((x) => (x as unknown as { value: string }).value))).toEqual(['dob', 'pan']);
    expect(await page.isDisabled('#approve')).toBe(true);

    await page.fill('#hrms_host', sim.url);
    await page.fill('#client_id', creds.clientId);
    await page.fill('#client_secret', 'wrong');
    await page.click('#hrms-form [type=submit]');
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toMatch(/^HRMS credentials rejected: /);
    expect(await page.isDisabled('#approve')).toBe(true);

    await page.fill('#client_secret', creds.clientSecret);
    await page.click('#hrms-form [type=submit]');
    await page.waitForSelector('#approve:not([disabled])');
    expect(await page.inputValue('#client_secret')).toBe('');

    await page.check('input[name=optional][value=pan]');
    await page.click('#approve');
    await page.waitForSelector('#status.ok >> text=Approved');
    expect(await page.textContent('#status')).toBe('Approved. Shared: gender, pan');

    const [c] = (await app.ctx.pool.query('select status, shared_data_points, not_shared_data_points from connections where vendor_org_id = $1', [v.org.id])).rows;
    expect(c).toEqual({ status: 'approved', shared_data_points: ['gender', 'pan'], not_shared_data_points: ['dob'] });
    expect(problems).toEqual([]);
  });
});
