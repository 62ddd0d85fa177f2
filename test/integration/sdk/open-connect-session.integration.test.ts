/** `POST /api/sdk/connect/session/` (docs/connect.md "The session"): an SDK token buys the session cookie. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

const exchange = (body: unknown) =>
  call(`${app.url}/api/sdk/connect/session/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('POST /api/sdk/connect/session/', () => {
  it('exchanges a token for an HttpOnly cookie and the connection id', async () => {
    const v = await f.vendor(app.ctx);
    const tok = await f.sdkToken(app.ctx, v.org);
    const res = await exchange({ token: tok.access_token });
    expect(res.status).toBe(200);
    expect(res.body.data.connection_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/i);
  });

  it('refuses a token that is not one of ours', async () => {
    expectError(await exchange({ token: 'a.b.c' }), 401, plain('Invalid token.'));
  });
});

describe('the session cookie behind https and a base path', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_PUBLIC_URL: 'https://hrx.example', HRX_BASE_PATH: '/hrx' } });
  });
  afterAll(async () => app?.stop());

  it('is Secure and scoped to {base}/api/sdk/connect', async () => {
    const v = await f.vendor(app.ctx);
    const tok = await f.sdkToken(app.ctx, v.org);
    const res = await call(`${app.url}/api/sdk/connect/session/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: tok.access_token }),
    });
    expect(res.status).toBe(200);
    const attrs = res.headers
      .get('set-cookie')!
      .split(';')
      .map((a) => a.trim());
    expect(attrs).toEqual(expect.arrayContaining(['Path=/hrx/api/sdk/connect', 'HttpOnly', 'SameSite=Strict', 'Secure']));
    const cookie = attrs[0]!;
    expect((await call(`${app.url}/api/sdk/connect/`, { headers: { cookie } })).body.data.org.org_id).toBe(tok.org_id);
  });
});
