/**
 * The Connect page in "update credentials" mode (docs/connect.md "Updating refused
 * credentials"), in a real Chromium at 1280×900 and 390×844: the employer's HRMS password
 * changed, a real sync was refused (`needs_reauth`), and a vendor's new token opens the page. It
 * says which HRMS refused and when, asks for the application key and secret (a wrong pair is
 * refused on its field), then the new details: an HRMS that answers 503 is "try again later",
 * not a wrong password; wrong details are refused on the secret; right ones replace the stored
 * ones and the page says so; the sync that follows makes the org healthy. axe-core finds nothing
 * and the layout checks pass in every state.
 *
 * Needs a Chromium binary (test/support/browser.ts): skipped without one unless `HRX_REQUIRE_CHROMIUM=1`.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkState, haveChromium, launchBrowser, newPage, VIEWPORTS, type ViewportName } from '../../support/browser';
import { ormQuery } from '../../support/db';
import { client, connection, sdkToken, vendor } from '../../support/factories';
import { startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';
import { needsReauth, NEW, storedSecret } from '../../support/reauth';

let app: TestApp;
let rx: Receiver;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  app = await startTestApp({ env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100,200', HRX_HRMS_RETRIES: '0' } });
  await app.startEventsWorker();
  rx = await startReceiver();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await rx?.close();
  await app?.stop();
});

const clean = async (page: Page, state: string, viewport: ViewportName) => {
  expect(await checkState(page, state, viewport), state).toStrictEqual({ axe: [], layout: [] });
};

describe.skipIf(!haveChromium)('GET /connect in update-credentials mode', () => {
  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`at ${viewport}: proof (b), then the new details replace the refused ones and the next sync makes the org healthy`, async () => {
      const v = await vendor(app.ctx, `Lender ${viewport}`);
      const c = await client(app.ctx, `Acme Reauth ${viewport}`, `acme-reauth-${viewport}.example`);
      await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url(`/${viewport}`) });
      await connection(app.ctx, v.org.uuid, c.org.uuid);
      const { sim, refusedAt } = await needsReauth(app, rx, `/${viewport}`, v, c, `page-${viewport}`);
      try {
        const token = await sdkToken(app.ctx, v.org, { email: `hr@acme-reauth-${viewport}.example`, org_name: 'ignored' });
        const { page, problems } = await newPage(browser, viewport);
        await page.goto(`${app.url}/connect#token=${encodeURIComponent(token.access_token)}`);
        await page.waitForSelector('#proof-form:not([hidden])');

        // Which HRMS refused, and when (as the page's own locale writes the time).
        const org = `Acme Reauth ${viewport}`;
        expect(await page.textContent('h1#heading')).toBe(`Update the Reference HRMS (test) details of ${org}`);
        const when = await page.evaluate((iso) => new Date(iso).toLocaleString('en-IN', { dateStyle: 'long', timeStyle: 'short' }), refusedAt);
        expect(await page.textContent('#lede')).toContain(`Reference HRMS (test) refused the details hrx had stored for ${org} on ${when}`);
        expect(await page.isHidden('#hrms-form')).toBe(true);
        expect(await page.isHidden('#step-decide')).toBe(true);
        await clean(page, 'reauth-proof', viewport);

        // Proof (b): a wrong pair first.
        await page.fill('#app_key', c.org.appKey);
        await page.fill('#app_secret', 'not-the-secret');
        await page.click('#proof-submit');
        await page.waitForSelector('#app_key[aria-invalid=true]');
        expect(await page.textContent('#app_key-error')).toContain(`do not belong to ${org}`);
        await page.fill('#app_secret', c.appSecret);
        await page.click('#proof-submit');
        await page.waitForSelector('#hrms-form:not([hidden])');
        expect(await page.textContent('#hrms-title')).toBe('Enter the new Reference HRMS (test) details');
        expect(await page.isDisabled('#hrms_id')).toBe(true);
        await clean(page, 'reauth-form', viewport);

        // The HRMS is down: not a wrong password.
        sim.control.set({ rate5xx: 1 });
        await page.fill('#hrms_host', sim.url);
        await page.fill('#client_id', NEW.clientId);
        await page.fill('#client_secret', NEW.clientSecret);
        await page.click('#hrms-submit');
        await page.waitForSelector('#hrms_host[aria-invalid=true]');
        const down = await page.textContent('#hrms_host-error');
        expect(down).toMatch(
          /^Reference HRMS \(test\) could not check these details just now \(it answered 50[03] [A-Za-z ]+\)\. .*try again in a few minutes\.$/,
        );
        expect(down).not.toContain('did not accept');
        sim.control.set({ rate5xx: 0 });

        // Wrong details, then the right ones.
        await page.fill('#client_secret', 'still-wrong');
        await page.click('#hrms-submit');
        await page.waitForSelector('#client_secret[aria-invalid=true]');
        expect(await page.textContent('#client_secret-error')).toContain('did not accept these details');
        await clean(page, 'reauth-refused', viewport);
        await page.fill('#client_secret', NEW.clientSecret);
        await page.click('#hrms-submit');
        await page.waitForFunction(() => (globalThis as unknown as { document: { title: string } }).document.title.endsWith('are updated'));
        expect(await page.textContent('h1#heading')).toBe(`The Reference HRMS (test) details of ${org} are updated`);
        expect(await page.textContent('#lede')).toContain('The sync of');
        await clean(page, 'reauth-saved', viewport);
        expect(problems).toEqual([]);

        expect(await storedSecret(app, c.org.id)).toBe(NEW.clientSecret);
        await rx.waitForCount(`/${viewport}`, 1, 'connection.healthy', 60_000);
        await waitFor(async () => (await ormQuery(app, `select 1 from org_health where org_id = ? and state = 'healthy'`, [c.org.id])).length > 0, 30_000);
      } finally {
        await sim.close();
      }
    }, 120_000);
  }
});
