/**
 * Every Connect session is rate-limited like an API key (docs/limits.md "Rate limits"): a bucket
 * of its own, keyed by the session id (`HRX_CONNECT_RATE_LIMIT_PER_MINUTE`, 3 per hour here so
 * nothing refills while the test runs), shared by every endpoint that takes the session cookie.
 * Past it: `429 Request was throttled. Expected available in N seconds.` with `Retry-After: N`.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitKey } from '../../../src/ratelimit/limiter';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, REDIS_URL, startTestApp, type TestApp } from '../../support/harness';

const LIMIT = 3;
const INTERVAL_SEC = 1200; // 3600 s / 3

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_CONNECT_RATE_LIMIT_PER_MINUTE: String(LIMIT), HRX_RATE_LIMIT_WINDOW_MS: '3600000' } });
});
afterAll(async () => {
  await app?.stop();
});

describe('Connect session rate limit (GET /api/sdk/connect/ and the other session endpoints)', () => {
  it('the fourth request of one session is 429 with Retry-After; another session and the vendor key keep their own budgets', async () => {
    const v = await f.vendor(app.ctx, 'Busy Lender');
    const s = await openSession(app.url, (await f.sdkToken(app.ctx, v.org)).access_token);
    expect((await connectCall(app.url, s, '')).status).toBe(200);
    // Another endpoint of the session draws on the same bucket (a refused e-mail check still counts).
    expect((await connectCall(app.url, s, 'verify-email/', { code: '000000' })).status).toBe(400);
    expect((await connectCall(app.url, s, '')).status).toBe(200);
    for (const path of ['', 'email-code/', 'reject/']) {
      const res = await connectCall(app.url, s, path);
      const n = Number(res.headers.get('retry-after'));
      expect(n).toBeGreaterThan(INTERVAL_SEC - 60);
      expect(n).toBeLessThanOrEqual(INTERVAL_SEC);
      expectError(res, 429, plain(`Request was throttled. Expected available in ${n} seconds.`));
    }
    // The throttled reject/ did nothing: the connection is still pending for a fresh session.
    const other = await openSession(app.url, (await f.sdkToken(app.ctx, v.org)).access_token);
    const view = await connectCall(app.url, other, '');
    expect([view.status, view.body.data.status]).toEqual([200, 'pending']);
    const key = await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey } });
    expect(key.status).toBe(200);
  });

  it("keys the bucket by the session id, apart from the API keys' buckets", async () => {
    const v = await f.vendor(app.ctx, 'Keyed Lender');
    const opened = await call(`${app.url}/api/sdk/connect/session/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: (await f.sdkToken(app.ctx, v.org)).access_token }),
    });
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    expect((await connectCall(app.url, cookie, '')).status).toBe(200);
    const [row] = (await dbQuery(app, `select id from connect_sessions where connection_id = $1`, [opened.body.data.connection_id])).rows;
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${app.config.HRX_REDIS_PREFIX}:ratelimit:*`);
      expect(keys).toContain(rateLimitKey(app.config.HRX_REDIS_PREFIX, `connect:${row.id}`));
      // The cookie's secret names no key.
      expect(keys.filter((k) => k.includes(cookie.split('=')[1]!))).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
