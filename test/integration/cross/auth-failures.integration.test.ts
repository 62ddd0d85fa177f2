/**
 * The failed-authentication limit of docs/behaviour.md "Failed authentications" over HTTP: per source address and per presented
 * id (V2 Basic username, app_key at the update webhook and setup-config, API key), at most 20
 * failures a minute; the 21st attempt is 429 `Request was throttled. Expected available in N
 * seconds.` with `Retry-After` whatever the credential; successes do not count. And the keyed-hash
 * pre-check: a wrong secret runs no scrypt (counted by crypto/secrets `scryptRuns`), known and
 * unknown ids cost the same, and a credential from before the keyed hash falls back to scrypt
 * behind the limit and is upgraded by its first success.
 *
 * Sources are told apart with `X-Forwarded-For` (HRX_TRUST_PROXY=1): every request of the test
 * comes from 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scryptRuns } from '../../../src/crypto/secrets';
import { call, medianMs, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain, type Res } from '../../support/expect-error';
import { dbQuery } from '../../support/db';

let app: TestApp;
let v: Awaited<ReturnType<typeof f.v2Vendor>>;
let w: Awaited<ReturnType<typeof f.v2Vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
let sim: Awaited<ReturnType<typeof startSim>>;
const SIM = { clientId: 'sim-client', clientSecret: `sim-secret-${randomBytes(8).toString('hex')}` };

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_TRUST_PROXY: '1' } });
  v = await f.v2Vendor(app.ctx);
  w = await f.v2Vendor(app.ctx);
  c = await f.client(app.ctx);
  sim = await startSim(SIM);
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});
// Every test starts with no failures counted.
beforeEach(async () => {
  const keys = await app.ctx.redis.keys(`${app.config.HRX_REDIS_PREFIX}:authfail:*`);
  if (keys.length) await app.ctx.redis.del(...keys);
});

let n = 0;
/** A fresh source address (IPv4, so each is its own bucket). */
const newSource = () => {
  n++;
  return `198.51.${100 + Math.floor(n / 250)}.${n % 250}`;
};
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const wrong = () => randomBytes(32).toString('base64url');

const v2 = (authorization: string, source: string) =>
  call(`${app.url}/api/external/employee/`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json', 'x-forwarded-for': source },
    body: JSON.stringify({ encrypted_payload: 'x' }),
  });
const webhook = (authorization: string, source: string) =>
  call(`${app.url}/api/webhook/v1/employee/update/`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json', 'x-forwarded-for': source },
    body: JSON.stringify({ employeeId: 'E1', name: 'Asha Rao' }),
  });
const setup = (clientId: string, clientSecret: string, source: string) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': source },
    body: JSON.stringify(f.setupBody({ org: { appKey: clientId }, appSecret: clientSecret }, sim, SIM)),
  });
const orgDetails = (apiKey: string, source: string, org = v.org.uuid) =>
  call(`${app.url}/api/org_details/${org}/`, { headers: { authorization: apiKey, 'x-forwarded-for': source } });

/** Asserts the 429 of docs/api.md "Conventions" with a Retry-After of 1 to 60 s matching the message. */
function expectThrottled(res: Res): void {
  const seconds = Number(res.headers.get('retry-after'));
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expectError(res, 429, plain(`Request was throttled. Expected available in ${seconds} seconds.`));
}

/** Sends `count` failures through `attempt`, asserting each is the ordinary refusal `status`. */
async function fail(count: number, attempt: (i: number) => Promise<Res>, status = 401): Promise<void> {
  for (let i = 0; i < count; i++) expect((await attempt(i)).status).toBe(status);
}

describe('V2 Basic', () => {
  it('20 failures are 401; the 21st attempt is 429 even with the right password; successes do not count', async () => {
    const src = newSource();
    // Successes between the failures count for nothing (the right credential gets past auth: 400).
    for (let i = 0; i < 5; i++) expect((await v2(v.authorization, src)).status).toBe(400);
    await fail(19, () => v2(basic(v.username, wrong()), src));
    for (let i = 0; i < 5; i++) expect((await v2(v.authorization, src)).status).toBe(400);
    expectError(await v2(basic(v.username, wrong()), src), 401, plain('Invalid token.'));
    expectThrottled(await v2(v.authorization, src));
    expectThrottled(await v2(basic(v.username, wrong()), src));
  });

  it('per username: 20 failures from 20 sources throttle that username everywhere, not others', async () => {
    await fail(20, () => v2(basic(v.username, wrong()), newSource()));
    const fresh = newSource();
    expectThrottled(await v2(v.authorization, fresh));
    expect((await v2(w.authorization, fresh)).status).toBe(400);
  });

  it('per source: after 20 failures of one source, another username from it is throttled; other sources are not', async () => {
    const src = newSource();
    await fail(20, (i) => v2(basic(`hrxv2_unknown${i}`, wrong()), src));
    expectThrottled(await v2(w.authorization, src));
    expect((await v2(w.authorization, newSource())).status).toBe(400);
  });
});

describe('app credentials: update webhook and setup-config share the app_key budget', () => {
  it('webhook: the 21st attempt is 429 even with the right secret, from any source; other app_keys are not', async () => {
    const src = newSource();
    await fail(20, () => webhook(basic(c.org.appKey, wrong()), src));
    expectThrottled(await webhook(f.appBasic(c), src));
    expectThrottled(await webhook(f.appBasic(c), newSource()));
    const other = await f.client(app.ctx);
    expect((await webhook(f.appBasic(other), newSource())).status).toBe(200);
  });

  it('setup-config: 401 Invalid client credentials, then 429 for the right credentials; failures at the webhook count too', async () => {
    await fail(10, () => webhook(basic(c.org.appKey, wrong()), newSource()));
    for (let i = 0; i < 10; i++) expectError(await setup(c.org.appKey, wrong(), newSource()), 401, plain('Invalid client credentials.'));
    expectThrottled(await setup(c.org.appKey, c.appSecret, newSource()));
    expectThrottled(await webhook(f.appBasic(c), newSource()));
  });

  it('setup-config per source: 20 unknown client_ids from one source throttle it', async () => {
    const src = newSource();
    await fail(20, (i) => setup(`app_unknown${i}`, wrong(), src));
    expectThrottled(await setup(c.org.appKey, c.appSecret, src));
  });
});

describe('API keys', () => {
  it('per source: 20 wrong keys, then the right key from that source is 429; from another it works', async () => {
    const src = newSource();
    expect((await orgDetails(v.apiKey, src)).status).toBe(200);
    await fail(20, () => orgDetails(`hrx_${wrong()}`, src));
    expectThrottled(await orgDetails(v.apiKey, src));
    // The `username:` header form of the same door is throttled the same way.
    expectThrottled(
      await call(`${app.url}/api/employee_details/E1?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
        headers: { username: v.apiKey, 'x-forwarded-for': src },
      }),
    );
    expect((await orgDetails(v.apiKey, newSource())).status).toBe(200);
  });

  it('per key: one wrong key tried from 20 sources is throttled from a 21st', async () => {
    const guess = `hrx_${wrong()}`;
    await fail(20, () => orgDetails(guess, newSource()));
    expectThrottled(await orgDetails(guess, newSource()));
  });
});

describe('keyed-hash pre-check (no scrypt for a wrong secret)', () => {
  it('wrong secrets and unknown ids run no scrypt at any door', async () => {
    const before = scryptRuns();
    for (let i = 0; i < 3; i++) {
      expect((await v2(basic(v.username, wrong()), newSource())).status).toBe(401);
      expect((await v2(basic('hrxv2_nobody', wrong()), newSource())).status).toBe(401);
      expect((await webhook(basic(c.org.appKey, wrong()), newSource())).status).toBe(401);
      expect((await webhook(basic('app_nobody', wrong()), newSource())).status).toBe(401);
      expect((await setup(c.org.appKey, wrong(), newSource())).status).toBe(401);
    }
    // Right credentials take the keyed hash too.
    expect((await v2(v.authorization, newSource())).status).toBe(400);
    expect((await webhook(f.appBasic(c), newSource())).status).toBe(200);
    expect(scryptRuns() - before).toBe(0);
  });

  it('known and unknown ids cost the same (no timing oracle either way)', async () => {
    const basicService = app.ctx.services.external.basic;
    const orgs = app.ctx.services.orgs;
    /** Medians of `a` and `b` timed alternately (so load drifting during the test hits both alike). */
    const pairedMedians = async (a: () => Promise<unknown>, b: () => Promise<unknown>, runs = 15) => {
      await a();
      await b();
      const ta: number[] = [];
      const tb: number[] = [];
      for (let i = 0; i < runs; i++) {
        ta.push(await medianMs(a, 1));
        tb.push(await medianMs(b, 1));
      }
      const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
      return [median(ta), median(tb)] as const;
    };
    const v2Times = await pairedMedians(
      () => basicService.verify(v.username, wrong()),
      () => basicService.verify('hrxv2_nobody', wrong()),
    );
    const appTimes = await pairedMedians(
      () => orgs.verifyAppCredentials(c.org.appKey, wrong()),
      () => orgs.verifyAppCredentials('app_nobody', wrong()),
    );
    // Both are one indexed lookup and one HMAC (~1 ms); a decoy or real scrypt (≥ 20 ms, 50+ under
    // load) on either side alone breaks these bounds by far.
    for (const [known, unknown] of [v2Times, appTimes]) {
      expect(known).toBeLessThan(unknown * 3 + 8);
      expect(unknown).toBeLessThan(known * 3 + 8);
    }
  });

  it('a credential without a keyed hash (made before it) costs scrypt behind the limit, and its first success upgrades it', async () => {
    const legacy = await f.v2Vendor(app.ctx);
    const legacyClient = await f.client(app.ctx);
    await dbQuery(app, 'update basic_credentials set password_keyed_hash = null where username = $1', [legacy.username]);
    await dbQuery(app, 'update orgs set app_secret_keyed_hash = null where id = $1', [legacyClient.org.id]);
    let before = scryptRuns();
    expect((await v2(basic(legacy.username, wrong()), newSource())).status).toBe(401);
    expect((await webhook(basic(legacyClient.org.appKey, wrong()), newSource())).status).toBe(401);
    expect(scryptRuns() - before).toBe(2);
    // Behind the limit: once the username is throttled, no scrypt runs for it.
    await fail(19, () => v2(basic(legacy.username, wrong()), newSource()));
    before = scryptRuns();
    expectThrottled(await v2(basic(legacy.username, wrong()), newSource()));
    expect(scryptRuns() - before).toBe(0);
    // The right secret passes scrypt once and stores the keyed hash; then wrong ones cost none.
    expect((await webhook(f.appBasic(legacyClient), newSource())).status).toBe(200);
    const { rows } = await dbQuery(app, 'select app_secret_keyed_hash from orgs where id = $1', [legacyClient.org.id]);
    expect(rows[0].app_secret_keyed_hash).toMatch(/^[0-9a-f]{64}$/);
    before = scryptRuns();
    expect((await webhook(basic(legacyClient.org.appKey, wrong()), newSource())).status).toBe(401);
    expect((await webhook(f.appBasic(legacyClient), newSource())).status).toBe(200);
    expect(scryptRuns() - before).toBe(0);
  });

  it('concurrent attempts at a credential without a keyed hash run at most 20 scrypts (counted before they run)', async () => {
    const legacy = await f.v2Vendor(app.ctx);
    await dbQuery(app, 'update basic_credentials set password_keyed_hash = null where username = $1', [legacy.username]);
    const before = scryptRuns();
    const answers = await Promise.all(Array.from({ length: 60 }, () => v2(basic(legacy.username, wrong()), newSource())));
    expect(scryptRuns() - before).toBe(20);
    expect(answers.filter((r) => r.status === 401)).toHaveLength(20);
    for (const r of answers.filter((a) => a.status !== 401)) expectThrottled(r);
  });

  it('nothing of the presented ids or addresses is stored in Redis in clear', async () => {
    await v2(basic(v.username, wrong()), '203.0.113.77');
    await webhook(basic(c.org.appKey, wrong()), '203.0.113.77');
    const keys = await app.ctx.redis.keys(`${app.config.HRX_REDIS_PREFIX}:authfail:*`);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    for (const k of keys) {
      expect(k).not.toContain(v.username);
      expect(k).not.toContain(c.org.appKey);
      expect(k).not.toContain('203.0.113.77');
    }
  });
});
