/**
 * The failure counter behind docs/behaviour.md "Failed authentications"'s failed-authentication limit (ratelimit/auth-failures.ts)
 * on real Redis: shared by every process (two connections stand for two API processes), atomic
 * reservations under concurrency, and the per-process fallback when Redis does not answer: a
 * private `redis-server` (never the machine's shared one) is frozen with SIGSTOP, and no call
 * waits past the timeout, whether the process asks Redis at each check or keeps a copy of the
 * locks (auth-failure-locks.integration.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger';
import { createFailureLimiter } from '../../../src/ratelimit/auth-failures';
import { REDIS_URL, waitFor } from '../../support/harness';
import { monitorScripts } from '../../support/redis-monitor';

const log = createLogger('silent');
const opened: Redis[] = [];
const connect = (url = REDIS_URL) => {
  const r = new Redis(url, { maxRetriesPerRequest: null });
  r.on('error', () => undefined);
  opened.push(r);
  return r;
};
const prefix = `hrxtest:authfail:${randomBytes(4).toString('hex')}`;
afterAll(async () => {
  const keys = await opened[0]!.keys(`${prefix}:*`);
  if (keys.length) await opened[0]!.del(...keys);
  for (const r of opened) r.disconnect();
});

describe('shared through Redis', () => {
  const a = createFailureLimiter({ redis: connect(), prefix, limit: 20, windowMs: 60_000, log });
  const b = createFailureLimiter({ redis: connect(), prefix, limit: 20, windowMs: 60_000, log });

  it('20 failures counted by one process refuse the key in another, with the window left', async () => {
    await waitFor(() => opened[1]!.status === 'ready');
    for (let i = 0; i < 19; i++) await a.fail(['src:x', 'basic:u']);
    expect(await b.check(['src:x'])).toEqual({ allowed: true });
    await a.fail(['src:x', 'basic:u']);
    const d = await b.check(['src:y', 'basic:u']);
    expect(d).toMatchObject({ allowed: false });
    expect((d as { retryAfterSec: number }).retryAfterSec).toBeGreaterThan(55);
    expect((d as { retryAfterSec: number }).retryAfterSec).toBeLessThanOrEqual(60);
    expect(await b.check(['src:y', 'basic:v'])).toEqual({ allowed: true });
  });

  it('checks of one event-loop turn (one script call) are answered each for its own keys', async () => {
    const [x, y, yv, z] = await Promise.all([
      b.check(['src:x']),
      b.check(['src:y', 'basic:u']),
      b.check(['src:y', 'basic:v']),
      b.check(['basic:u', 'basic:u']),
    ]);
    expect([x.allowed, y.allowed, yv.allowed, z.allowed]).toEqual([false, false, true, false]);
  });

  it('concurrent reservations: exactly the limit is allowed; a refund gives one back', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).reserve(['app:k'])));
    expect(results.filter((r) => r.allowed)).toHaveLength(20);
    await a.refund(['app:k']);
    expect(await b.reserve(['app:k'])).toEqual({ allowed: true });
    expect(await b.reserve(['app:k'])).toMatchObject({ allowed: false });
  });

  it('the window passes', async () => {
    const short = createFailureLimiter({ redis: connect(), prefix, limit: 2, windowMs: 300, log });
    await short.fail(['w']);
    await short.fail(['w']);
    expect(await short.check(['w'])).toEqual({ allowed: false, retryAfterSec: 1 });
    await new Promise((r) => setTimeout(r, 400));
    expect(await short.check(['w'])).toEqual({ allowed: true });
  });
});

describe('Redis not answering', () => {
  let server: ChildProcess | undefined;
  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGCONT');
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGKILL');
      await exited;
    }
  });

  it('a frozen Redis: every call answers within the timeout, counting per process (with or without a copy of the locks)', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    server = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const url = `redis://127.0.0.1:${port}`;
    const redis = connect(url);
    await waitFor(() => redis.status === 'ready', 10_000, 50);
    const plain = createFailureLimiter({ redis, prefix: 'p', limit: 20, windowMs: 60_000, log, timeoutMs: 200 });
    // A process that hears the locks (auth-failure-locks.ts) decides its checks without Redis.
    const heard = createFailureLimiter({ redis, prefix: 'q', limit: 20, windowMs: 60_000, log, timeoutMs: 200, subscriber: () => connect(url) });
    const mon = await monitorScripts('q:authfail:', url);
    await waitFor(
      async () => {
        await mon.reset();
        await heard.check(['idle']);
        return (await mon.count()) === 0;
      },
      10_000,
      20,
    );
    mon.close();
    for (const limiter of [plain, heard]) for (let i = 0; i < 5; i++) await limiter.fail(['k']);
    server.kill('SIGSTOP');
    const t0 = Date.now();
    await Promise.all(
      [plain, heard].map(async (limiter) => {
        for (let i = 0; i < 15; i++) await limiter.fail(['k']);
        // Five failures went to Redis, fifteen to this process: under the limit here, 15 < 20.
        expect(await limiter.check(['k'])).toEqual({ allowed: true });
        for (let i = 0; i < 5; i++) await limiter.fail(['k']);
        expect(await limiter.check(['k'])).toMatchObject({ allowed: false });
        expect(await limiter.reserve(['other'])).toEqual({ allowed: true });
      }),
    );
    // 23 calls each, each given up after 200 ms: none hung.
    expect(Date.now() - t0).toBeLessThan(23 * 200 + 2000);
    await heard.close();
  });
});
