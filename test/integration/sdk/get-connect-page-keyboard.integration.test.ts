/**
 * The Connect page driven with the keyboard only (docs/connect.md "How the page is checked"), in a real Chromium at
 * 1280×900 and 390×844: a new employer's HR admin reads the notice, asks for the e-mail code and
 * gets it from a real SMTP server, mistypes it, enters it, mistypes the HRMS address and secret,
 * connects the reference HRMS, ticks an optional point, opens and cancels the reject
 * confirmation, approves, and reloads the read-only decision. On every state (e-mail confirmed
 * included): axe-core (WCAG A/AA and best practices) finds nothing, the page has its viewport
 * meta, `<main>`, favicon and operator contact link, reflows at 320 px and has no target under
 * 24×24 px; errors take focus, sit on their field (aria-invalid, aria-describedby) and show in the window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  axe,
  checkState,
  focused,
  haveChromium,
  inputStates,
  inView,
  launchBrowser,
  layoutProblems,
  newPage,
  tabTo,
  type ViewportName,
} from '../../support/browser';
import { dbQuery } from '../../support/db';
import { vendor } from '../../support/factories';
import { startSim, startTestApp, type TestApp } from '../../support/harness';

const FLAGS: Record<string, Record<string, -1 | 0 | 1>> = {
  detail_info_fields: { name: -1, pan: -1, dob: 1, bankDetails_accountNumber: 1 },
  ctc_details_fields: { ctc_basic: 1, monthly_deductions_earlyWageDeduction: 1 },
  dependent_details_fields: { dependentDetails_name: 1 },
};

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let browser: Browser;
const creds = { clientId: 'kb-client', clientSecret: 'kb-secret-41f' };

beforeAll(async () => {
  // Shared by the describe below; it is skipped without Chromium, and so is this setup.
  if (!haveChromium) return;
  app = await startTestApp({ worker: false, env: { HRX_OPERATOR_NAME: 'Example Exchange Ops', HRX_OPERATOR_CONTACT: 'help@ops.example' } });
  sim = await startSim({ employees: 5, ...creds });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await sim?.close();
  await app?.stop();
});

/** Every state checked: no axe violation, no layout problem. */
const clean = async (page: Page, state: string, viewport: ViewportName) => {
  expect(await checkState(page, state, viewport), state).toStrictEqual({ axe: [], layout: [] });
};
const type = async (page: Page, text: string) => {
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
};

/** Review: the notice of docs/connect.md "Data point labels", data points by their labels, grouped, sensitive ones marked. */
async function reviewStep(page: Page, viewport: ViewportName): Promise<void> {
  expect(await page.textContent('h1#heading')).toBe(`Share employee data of Acme KB with Kredit ${viewport}?`);
  expect(await page.textContent('#n-purpose')).toBe('Salary-linked personal loans for your employees.');
  expect(await page.getAttribute('#n-privacy a', 'href')).toBe('https://kredit.example/privacy');
  expect(await page.textContent('#n-operator')).toContain('Example Exchange Ops');
  expect(await page.textContent('#n-withdraw')).toContain('help@ops.example');
  expect(await page.textContent('#n-sync')).toMatch(
    /^The first sync reads your employees from the HRMS as soon as you connect it or approve .*, then once a day\. Kredit \w+ can read nothing before you approve\.$/,
  );
  expect(await page.$$eval('#required h4', (h) => h.map((x) => x.textContent))).toEqual(['Personal details']);
  expect(await page.$$eval('#required li', (li) => li.map((x) => x.textContent))).toEqual(['Full name', 'PAN (Permanent Account Number)Sensitive']);
  expect(await page.$$eval('#optional legend', (l) => l.map((x) => x.textContent))).toEqual([
    'Personal details',
    'Bank account',
    'Annual CTC (cost to company)',
    'Monthly pay',
    'Dependants',
  ]);
  expect(await page.textContent('label[for="dp-monthly_deductions_earlyWageDeduction"]')).toBe('Early wage (salary advance) deduction (monthly pay)');
  expect(await page.textContent('#reach')).toContain('help@ops.example');
  expect(await page.$$eval('.step:not([hidden]) .num', (n) => n.map((x) => x.textContent))).toEqual([
    'Step 1 of 5: ',
    'Step 2 of 5: ',
    'Step 3 of 5: ',
    'Step 4 of 5: ',
    'Step 5 of 5: ',
  ]);
  expect(await page.isDisabled('#approve')).toBe(true);
  await clean(page, 'new-org-review', viewport);
}

/** E-mail code: sent to the token's address, read from the real SMTP server; a wrong one first. */
async function emailStep(page: Page, viewport: ViewportName, email: string): Promise<void> {
  await tabTo(page, '#send-code');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#send-status.ok');
  expect(await inView(page, '#send-status')).toBe(true);
  expect(await focused(page)).toBe('code');
  const code = await app.mailbox!.code(email);
  await clean(page, 'email-code-sent', viewport);
  await page.keyboard.type(code === '000000' ? '111111' : '000000');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#code[aria-invalid=true]');
  expect(await focused(page)).toBe('code');
  expect(await page.getAttribute('#code', 'aria-describedby')).toBe('code-help code-error');
  expect(await page.textContent('#code-error')).toMatch(/^That code is not right\. Check the latest e-mail/);
  expect(await inView(page, '#code-error')).toBe(true);
  expect(await inView(page, '#email-status')).toBe(true);
  await clean(page, 'email-code-wrong', viewport);
  await type(page, code);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#email-done:not([hidden])');
  expect(await focused(page)).toBe('email-done');
  expect(await page.textContent('#email-done')).toBe(`E-mail address confirmed: ${email}.`);
  await clean(page, 'email-confirmed', viewport);
}

/** HRMS: the product by its display name, the address without https:// (added), a wrong secret. */
async function hrmsStep(page: Page, viewport: ViewportName): Promise<void> {
  const names = await page.$$eval('#hrms_id option', (o) => o.map((x) => x.textContent));
  expect(names).toContain('Reference HRMS (test)');
  expect(names).not.toContain('reference');
  await tabTo(page, '#hrms_id');
  await page.keyboard.type('Reference');
  expect(await page.inputValue('#hrms_id')).toBe('reference');
  await tabTo(page, '#hrms_host');
  await page.keyboard.type(sim.url.replace(/^http:\/\//, ''));
  await tabTo(page, '#client_id');
  await page.keyboard.type(creds.clientId);
  await tabTo(page, '#client_secret');
  await page.keyboard.type('wrong-secret');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#hrms_host[aria-invalid=true]');
  expect(await page.inputValue('#hrms_host')).toBe(sim.url.replace(/^http:/, 'https:'));
  expect(await focused(page)).toBe('hrms_host');
  expect(await page.textContent('#hrms_host-error')).toMatch(/^We could not reach Reference HRMS \(test\) at this address/);
  await type(page, sim.url);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#client_secret[aria-invalid=true]');
  expect(await page.getAttribute('#hrms_host', 'aria-invalid')).toBeNull();
  expect(await focused(page)).toBe('client_secret');
  expect(await page.getAttribute('#client_secret', 'aria-describedby')).toBe('client_secret-help client_secret-error');
  expect(await page.textContent('#client_secret-error')).toBe('Reference HRMS (test) did not accept these details. Check the client secret, then try again.');
  expect(await inView(page, '#client_secret-error')).toBe(true);
  expect(await inView(page, '#hrms-status')).toBe(true);
  await clean(page, 'hrms-error', viewport);
  await type(page, creds.clientSecret);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#hrms-done:not([hidden])');
  expect(await page.isHidden('#hrms-form')).toBe(true);
  expect(await page.textContent('#hrms-done-text')).toBe('Connected to Reference HRMS (test) (change)');
  expect(await focused(page)).toBe('hrms-done-text');
  expect(await page.isEnabled('#approve')).toBe(true);
  // "(change)" says how the HRMS can be changed: this page never replaces an org's configuration (docs/connect.md "Reference: the SDK token and the Connect endpoints").
  await tabTo(page, '#hrms-change');
  await page.keyboard.press('Enter');
  expect(await page.getAttribute('#hrms-change', 'aria-expanded')).toBe('true');
  expect(await page.textContent('#hrms-change-info')).toMatch(/^hrx keeps the HRMS first set up for Acme KB; this page cannot replace it\./);
  await clean(page, 'hrms-connected', viewport);
}

describe.skipIf(!haveChromium)('the Connect page with the keyboard only', () => {
  it('the checks can fail: a page with the faults they look for', async () => {
    const { page } = await newPage(browser, 'phone');
    await page.setContent(`<html><body><div style="width:900px"><img src="x.png"><button style="width:10px;height:10px"></button>
      <input type="checkbox"><a href="#">x</a></div></body></html>`);
    expect((await axe(page)).map((v) => v.id)).toEqual(
      expect.arrayContaining(['html-has-lang', 'image-alt', 'button-name', 'label', 'landmark-one-main', 'target-size']),
    );
    expect(await layoutProblems(page)).toEqual(
      expect.arrayContaining([
        'no viewport meta',
        'not exactly one <main>',
        'no favicon',
        'no way to reach the operator',
        expect.stringMatching(/^sideways scroll/),
        'small target input#: 13×13',
        expect.stringMatching(/^small target button#: \d+×10$/),
      ]),
    );
    await page.context().close();
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`a new employer, from the link to a read-only approval (${viewport})`, async () => {
      const v = await vendor(app.ctx, `Kredit ${viewport}`);
      await app.ctx.services.orgs.updateNotice(v.org.uuid, {
        purpose: 'Salary-linked personal loans for your employees.',
        privacyUrl: 'https://kredit.example/privacy',
      });
      const email = `hr@acme-kb-${viewport}.example`;
      const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
      const token = await app.ctx.services.sdk.issueToken(principal, { email, org_name: 'Acme KB', fullname: 'Asha Rao', data_model_flags: FLAGS });
      const { page, problems } = await newPage(browser, viewport);
      await page.goto(`${app.url}/connect#token=${encodeURIComponent(token.access_token)}`);
      await page.waitForSelector('#main:not([hidden])');

      await reviewStep(page, viewport);
      await emailStep(page, viewport, email);
      await hrmsStep(page, viewport);

      // One optional point, then reject asked and cancelled, then approve.
      await tabTo(page, '#dp-bankDetails_accountNumber');
      await page.keyboard.press('Space');
      await tabTo(page, '#reject');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#reject-confirm:not([hidden])');
      expect(await focused(page)).toBe('reject-no');
      await clean(page, 'reject-confirm', viewport);
      await page.keyboard.press('Enter');
      expect(await focused(page)).toBe('reject');
      await tabTo(page, '#approve', { back: true });
      await page.keyboard.press('Enter');
      await page.waitForSelector('#outcome:not([hidden])');
      expect(await page.textContent('h1#heading')).toBe(`You approved Kredit ${viewport}'s request`);
      expect(await focused(page)).toBe('heading');
      const row = (await dbQuery(app, 'select status, shared_data_points from connections where vendor_org_id = $1', [v.org.id])).rows[0];
      expect(row).toEqual({ status: 'approved', shared_data_points: ['name', 'pan', 'bankDetails_accountNumber'] });

      // The decision, read-only, also after a reload: shared points checked and disabled, the date shown.
      for (const state of ['approved', 'approved-reloaded']) {
        if (state === 'approved-reloaded') {
          await page.reload();
          await page.waitForSelector('#outcome:not([hidden])');
        }
        expect(await page.textContent('#outcome-text')).toMatch(/^Approved on \d{1,2} \w+ 20\d\d.* receives the 3 data points ticked below/);
        const boxes = await inputStates(page, '#optional input');
        expect(
          boxes
            .filter((b) => b.checked)
            .map((b) => b.name)
            .sort(),
        ).toEqual(['bankDetails_accountNumber', 'name', 'pan']);
        expect(boxes.every((b) => b.disabled)).toBe(true);
        expect(await page.isHidden('#step-decide')).toBe(true);
        await clean(page, state, viewport);
      }
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }
});
