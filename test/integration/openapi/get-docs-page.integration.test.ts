/**
 * `GET /docs` (src/openapi/routes.ts, assets.ts): the API reference page, rendered by Swagger UI
 * from files hrx serves itself out of node_modules, under a CSP that allows this origin only.
 * In a real Chromium (where there is one: `HRX_TEST_CHROMIUM`, default /usr/bin/chromium;
 * skipped, saying so, otherwise) the page lists every operation of the document, with nothing
 * blocked by the CSP, no script error, and no request leaving the service's origin.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT } from '../../support/api-client';
import { call, startTestApp, type TestApp } from '../../support/harness';

const CHROMIUM = process.env.HRX_TEST_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`docs-page browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set HRX_TEST_CHROMIUM)`);
const OPERATIONS = Object.values(DOCUMENT.paths).reduce((n, item) => n + Object.keys(item).length, 0);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_BASE_PATH: '/sandbox' } });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /docs', () => {
  it('serves the page with a same-origin-only CSP, and its assets from node_modules', async () => {
    const page = await call(`${app.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-|https?:/);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'start.js']) expect(page.body).toContain(`/sandbox/docs/assets/${asset}`);
    expect(page.body).not.toMatch(/https?:\/\//);

    const bundle = await fetch(`${app.url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await bundle.text()).length).toBeGreaterThan(500_000);
    const start = await (await fetch(`${app.url}/docs/assets/start.js`)).text();
    expect(start).toContain('"url":"/sandbox/openapi.json"');
    expect(start).toContain('"validatorUrl":null');
  });

  it('serves nothing else of the package', async () => {
    for (const name of ['package.json', 'index.html', '../package.json', '..%2F..%2Fpackage.json', 'swagger-ui-bundle.js.map', '']) {
      const res = await fetch(`${app.url}/docs/assets/${name}`);
      expect(res.status, name).toBe(404);
      await res.text();
    }
  });
});

describe.skipIf(!haveChromium)('the docs page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists every operation, with nothing blocked and nothing fetched from elsewhere', async () => {
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith('data:')) origins.add(new URL(r.url()).origin);
    });
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${app.url}/docs`);
    await page.waitForSelector('.opblock-summary', { timeout: 30_000 });
    expect(await page.locator('.opblock').count()).toBe(OPERATIONS);
    expect(await page.locator('.title').first().textContent()).toContain('hrx');
    await page.screenshot({ path: `${process.env.HRX_TEST_SCREENSHOT_DIR ?? '/tmp'}/hrx-docs-page.png` });
    expect(problems).toEqual([]);
    expect([...origins]).toEqual([new URL(app.url).origin]);
  });
});
