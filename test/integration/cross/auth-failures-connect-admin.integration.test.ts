/**
 * The failed-authentication limit of docs/behaviour.md "Failed authentications" on the two credentials it did not cover: the
 * Connect session exchange (`POST /api/sdk/connect/session/` with an SDK token; counted per
 * source and per the token's `jti` when it parses as a JWT), `HRX_ADMIN_TOKEN` at the job
 * dashboard (`/admin/queues`, counted per source), and the Connect flow's proof (b) (app
 * credentials, counted per source and `app_key` like the update webhook, beside the per-pair
 * lock of 5 failed proofs). Over HTTP: 20 failures a minute, then 429
 * `Request was throttled...` with `Retry-After` whatever the credential; a refused exchange does
 * not use the token up.
 *
 * Sources are told apart with `X-Forwarded-For` (HRX_TRUST_PROXY=1).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain, type Res } from '../../support/expect-error';

let app: TestApp;
let vendor: Awaited<ReturnType<typeof f.vendor>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_TRUST_PROXY: '1' } });
  vendor = await f.vendor(app.ctx, 'Lender');
});
afterAll(async () => {
  await app?.stop();
});
beforeEach(async () => {
  const keys = await app.ctx.redis.keys(`${app.config.HRX_REDIS_PREFIX}:authfail:*`);
  if (keys.length) await app.ctx.redis.del(...keys);
});

let n = 0;
const newSource = () => {
  n++;
  return `203.0.${113 + Math.floor(n / 250)}.${n % 250}`;
};
const exchange = (token: string, source: string) =>
  call(`${app.url}/api/sdk/connect/session/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': source },
    body: JSON.stringify({ token }),
  });
const board = (authorization: string | undefined, source: string) =>
  call(`${app.url}/admin/queues/api/queues`, {
    headers: { 'x-forwarded-for': source, ...(authorization ? { authorization } : {}) },
  });
/** A JWT-shaped token naming `jti`, signed by nobody. */
const forged = (jti: string) =>
  [
    Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'nope' })).toString('base64url'),
    Buffer.from(JSON.stringify({ jti, sub: randomUUID(), exp: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url'),
    randomBytes(64).toString('base64url'),
  ].join('.');

function expectThrottled(res: Res): void {
  expect(res.status).toBe(429);
  expect(res.body.message).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('Connect session exchange', () => {
  it('20 bogus tokens from one source, then 429 even for a good token, which stays usable from elsewhere', async () => {
    const src = newSource();
    for (let i = 0; i < 20; i++) {
      const token = i % 2 ? randomBytes(40).toString('base64url') : forged(randomUUID());
      expectError(await exchange(token, src), 401, plain('Invalid token.'));
    }
    const good = (await f.sdkToken(app.ctx, vendor.org)).access_token;
    expectThrottled(await exchange(good, src));
    expectThrottled(await exchange(forged(randomUUID()), src));
    // The refused exchange did not use the token up.
    const ok = await exchange(good, newSource());
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toMatch(/^hrx_connect=/);
  });

  it('one jti from 20 sources, then 429 for that jti from a fresh source; another jti is unaffected', async () => {
    const jti = randomUUID();
    for (let i = 0; i < 20; i++) expectError(await exchange(forged(jti), newSource()), 401, plain('Invalid token.'));
    expectThrottled(await exchange(forged(jti), newSource()));
    expectError(await exchange(forged(randomUUID()), newSource()), 401, plain('Invalid token.'));
  });

  it('a second exchange of a used token counts as a failure', async () => {
    const src = newSource();
    const good = (await f.sdkToken(app.ctx, vendor.org)).access_token;
    expect((await exchange(good, src)).status).toBe(200);
    for (let i = 0; i < 20; i++) expectError(await exchange(good, src), 401, plain('Invalid token.'));
    expectThrottled(await exchange(good, src));
  });
});

describe('Connect proof (b): app credentials', () => {
  const proof = (cookie: string, source: string, body: unknown) =>
    call(`${app.url}/api/sdk/connect/proof/`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-forwarded-for': source },
      body: JSON.stringify(body),
    });
  it('20 failed proofs from one source over 5 connections (4 each, under the pair lock), then 429', async () => {
    const src = newSource();
    const cookies: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await exchange((await f.sdkToken(app.ctx, vendor.org)).access_token, src);
      expect(res.status).toBe(200);
      cookies.push(res.headers.get('set-cookie')!.split(';')[0]!);
    }
    const wrongCreds = () => ({ app_key: randomBytes(16).toString('hex'), app_secret: randomBytes(32).toString('base64url') });
    for (let i = 0; i < 20; i++) expectError(await proof(cookies[i % 5]!, src, wrongCreds()), 403, plain('Proof of control failed'));
    expectThrottled(await proof(cookies[0]!, src, wrongCreds()));
    // Another source is not throttled (and that pair is not locked yet: its 5th failure).
    expectError(await proof(cookies[1]!, newSource(), wrongCreds()), 403, plain('Proof of control failed'));
  });
});

describe('HRX_ADMIN_TOKEN at the job dashboard', () => {
  const adminToken = () => app.config.HRX_ADMIN_TOKEN!;
  const asBasic = (t: string) => `Basic ${Buffer.from(`admin:${t}`).toString('base64')}`;

  it('20 wrong tokens from one source, then 429 even for the right one; other sources unaffected', async () => {
    const src = newSource();
    expect((await board(asBasic(adminToken()), src)).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const res = await board(i % 2 ? asBasic(randomBytes(24).toString('base64url')) : `Bearer ${randomBytes(24).toString('base64url')}`, src);
      expectError(res, 401, plain('Invalid token.'));
    }
    expectThrottled(await board(asBasic(adminToken()), src));
    expectThrottled(await board(`Bearer ${adminToken()}`, src));
    expect((await board(asBasic(adminToken()), newSource())).status).toBe(200);
  });
});
