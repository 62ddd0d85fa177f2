/**
 * The per-process copy of the failure locks (ratelimit/auth-failure-locks.ts) behind
 * ratelimit/auth-failures.ts, on real Redis: limiters with a subscriber (each on its own
 * connections, standing for API processes) ask Redis nothing for a check of keys no process has
 * locked, hear another process's locks, load the locks in force when they start listening, and
 * still refuse exactly what Redis refuses. Script calls are counted with MONITOR
 * (test/support/redis-monitor.ts).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger';
import { createFailureLimiter, type FailureLimiter } from '../../../src/ratelimit/auth-failures';
import { REDIS_URL, waitFor } from '../../support/harness';
import { monitorScripts, type ScriptMonitor } from '../../support/redis-monitor';

const log = createLogger('silent');
const opened: Redis[] = [];
const limiters: FailureLimiter[] = [];
const connect = () => {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  r.on('error', () => undefined);
  opened.push(r);
  return r;
};
const prefix = `hrxtest:authlocks:${randomBytes(4).toString('hex')}`;
/** Each limiter's request connection (until it is ready, checks are decided in the process). */
const requestRedisOf = new Map<FailureLimiter, Redis>();
/** An API process's failure limiter: its own request connection and subscriber. */
const apiProcess = () => {
  const redis = connect();
  const l = createFailureLimiter({ redis, prefix, limit: 20, windowMs: 60_000, log, subscriber: connect });
  limiters.push(l);
  requestRedisOf.set(l, redis);
  return l;
};
let mon: ScriptMonitor;

beforeAll(async () => {
  mon = await monitorScripts(`${prefix}:authfail:`);
});
afterAll(async () => {
  for (const l of limiters) await l.close();
  const keys = await opened[0]!.keys(`${prefix}:*`);
  if (keys.length) await opened[0]!.del(...keys);
  for (const r of opened) r.disconnect();
  mon?.close();
});

/** Script calls made by `fn`. */
async function callsOf(fn: () => Promise<unknown>): Promise<number> {
  await mon.reset();
  await fn();
  return mon.count();
}

/**
 * Waits until `l`'s copy of the locks is current: a check of a key nobody locked asks Redis
 * nothing (once its request connection is ready: before, no check asks Redis either).
 */
async function listening(l: FailureLimiter): Promise<void> {
  await waitFor(() => requestRedisOf.get(l)!.status === 'ready', 10_000, 20);
  await waitFor(async () => (await callsOf(() => l.check([`src:idle-${randomBytes(4).toString('hex')}`]))) === 0, 10_000, 20);
}

describe('a copy of the locks in each process', () => {
  const a = apiProcess();
  const b = apiProcess();

  it('once listening, checks of keys no process has locked ask Redis nothing', async () => {
    await listening(a);
    const calls = await callsOf(async () => {
      const ds = await Promise.all(Array.from({ length: 50 }, (_, i) => a.check([`src:s${i}`, `apikey:k${i}`])));
      expect(ds.every((d) => d.allowed)).toBe(true);
    });
    expect(calls).toBe(0);
  });

  it('a lock counted by one process is heard by the other, which then asks Redis only about that key', async () => {
    await listening(b);
    for (let i = 0; i < 19; i++) await a.fail(['src:x', 'basic:u']);
    expect(await b.check(['src:x'])).toEqual({ allowed: true });
    await a.fail(['src:x', 'basic:u']);
    // Published by the script that counted the 20th failure: here within moments.
    const d = await waitFor(
      async () => {
        const r = await b.check(['src:y', 'basic:u']);
        return r.allowed ? null : r;
      },
      2000,
      5,
    );
    expect(d.retryAfterSec).toBeGreaterThan(55);
    expect(d.retryAfterSec).toBeLessThanOrEqual(60);
    // A check of other keys still costs nothing; one naming the locked key asks Redis (which decides).
    expect(await callsOf(async () => expect(await b.check(['src:y', 'basic:v'])).toEqual({ allowed: true }))).toBe(0);
    expect(await callsOf(async () => expect(await b.check(['src:x'])).toMatchObject({ allowed: false }))).toBe(1);
  });

  it('the process that counted the lock refuses its next check (the script answered the lock)', async () => {
    for (let i = 0; i < 20; i++) await b.fail(['apikey:g']);
    expect(await b.check(['apikey:g'])).toMatchObject({ allowed: false });
  });

  it('a process that starts listening later loads the locks in force', async () => {
    const c = apiProcess();
    await listening(c);
    expect(await callsOf(async () => expect(await c.check(['basic:u'])).toMatchObject({ allowed: false }))).toBe(1);
    expect(await c.check(['apikey:g'])).toMatchObject({ allowed: false });
  });

  it('a key unlocked before its window ends (a refund) is allowed again, after asking Redis', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, () => a.reserve(['app:k'])));
    expect(rs.every((r) => r.allowed)).toBe(true);
    await waitFor(async () => !(await b.check(['app:k'])).allowed, 2000, 5);
    await a.refund(['app:k']);
    expect(await callsOf(async () => expect(await b.check(['app:k'])).toEqual({ allowed: true }))).toBe(1);
    // Atomic reservations still hold the limit exactly: one slot was given back.
    expect(await b.reserve(['app:k'])).toEqual({ allowed: true });
    expect(await a.reserve(['app:k'])).toMatchObject({ allowed: false });
  });
});
