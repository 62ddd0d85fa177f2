/**
 * A real Chromium for the Connect page's tests (playwright-core driving the machine's Chromium),
 * with what those tests check on every state of the page: axe-core (from npm) with WCAG 2.x A/AA
 * and best-practice rules, the page's structure (viewport meta, one `<main>`, a favicon, the
 * operator's contact), reflow at 320 px without sideways scroll, touch targets of at least
 * 24×24 px; and keyboard-only driving (`tabTo`).
 *
 * `HRX_TEST_CHROMIUM` names the browser (default /usr/bin/chromium); without one the tests skip
 * and say so, unless `HRX_REQUIRE_CHROMIUM=1` (CI): then they fail. With `HRX_TEST_SHOTS_DIR`, every checked state is also saved there as PNGs (the window, the whole page), and
 * its axe result in `axe-results.jsonl`, for a person to look at.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.HRX_TEST_CHROMIUM ?? '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
/** CI sets `HRX_REQUIRE_CHROMIUM=1` (.ci/run): there a missing Chromium fails the browser tests instead of skipping them. */
const required = process.env.HRX_REQUIRE_CHROMIUM === '1';
const MISSING = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set HRX_TEST_CHROMIUM)`;
/**
 * Whether the browser test files run: a Chromium is there, or CI requires one (then
 * `launchBrowser` fails with `MISSING`, so each file's `beforeAll` fails and says why).
 */
export const haveChromium = found || required;
if (!found && !required) console.warn(`Connect page browser tests skipped: ${MISSING}`);

/** The sizes of docs/connect.md "How the page is checked": a desktop window and a phone. */
export const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
export type ViewportName = keyof typeof VIEWPORTS;

const SHOTS = process.env.HRX_TEST_SHOTS_DIR;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** WCAG 2.0–2.2 A and AA, and axe's best practices. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'];

/**
 * The few DOM members the in-page checks use, typed here: the project compiles without the DOM
 * lib (it clashes with Node's types), and these functions run in the page.
 */
interface DomElement {
  id: string;
  tagName: string;
  textContent: string | null;
  value: string;
  checked: boolean;
  disabled: boolean;
  matches(selector: string): boolean;
  getBoundingClientRect(): { width: number; height: number; top: number; bottom: number; left: number; right: number };
}
interface DomDocument {
  activeElement: DomElement | null;
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement> & { length: number };
}
type PageGlobals = { document?: DomDocument; innerHeight?: number; innerWidth?: number; axe?: unknown };

/** Launches the Chromium; throws a clear error when CI requires one and there is none. */
export function launchBrowser(): Promise<Browser> {
  if (!found) return Promise.reject(new Error(`HRX_REQUIRE_CHROMIUM=1 but ${MISSING}: the Connect page browser tests cannot run`));
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** A new page at `viewport`, collecting script errors and CSP refusals into `problems`. */
export async function newPage(browser: Browser, viewport: ViewportName): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'en-IN', timezoneId: 'Asia/Kolkata' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused|TrustedHTML|Trusted Type/i.test(m.text())) problems.push(m.text());
  });
  return { page, problems };
}

/** One axe violation: rule, impact and the selectors of its nodes. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: string[];
}

/**
 * Runs axe-core in the page (injected through the DevTools protocol, so the page's CSP stays as
 * served): the WCAG A/AA and best-practice rules, or only the axe rules `rules` names.
 */
export async function axe(page: Page, rules?: string[]): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: AXE_TAGS };
  return page.evaluate(async (only) => {
    type Axe = { run(ctx: unknown, o: unknown): Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> };
    const g = globalThis as PageGlobals & { axe?: Axe };
    const r = await g.axe!.run(g.document, { runOnly: only, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  }, runOnly);
}

/**
 * What the page's structure and layout get wrong at the current viewport: no viewport meta, not
 * exactly one `<main>`, no favicon, no operator contact, sideways scroll, a visible control
 * smaller than 24×24 px.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const document = (globalThis as PageGlobals).document!;
    const out: string[] = [];
    if (!document.querySelector('meta[name=viewport][content*="width=device-width"]')) out.push('no viewport meta');
    if (document.querySelectorAll('main').length !== 1) out.push('not exactly one <main>');
    if (!document.querySelector('link[rel~=icon][href]')) out.push('no favicon');
    if (!document.querySelector('footer #operator-contact[href]')) out.push('no way to reach the operator');
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) out.push(`sideways scroll: ${root.scrollWidth} > ${root.clientWidth}`);
    for (const e of document.querySelectorAll('a, button, input, select, textarea, summary')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.width < 24 || r.height < 24) out.push(`small target ${e.tagName.toLowerCase()}#${e.id}: ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out;
  });
}

/** Whether `selector`'s box lies wholly inside the window (seen without scrolling), to half a pixel. */
export function inView(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (e) => {
    const g = globalThis as PageGlobals;
    const r = e.getBoundingClientRect();
    // Half a pixel either way: layout positions are fractional, the window is not.
    return r.height > 0 && r.top >= -0.5 && r.bottom <= g.innerHeight! + 0.5 && r.left >= -0.5 && r.right <= g.innerWidth! + 0.5;
  });
}

/** Presses Tab (or Shift+Tab) until keyboard focus is on `selector`; throws when it never gets there. */
export async function tabTo(page: Page, selector: string, opts: { back?: boolean; max?: number } = {}): Promise<void> {
  for (let i = 0; i < (opts.max ?? 80); i++) {
    if (await page.evaluate((sel) => (globalThis as PageGlobals).document!.activeElement?.matches(sel) ?? false, selector)) return;
    await page.keyboard.press(opts.back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`keyboard focus never reached ${selector}`);
}

/** The id (or tag) of the focused element. */
export const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const active = (globalThis as PageGlobals).document!.activeElement;
    return active?.id || active?.tagName || '';
  });

/** The checkboxes (or other inputs) of `selector`: value, checked, disabled. */
export const inputStates = (page: Page, selector: string): Promise<{ name: string; checked: boolean; disabled: boolean }[]> =>
  page.evaluate(
    (sel) => [...(globalThis as PageGlobals).document!.querySelectorAll(sel)].map((i) => ({ name: i.value, checked: i.checked, disabled: i.disabled })),
    selector,
  );

/**
 * Checks one state of the page: axe, structure and layout at its viewport and at 320 px wide;
 * saves a full-page screenshot and the axe result when `HRX_TEST_SHOTS_DIR` is set. Returns
 * every problem found (the caller expects none).
 */
export async function checkState(page: Page, state: string, viewport: ViewportName): Promise<{ axe: AxeViolation[]; layout: string[] }> {
  const violations = await axe(page);
  const layout = await layoutProblems(page);
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 320, height: size.height });
  layout.push(...(await layoutProblems(page)).map((p) => `at 320 px: ${p}`));
  await page.setViewportSize(size);
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    // What the window shows at that moment, and the whole page.
    await page.screenshot({ path: path.join(SHOTS, `${state}-${viewport}-window.png`) });
    await page.screenshot({ path: path.join(SHOTS, `${state}-${viewport}-full.png`), fullPage: true });
    appendFileSync(path.join(SHOTS, 'axe-results.jsonl'), JSON.stringify({ state, viewport, violations, layout }) + '\n');
  }
  return { axe: violations, layout };
}
