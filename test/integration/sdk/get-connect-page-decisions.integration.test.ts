/**
 * The Connect page's decisions in a real Chromium (docs/connect.md "How the page is checked"), behind a proxy that
 * counts what reaches the server: a double submit of every step sends one request, each button is
 * disabled and busy while its request runs, with its status beside it in the window; reopening an
 * approved connection from a new link shows the shared points checked and disabled; an established
 * org's admin proves control with the app key and secret (a wrong one first) and rejects after
 * confirming, with the keyboard only; a rejected connection reads as such; five wrong proofs lock
 * approving, and a connection the vendor ends reads as ended; without SMTP a new org's page says
 * the operator must approve, and so does the page of a new org that no code can set up (a gmail
 * address naming it), which also offers the app key and secret; an invalid link is a page of its own. axe-core finds nothing on any
 * of these states, at 1280×900 and 390×844.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { checkState, focused, haveChromium, inputStates, inView, launchBrowser, newPage, tabTo, type ViewportName } from '../../support/browser';
import { startCountingProxy, type CountingProxy } from '../../support/counting-proxy';
import { dbQuery, storesOf } from '../../support/db';
import { client, vendor } from '../../support/factories';
import { startSim, startTestApp, type TestApp } from '../../support/harness';

const API = '/api/sdk/connect';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let browser: Browser;
let proxy: CountingProxy;
const creds = { clientId: 'dec-client', clientSecret: 'dec-secret-93a' };

beforeAll(async () => {
  // Shared by the describes below; they are skipped without Chromium, and so is this setup.
  if (!haveChromium) return;
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 4, ...creds });
  browser = await launchBrowser();
  proxy = await startCountingProxy(app.url);
});
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await sim?.close();
  await app?.stop();
});

const clean = async (page: Page, state: string, viewport: ViewportName) => {
  expect(await checkState(page, state, viewport), state).toStrictEqual({ axe: [], layout: [] });
};
const tokenFor = async (v: Awaited<ReturnType<typeof vendor>>, email: string, orgName: string, flags?: Record<string, Record<string, number>>) => {
  const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
  return (await app.ctx.services.sdk.issueToken(principal, { email, org_name: orgName, fullname: 'Meera S', ...(flags ? { data_model_flags: flags } : {}) }))
    .access_token;
};
const open = async (viewport: ViewportName, token: string) => {
  const { page, problems } = await newPage(browser, viewport);
  await page.goto(`${proxy.url}/connect#token=${encodeURIComponent(token)}`);
  await page.waitForSelector('#main:not([hidden]), #invalid:not([hidden])');
  return { page, problems };
};
/** The data point categories and how many points each has (src/domain/data-point-labels.ts). */
const GROUPS: [string, number][] = [
  ['Personal details', 11],
  ['Contact details and addresses', 14],
  ['Bank account', 3],
  ['Employment', 18],
  ['Annual CTC (cost to company)', 24],
  ['Monthly pay', 33],
  ['Dependants', 7],
];
/** Each data point group of the choose step: its summary's text and whether it is open. */
const groups = (page: Page): Promise<[string, boolean][]> =>
  page.$$eval('#optional details', (ds: any[]) => ds.map((d) => [d.querySelector('summary').textContent, d.open]));
/** While `path` is held back, `selector` is disabled and busy, its status says so beside it; one request reached the server. */
const oneBusyRequest = async (page: Page, selector: string, statusId: string, path: string, act: () => Promise<void>) => {
  proxy.delay(`${API}${path}`, 1200);
  const before = proxy.count(`POST ${API}${path}`);
  await act();
  await page.waitForSelector(`${selector}[aria-busy=true][disabled]`);
  expect(await page.textContent(`#${statusId}`)).toMatch(/…$/);
  expect(await inView(page, `#${statusId}`)).toBe(true);
  await page.waitForSelector(`${selector}:not([aria-busy])`, { state: 'attached' });
  proxy.delay(`${API}${path}`, 0);
  expect(proxy.count(`POST ${API}${path}`) - before).toBe(1);
};

describe.skipIf(!haveChromium)('the Connect page: a double submit and a reopened approval', () => {
  it('a double submit of each step sends one request; a new link to the approved connection shows it read-only', async () => {
    const v = await vendor(app.ctx, 'Double Lender');
    const email = 'hr@double-co.example';
    const flags = { detail_info_fields: { name: -1, dob: 1, aadhar: 1 } };
    const { page, problems } = await open('desktop', await tokenFor(v, email, 'Double Co', flags));
    await oneBusyRequest(page, '#send-code', 'send-status', '/email-code/', () => page.dblclick('#send-code'));
    await page.fill('#code', await app.mailbox!.code(email));
    await oneBusyRequest(page, '#verify', 'email-status', '/verify-email/', async () => {
      await page.focus('#code');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
    });
    await page.waitForSelector('#email-done:not([hidden])');
    await page.selectOption('#hrms_id', 'reference');
    await page.fill('#hrms_host', sim.url);
    await page.fill('#client_id', creds.clientId);
    await page.fill('#client_secret', creds.clientSecret);
    await oneBusyRequest(page, '#hrms-submit', 'hrms-status', '/hrms/', () => page.dblclick('#hrms-submit'));
    await page.waitForSelector('#hrms-done:not([hidden])');
    await page.check('#dp-aadhar');
    await oneBusyRequest(page, '#approve', 'decide-status', '/approve/', () => page.dblclick('#approve'));
    await page.waitForSelector('#outcome:not([hidden])');
    expect(problems).toEqual([]);
    await page.context().close();

    // The vendor sends a new link for the approved connection: the decision, read-only.
    for (const viewport of ['desktop', 'phone'] as const) {
      const again = await open(viewport, await tokenFor(v, email, 'Double Co', flags));
      await again.page.waitForSelector('#outcome:not([hidden])');
      expect(await again.page.textContent('h1#heading')).toBe("You approved Double Lender's request");
      expect(await inputStates(again.page, '#optional input')).toEqual([
        { name: 'name', checked: true, disabled: true },
        { name: 'dob', checked: false, disabled: true },
        { name: 'aadhar', checked: true, disabled: true },
      ]);
      expect(await again.page.isHidden('#step-decide')).toBe(true);
      expect(await again.page.isHidden('#hrms-form')).toBe(true);
      await clean(again.page, 'approved-reopened', viewport);
      expect(again.problems).toEqual([]);
      await again.page.context().close();
    }
  });
});

describe.skipIf(!haveChromium)('the Connect page: an established org proves and rejects; invalid links', () => {
  for (const viewport of ['desktop', 'phone'] as const) {
    it(`an established org: proof with the app key and secret, then reject after confirming (${viewport})`, async () => {
      const v = await vendor(app.ctx, `Quiet Insurer ${viewport}`);
      const employer = await client(app.ctx, `Established ${viewport} Co`, `established-${viewport}.example`);
      await storesOf(app).hrmsConfigs.save({
        orgId: employer.org.id,
        hrmsId: 'reference',
        apiConfigs: [],
        credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, hrms_host: sim.url },
      });
      const { page, problems } = await open(viewport, await tokenFor(v, `hr@established-${viewport}.example`, `established ${viewport} co`));
      expect(await page.textContent('#hrms-title')).toBe(`Prove that you manage Established ${viewport} Co`);
      expect(await page.isHidden('#step-email')).toBe(true);
      expect(await page.textContent('#n-purpose')).toBe(`Quiet Insurer ${viewport} has not said what it uses this data for. Ask them before you approve.`);
      expect(await page.textContent('#n-privacy')).toBe(`Quiet Insurer ${viewport} has given no privacy policy.`);
      expect(await page.textContent('#n-sync')).toMatch(/already comes from its HRMS/);
      await clean(page, 'proof-required', viewport);
      // With the keyboard only, as in connect-page-keyboard.
      await tabTo(page, '#app_key');
      await page.keyboard.type(employer.org.appKey);
      await tabTo(page, '#app_secret');
      await page.keyboard.type('not-the-secret');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#app_key[aria-invalid=true]');
      expect(await focused(page)).toBe('app_key');
      expect(await page.textContent('#app_key-error')).toMatch(/^This key and secret do not belong to Established/);
      expect(await inView(page, '#proof-status')).toBe(true);
      expect(await page.inputValue('#app_secret')).toBe('');
      await clean(page, 'proof-error', viewport);
      await tabTo(page, '#app_secret');
      await page.keyboard.type(employer.appSecret);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#hrms-done:not([hidden])');
      expect(await page.textContent('#hrms-done-name')).toBe(`You proved that you manage Established ${viewport} Co.`);
      expect(await page.isEnabled('#approve')).toBe(true);
      await clean(page, 'proof-given', viewport);
      // All 110 points optional: one group per category, long ones folded, each counting what is ticked (docs/connect.md "Long lists: groups that fold").
      expect(await groups(page)).toEqual(GROUPS.map(([title, n]) => [`${title} 0 of ${n} to share`, n <= 6]));
      await tabTo(page, '#group-0 > summary');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('dp-name');
      await page.keyboard.press('Space');
      expect((await groups(page))[0]).toEqual(['Personal details 1 of 11 to share', true]);
      await clean(page, 'groups-folded', viewport);
      // Reject is neutral, asks first, and is one request.
      expect(await page.getAttribute('#reject', 'class')).toBe('secondary');
      const rejects = proxy.count(`POST ${API}/reject/`);
      // (Past all 110 optional points: the token asked for everything.)
      await tabTo(page, '#reject', { max: 200 });
      await page.keyboard.press('Enter');
      expect(await focused(page)).toBe('reject-no');
      expect(await page.textContent('#reject-q')).toMatch(/^Reject Quiet Insurer \w+'s request\? Quiet Insurer \w+ gets no data/);
      expect(proxy.count(`POST ${API}/reject/`)).toBe(rejects);
      await tabTo(page, '#reject-yes', { back: true });
      await oneBusyRequest(page, '#reject-yes', 'decide-status', '/reject/', async () => {
        await page.keyboard.press('Enter');
        await page.keyboard.press('Enter');
      });
      await page.waitForSelector('#outcome:not([hidden])');
      expect(await page.textContent('h1#heading')).toBe(`You rejected Quiet Insurer ${viewport}'s request`);
      expect(await page.textContent('#outcome-text')).toMatch(/^Rejected on .* receives no data from Established/);
      expect((await inputStates(page, '#optional input')).every((b) => b.disabled && !b.checked)).toBe(true);
      expect((await groups(page)).map(([summary]) => summary)).toEqual(GROUPS.map(([title, n]) => `${title} 0 of ${n} shared`));
      await clean(page, 'rejected', viewport);
      const [c] = (await dbQuery(app, 'select status from connections where vendor_org_id = $1', [v.org.id])).rows;
      expect(c.status).toBe('rejected');
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it(`five wrong proofs lock approving; the vendor ends the connection: the ended view (${viewport})`, async () => {
      const v = await vendor(app.ctx, `Locked Lender ${viewport}`);
      const employer = await client(app.ctx, `Locked ${viewport} Co`, `locked-${viewport}.example`);
      await storesOf(app).hrmsConfigs.save({
        orgId: employer.org.id,
        hrmsId: 'reference',
        apiConfigs: [],
        credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, hrms_host: sim.url },
      });
      const { page, problems } = await open(viewport, await tokenFor(v, `hr@locked-${viewport}.example`, `locked ${viewport} co`));
      // Without HRX_OPERATOR_CONTACT, the footer links the sender address of HRX_SMTP_FROM.
      expect(await page.getAttribute('#operator-contact', 'href')).toBe('mailto:no-reply@hrx.test');
      for (let i = 0; i < 5 && !/locked until/.test((await page.textContent('#decide-note')) ?? ''); i++) {
        await page.fill('#app_key', employer.org.appKey);
        await page.fill('#app_secret', `wrong-${i}`);
        await page.click('#proof-submit');
        await page.waitForSelector('#proof-submit:not([aria-busy])');
      }
      expect(await page.textContent('#decide-note')).toMatch(/^Too many wrong tries: approving is locked until .+\. Try again then\.$/);
      expect(await page.textContent('#proof-status')).toMatch(/^Too many wrong tries: approving is locked until /);
      expect(await inView(page, '#proof-status')).toBe(true);
      expect(await page.isDisabled('#approve')).toBe(true);
      await clean(page, 'proof-locked', viewport);

      // The vendor ends the connection (POST /api/terminate_connection/); the page, reloaded, says so, read-only.
      await app.ctx.services.connections.terminate(v.org.id, employer.org.uuid, `terminate-${viewport}`);
      await page.reload();
      await page.waitForSelector('#outcome:not([hidden])');
      expect(await page.textContent('h1#heading')).toBe(`Locked Lender ${viewport}'s connection to Locked ${viewport} Co has ended`);
      expect(await page.textContent('#outcome-text')).toMatch(/^Ended on .* by Locked Lender \w+\. Locked Lender \w+ no longer receives data from Locked/);
      expect(await page.isHidden('#step-decide')).toBe(true);
      expect((await inputStates(page, '#optional input')).every((b) => b.disabled)).toBe(true);
      await clean(page, 'ended', viewport);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it(`a connection the operator approved says so, not "You approved"; an unrecorded one names no one (${viewport})`, async () => {
      const v = await vendor(app.ctx, `Operator Lender ${viewport}`);
      const token = await tokenFor(v, `hr@operator-${viewport}.example`, `operator ${viewport} co`, { detail_info_fields: { name: -1, dob: 1 } });
      const [c] = (await dbQuery(app, 'select id from connections where vendor_org_id = $1', [v.org.id])).rows;
      // `hrx connection approve ID`: the operator's decision (docs/connect.md "After the decision").
      await app.ctx.services.connections.decide(c.id, 'approved');
      const { page, problems } = await open(viewport, token);
      await page.waitForSelector('#outcome:not([hidden])');
      expect(await page.textContent('h1#heading')).toBe(`The operator of this service approved Operator Lender ${viewport}'s request`);
      expect(await page.textContent('#outcome-text')).toMatch(
        /^Approved on .+ by the operator of this service, which runs this hrx service, for operator \w+ co: no one approved it on this page\./,
      );
      expect(await page.textContent('#n-sync')).toMatch(/the first sync started when it was approved\.$/);
      await clean(page, 'approved-by-operator', viewport);
      // A decision from before who decided was recorded: the page says what happened, not who did it.
      await dbQuery(app, 'update connections set decided_by = null where id = $1', [c.id]);
      await page.reload();
      await page.waitForSelector('#outcome:not([hidden])');
      expect(await page.textContent('h1#heading')).toBe(`Operator Lender ${viewport}'s request was approved`);
      expect(await page.textContent('#outcome-text')).toMatch(/^Approved on \d{1,2} \w+ 20\d\d[^.]*\. Operator Lender \w+ receives the 2 data points/);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it(`an invalid or spent link is a page of its own (${viewport})`, async () => {
      const { page, problems } = await open(viewport, 'not.a.token');
      expect(await page.textContent('#invalid h1')).toBe('This link is invalid or has expired');
      expect(await page.isHidden('#main')).toBe(true);
      expect(await page.title()).toBe('Link invalid or expired');
      await clean(page, 'invalid-link', viewport);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }
});

describe.skipIf(!haveChromium)('the Connect page: when no e-mail code can be sent', () => {
  describe('without SMTP (and no operator contact, sender or public URL configured)', () => {
    let bare: TestApp;
    beforeAll(async () => {
      bare = await startTestApp({ worker: false, env: { HRX_SMTP_URL: '' } });
    });
    afterAll(async () => {
      await bare?.stop();
    });

    for (const viewport of ['desktop', 'phone'] as const) {
      it(`a new org: the page says the operator must approve; the footer links this site (${viewport})`, async () => {
        const v = await vendor(bare.ctx, `Mailless Lender ${viewport}`);
        const principal = { orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' };
        const { access_token } = await bare.ctx.services.sdk.issueToken(principal, {
          email: `hr@mailless-${viewport}.example`,
          org_name: 'Mailless Co',
          fullname: 'Ravi K',
        });
        const { page, problems } = await newPage(browser, viewport);
        await page.goto(`${bare.url}/connect#token=${encodeURIComponent(access_token)}`);
        await page.waitForSelector('#main:not([hidden])');
        expect(await page.textContent('#email-intro')).toBe(
          'Mailless Co is not yet connected to hrx, and this service cannot send e-mail, so Mailless Co cannot be set up from this page. Ask the operator of this service to approve this connection for you.',
        );
        expect(await page.isHidden('#email-form')).toBe(true);
        expect(await page.isHidden('#hrms-form')).toBe(true);
        expect(await page.isDisabled('#approve')).toBe(true);
        expect(await page.textContent('#hrms-intro')).toBe(
          'Without an e-mail code the HRMS cannot be connected here; ask the operator of this service to set it up with you.',
        );
        expect(await page.textContent('#decide-note')).toBe('Only the operator of this service can approve this connection (step 2).');
        // The last fallback of the operator's contact: the site this page came from.
        expect(await page.getAttribute('#operator-contact', 'href')).toBe('/');
        expect(await page.textContent('#operator-contact')).toBe(new URL(bare.url).origin);
        await clean(page, 'operator-must-approve', viewport);
        expect(problems).toEqual([]);
        await page.context().close();
      });
    }
  });
});

describe.skipIf(!haveChromium)('the Connect page: an org no e-mail code can set up', () => {
  for (const viewport of ['desktop', 'phone'] as const) {
    it(`a gmail address naming a new org: who can approve instead, no code form, approve off (${viewport})`, async () => {
      const v = await vendor(app.ctx, `Gmail Lender ${viewport}`);
      const email = `hr.owner.${viewport}@gmail.com`;
      const { page, problems } = await open(viewport, await tokenFor(v, email, `Owner Only ${viewport}`));
      const org = `Owner Only ${viewport}`;
      expect(await page.textContent('#email-intro')).toBe(
        `${org} is not yet connected to hrx, and a code sent to ${email} cannot set it up: that address is not on ${org}'s own e-mail domain. ` +
          `Ask the operator of this service to approve this connection for you, or, if hrx gave ${org} an application key and secret, enter them below.`,
      );
      expect(await page.isHidden('#email-form')).toBe(true);
      expect(await page.isHidden('#hrms-form')).toBe(true);
      expect(await page.isVisible('#proof-form')).toBe(true);
      expect(await page.isDisabled('#approve')).toBe(true);
      expect(await page.textContent('#decide-note')).toBe(
        `Only the operator of this service, or someone with ${org}'s application key and secret, can approve this connection (step 3).`,
      );
      expect(app.mailbox!.to(email)).toHaveLength(0);
      await clean(page, 'no-code-can-set-up', viewport);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }
});
