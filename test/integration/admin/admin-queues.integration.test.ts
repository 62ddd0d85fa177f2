/**
 * The job dashboard's login (`/admin/queues`, docs/operations.md "The job dashboard: `/admin/queues`"): one Basic
 * login gives a session cookie that the page's asset and API requests carry; requests without a
 * credential are refused without spending any failed-authentication budget; wrong tokens spend
 * the dashboard's own budget, never the API's for the same address; the page loads nothing from
 * outside hrx.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, waitFor, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_TRUST_PROXY: '1' } });
});
afterAll(async () => {
  await app?.stop();
});

let n = 0;
const newSource = () => `198.51.100.${++n}`;
const basic = (t: string) => `Basic ${Buffer.from(`admin:${t}`).toString('base64')}`;
const board = (p: string, source: string, headers: Record<string, string> = {}) =>
  call(`${app.url}/admin/queues${p}`, { headers: { 'x-forwarded-for': source, ...headers } });
/** The `name=value` of the dashboard's session cookie in `res`'s Set-Cookie, and its attributes. */
const sessionCookie = (res: { headers: Headers }) => {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('hrx_admin='));
  return set ? { pair: set.split(';')[0]!, attributes: set } : undefined;
};

describe('GET /admin/queues (job dashboard login)', () => {
  it('one Basic login sets an HttpOnly, SameSite=Strict session cookie that the page and its API requests then carry', async () => {
    const src = newSource();
    const page = await board('', src, { authorization: basic(app.config.HRX_ADMIN_TOKEN!) });
    expect(page.status).toBe(200);
    const cookie = sessionCookie(page);
    expect(cookie?.attributes).toMatch(/; Path=\/admin\/queues; Max-Age=28800; HttpOnly; SameSite=Strict$/);
    // Assets and the dashboard's API with the cookie alone, as the browser sends them.
    const html = String(page.body);
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(2);
    for (const a of [...assets, 'api/queues', 'static/locales/en-US/messages.json']) {
      expect((await board(`/${a}`, src, { cookie: cookie!.pair })).status, a).toBe(200);
    }
    // A cookie that is not the dashboard's own, or whose MAC is changed, is no session.
    const [name, value] = cookie!.pair.split('=') as [string, string];
    const forged = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    expectError(await board('/api/queues', src, { cookie: forged }), 401, plain('Authentication credentials were not provided.'));
    expectError(
      await board('/api/queues', src, { cookie: `hrx_admin=${Math.floor(Date.now() / 1000) - 1}.${'A'.repeat(43)}` }),
      401,
      plain('Authentication credentials were not provided.'),
    );
  });

  it('the page loads nothing from outside hrx: no Google Fonts link, and a self-only Content-Security-Policy', async () => {
    const page = await board('', newSource(), { authorization: basic(app.config.HRX_ADMIN_TOKEN!) });
    expect(String(page.body)).not.toMatch(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self';/);
    expect(page.headers.get('content-security-policy')).not.toMatch(/https?:/);
  });

  it('30 requests without a credential are refused but not counted: the right token and a vendor read from that address still pass', async () => {
    const src = newSource();
    for (let i = 0; i < 30; i++) expectError(await board('/static/css/x.css', src), 401, plain('Authentication credentials were not provided.'));
    expect((await board('/api/queues', src, { authorization: basic(app.config.HRX_ADMIN_TOKEN!) })).status).toBe(200);
    const v = await f.vendor(app.ctx);
    expect((await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey, 'x-forwarded-for': src } })).status).toBe(200);
  });

  it("21 wrong tokens throttle the dashboard for that address, never the API: a vendor's read from it still passes", async () => {
    const src = newSource();
    for (let i = 0; i < 20; i++)
      expectError(await board('/api/queues', src, { authorization: basic(randomBytes(24).toString('base64url')) }), 401, plain('Invalid token.'));
    expect((await board('/api/queues', src, { authorization: basic(app.config.HRX_ADMIN_TOKEN!) })).status).toBe(429);
    const v = await f.vendor(app.ctx);
    expect((await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey, 'x-forwarded-for': src } })).status).toBe(200);
  });
});

describe('GET /admin/queues/api/queues (health on the dashboard)', () => {
  it('the sync queue describes the approved connections by HRMS health, and follows a change', async () => {
    const auth = { authorization: basic(app.config.HRX_ADMIN_TOKEN!) };
    const line = async () => {
      const res = await board('/api/queues', newSource(), auth);
      const sync = (res.body.queues as { name: string; description?: string }[]).find((q) => q.name === app.ctx.syncQueue.queue.name);
      return sync?.description ?? '';
    };
    const before = await waitFor(async () => /not_configured (\d+)/.exec(await line())?.[1], 30_000);
    const v = await f.vendor(app.ctx);
    await f.connection(app.ctx, v.org.uuid, (await f.client(app.ctx)).org.uuid);
    // Read again at most every 10 s: the new approved connection shows within that.
    const text = await waitFor(async () => ((await line()).includes(`not_configured ${Number(before) + 1}`) ? line() : undefined), 30_000);
    expect(text).toMatch(/^Approved connections by HRMS health: healthy \d+ · syncing \d+ · needs_reauth \d+ · failing \d+ · not_configured \d+$/);
  }, 60_000);
});
