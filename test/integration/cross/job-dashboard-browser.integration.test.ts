/**
 * The job dashboard (`/admin/queues`, docs/operations.md "The job dashboard: `/admin/queues`") in
 * a real Chromium, as an operator opens it: one Basic login (its session cookie handed to the
 * browser), then the page loads every asset it asks for from hrx, translations included (no
 * request fails, none leaves hrx), shows labels rather than their raw i18n keys (`MENU.QUEUES`),
 * and is readable on a desktop and on a 390×844 phone (axe's color-contrast rule, 4.5:1 for text).
 * The login spends no failed-authentication budget. A translation that fails to load is caught:
 * the raw keys then show, and the check below says so (the check checked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { Browser, Page } from 'playwright-core';
import { axe, haveChromium, launchBrowser, VIEWPORTS, type ViewportName } from '../../support/browser';
import { call, REDIS_URL, startTestApp, type TestApp } from '../../support/harness';

const SHOTS = process.env.HRX_TEST_SHOTS_DIR;

let app: TestApp;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  if (!haveChromium) return;
  app = await startTestApp({ worker: false });
  browser = await launchBrowser();
  const login = await call(`${app.url}/admin/queues`, {
    headers: { authorization: `Basic ${Buffer.from(`admin:${app.config.HRX_ADMIN_TOKEN}`).toString('base64')}` },
  });
  expect(login.status).toBe(200);
  cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('hrx_admin='))!
    .split(';')[0]!;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** Lines of the page's visible text that are raw i18n keys (`MENU.QUEUES`, `QUEUE.STATUS.ACTIVE`). */
const rawLabels = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const text = (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText;
    return text.split('\n').filter((l) => /^[A-Z]+\.[A-Z_]+/.test(l.trim()));
  });

/**
 * Opens the dashboard at `viewport` with the session cookie; returns the page once the queue list
 * shows, and every request that failed or was answered 400 or more, or went elsewhere than hrx.
 */
async function openDashboard(viewport: ViewportName, opts: { blockLocales?: boolean } = {}): Promise<{ page: Page; failed: string[] }> {
  const origin = new URL(app.url).origin;
  const context = await browser.newContext({ viewport: VIEWPORTS[viewport] });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: `${origin}/admin/queues` }]);
  const page = await context.newPage();
  const failed: string[] = [];
  page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => (r.status() >= 400 ? failed.push(`${r.url()}: ${r.status()}`) : undefined));
  page.on('request', (r) => (new URL(r.url()).origin !== origin ? failed.push(`${r.url()}: not hrx`) : undefined));
  if (opts.blockLocales) await page.route('**/locales/**', (r) => r.abort());
  await page.goto(`${app.url}/admin/queues`);
  await page.getByText(app.ctx.syncQueue.queue.name).first().waitFor({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/job-dashboard-${viewport}${opts.blockLocales ? '-no-locales' : ''}.png`, fullPage: true });
  return { page, failed };
}

describe.skipIf(!haveChromium)('the job dashboard in Chromium', () => {
  for (const viewport of ['desktop', 'phone'] as const) {
    it(`${viewport} (${VIEWPORTS[viewport].width} px): every asset from hrx, labels rendered, text contrast at least 4.5:1`, async () => {
      const { page, failed } = await openDashboard(viewport);
      expect(failed).toEqual([]);
      expect(await rawLabels(page)).toEqual([]);
      expect(await axe(page, ['color-contrast'])).toEqual([]);
      await page.context().close();
    }, 60_000);
  }

  it('the check checked: with the translations blocked, the raw keys show and are found', async () => {
    const { page, failed } = await openDashboard('desktop', { blockLocales: true });
    expect(failed.some((f) => f.includes('/locales/'))).toBe(true);
    expect(await rawLabels(page)).toContain('MENU.QUEUES');
    await page.context().close();
  }, 60_000);

  it("the browser's visits spent no failed-authentication budget (a wrong token, for contrast, does)", async () => {
    const redis = new Redis(REDIS_URL);
    const counters = () => redis.keys(`${app.config.HRX_REDIS_PREFIX}:authfail:*`);
    try {
      expect(await counters()).toEqual([]);
      const wrong = await call(`${app.url}/admin/queues/api/queues`, { headers: { authorization: `Basic ${Buffer.from('admin:wrong').toString('base64')}` } });
      expect(wrong.status).toBe(401);
      expect((await counters()).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
