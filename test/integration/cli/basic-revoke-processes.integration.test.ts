/**
 * `hrx basic revoke` (docs/api.md "Credentials": V2 Basic credentials can be revoked), through the real
 * executable, against two API processes: a V2 Basic credential that both processes just accepted
 * (and cached, for a minute: HRX_API_KEY_CACHE_TTL_MS=60000, so the pub/sub announcement and not
 * the cache's 1 s default TTL is what stops it) is refused by both with 401 `Invalid token.`
 * within 1 s of the command returning; the vendor's other credential keeps working.
 *
 * A credential that authenticates reaches the body check: `{encrypted_payload: 'x'}` is then a
 * 400, so 400 means "accepted" and 401 "refused" without building a V2 payload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSecondApi, startTestApp, type SecondApi, type TestApp } from '../../support/harness';
import { hrxJson } from '../../support/cli';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';

let app: TestApp;
let second: SecondApi;
let v: Awaited<ReturnType<typeof f.v2Vendor>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_API_KEY_CACHE_TTL_MS: '60000' } });
  v = await f.v2Vendor(app.ctx);
  second = await startSecondApi(app);
}, 90_000);
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

const v2 = (base: string, authorization: string) =>
  call(`${base}/api/external/employee/`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ encrypted_payload: 'x' }),
  });

describe('hrx basic revoke', () => {
  it('a revoked V2 Basic credential stops working on every API process within 1 s', async () => {
    const other = await app.ctx.services.external.basic.create(v.org.uuid);
    const otherAuth = `Basic ${Buffer.from(`${other.username}:${other.password}`).toString('base64')}`;
    // Both processes accept it, and so have it in their caches.
    for (const base of [app.url, second.url]) expect((await v2(base, v.authorization)).status).toBe(400);
    expect(await hrxJson(['basic', 'revoke', '--org', v.org.uuid, '--username', v.username], app.env)).toEqual({ username: v.username, revoked: true });
    const revokedAt = Date.now();
    const refusedAt = new Map<string, number>();
    while (refusedAt.size < 2 && Date.now() - revokedAt < 5000) {
      for (const base of [app.url, second.url]) {
        if (refusedAt.has(base)) continue;
        const res = await v2(base, v.authorization);
        if (res.status === 401) {
          expectError(res, 401, plain('Invalid token.'));
          refusedAt.set(base, Date.now());
        }
      }
    }
    expect(refusedAt.size).toBe(2);
    for (const at of refusedAt.values()) expect(at - revokedAt).toBeLessThan(1000);
    for (const base of [app.url, second.url]) {
      expectError(await v2(base, v.authorization), 401, plain('Invalid token.'));
      expect((await v2(base, otherAuth)).status).toBe(400);
    }
  });
});
