/**
 * `GET /readyz` (src/ops/health.ts, docs/operations.md "Readiness: `GET /readyz`"): 200 when PostgreSQL and Redis each answer
 * within 1 s, else 503, `{status, checks}` without the envelope. Redis is a private
 * redis-server this file stops and pauses (test/support/private-services.ts), never the shared one;
 * PostgreSQL is the shared one (a fresh schema).
 */
import { describe, expect, it } from 'vitest';
import { call, waitFor } from '../../support/harness';
import { pauseRedis } from '../../support/private-services';
import { usePrivateRedisApp } from '../../support/setups';

const s = usePrivateRedisApp();

const ready = () => call(`${s.app.url}/readyz`);
/** Polls /readyz until it answers 200 (the request-path Redis client reconnects within about 1 s). */
const waitReady = () =>
  waitFor(
    async () => {
      const r = await ready();
      return r.status === 200 ? r : null;
    },
    15_000,
    200,
  );
const checkOk = { status: 'ok', ms: expect.any(Number) };

describe('GET /readyz', () => {
  it('answers 200 with both checks ok, without a credential', async () => {
    const res = await ready();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toStrictEqual({ status: 'ok', checks: { postgresql: checkOk, redis: checkOk } });
    expect(res.body.checks.redis.ms).toBeLessThan(1000);
  });

  it('answers 503 naming Redis while Redis is stopped, 200 again once it is back', async () => {
    await s.redis.stop();
    try {
      const res = await ready();
      expect(res.status).toBe(503);
      expect(res.body).toStrictEqual({
        status: 'unavailable',
        checks: { postgresql: checkOk, redis: { status: expect.stringMatching(/^(error|timeout)$/), ms: expect.any(Number) } },
      });
      // /healthz asks nothing of Redis: the process is alive.
      expect((await call(`${s.app.url}/healthz`)).status).toBe(200);
    } finally {
      await s.redis.start();
    }
    const back = await waitReady();
    expect(back.body.status).toBe('ok');
  }, 30_000);

  it('answers 503 within about 1 s while Redis accepts but does not answer (paused)', async () => {
    pauseRedis(s.redis, true);
    try {
      const t = performance.now();
      const res = await ready();
      const ms = performance.now() - t;
      expect(res.status).toBe(503);
      expect(res.body.checks.redis.status).toBe('timeout');
      expect(res.body.checks.redis.ms).toBeGreaterThanOrEqual(990);
      expect(res.body.checks.postgresql.status).toBe('ok');
      // The 1 s bound, plus scheduling slack on a busy machine; never the 1.5 s command timeout.
      expect(ms).toBeLessThan(1450);
    } finally {
      pauseRedis(s.redis, false);
    }
    expect((await waitReady()).status).toBe(200);
  }, 30_000);
});
