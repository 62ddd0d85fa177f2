/**
 * The rate limiter on a real Redis, without HTTP (src/ratelimit/, docs/limits.md "Rate limits"): the Lua script
 * agrees with the pure arithmetic, one event-loop turn is one script call, limiters on separate
 * connections (as separate processes) share one budget, and with Redis unavailable every process
 * limits on its own and says so in a warning.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Redis, type RedisOptions } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GCRA_LUA, gcra, gcraParams } from '../../../src/ratelimit/gcra';
import { createRateLimiter, rateLimitKey, type RateDecision } from '../../../src/ratelimit/limiter';
import { REDIS_URL } from '../../support/harness';

const prefix = `hrxtest:${randomBytes(5).toString('hex')}`;
const clients: Redis[] = [];
const NOW = 1_760_000_000_000_000;

function redis(url = REDIS_URL, opts: RedisOptions = {}): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: null, ...opts });
  r.on('error', () => undefined); // the unavailable-Redis tests expect connection errors
  clients.push(r);
  return r;
}

/** A pino logger writing JSON lines into `lines` (a real logger on a real stream). */
function capturingLogger() {
  const lines: { level: number; msg: string; err?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

/** A client on the test Redis, connected (a limiter decides locally until its client is ready). */
async function readyRedis(): Promise<Redis> {
  const r = redis();
  await r.ping();
  return r;
}

const allowedCount = (ds: RateDecision[]) => ds.filter((d) => d.allowed).length;

type Scripted = Redis & { hrxGcraTest(numKeys: number, ...args: (string | number)[]): Promise<number[]> };
let main: Scripted;
beforeAll(async () => {
  main = redis() as Scripted;
  main.defineCommand('hrxGcraTest', { lua: GCRA_LUA });
  await main.ping();
});
afterAll(async () => {
  const keys = await main.keys(`${prefix}:*`);
  if (keys.length) await main.del(...keys);
  for (const c of clients) c.disconnect();
});

describe('the Lua script', () => {
  it('agrees with the pure arithmetic on every step of a random sequence, TTL included', async () => {
    // Intervals of seconds: keys expire in real time (PX), so none may expire during the loop.
    for (const [limit, windowMs] of [
      [5, 60_000],
      [7, 60_000],
      [600, 3_600_000],
      [3, 86_400_000],
    ] as const) {
      const p = gcraParams(limit, windowMs);
      const keys = [0, 1, 2].map((i) => `${prefix}:script:${limit}:${i}`);
      const tats: (number | undefined)[] = [undefined, undefined, undefined];
      let now = NOW;
      for (let step = 0; step < 60; step++) {
        now += Math.floor(Math.random() * p.intervalUs * 3);
        const ns = keys.map(() => Math.floor(Math.random() * Math.min(limit + 2, 12)));
        const reply = await main.hrxGcraTest(keys.length, ...keys, p.intervalUs, p.limit, now, ...ns);
        const expected = keys.flatMap((_, i) => {
          const e = gcra(tats[i], now, ns[i]!, p);
          if (e.allowed > 0) tats[i] = e.tatUs;
          return [e.allowed, e.waitUs];
        });
        expect({ step, reply }).toEqual({ step, reply: expected });
        const stored = await Promise.all(keys.map((k) => main.get(k)));
        expect(stored).toEqual(tats.map((t) => (t === undefined ? null : String(t))));
      }
      // Each key lives until its budget is full again (by the test's clock: at most one span).
      for (const k of keys) {
        const ttl = await main.pttl(k);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(Math.ceil((p.intervalUs * p.limit) / 1000) + 1);
      }
    }
  });

  it("a limit above one per µs (the benchmarks' 10⁹ a minute) still counts exactly", async () => {
    const p = gcraParams(1_000_000_000, 60_000);
    const key = `${prefix}:script:huge`;
    expect(await main.hrxGcraTest(1, key, p.intervalUs, p.limit, NOW, 5000)).toEqual([5000, 0]);
    expect(await main.get(key)).toBe(String(NOW + 5000));
  });

  it('uses the Redis clock when no time is given', async () => {
    const key = `${prefix}:script:clock`;
    const before = Date.now() * 1000;
    expect(await main.hrxGcraTest(1, key, 1_000_000, 3, '', 5)).toEqual([3, 1_000_000]);
    const tat = Number(await main.get(key));
    // Three intervals past the server's now (machine and Redis share a clock here).
    expect(tat - 3_000_000).toBeGreaterThanOrEqual(before - 5_000_000);
    expect(tat - 3_000_000).toBeLessThanOrEqual(Date.now() * 1000 + 5_000_000);
  });
});

describe('the limiter', () => {
  it('decides one event-loop turn in one script call, per credential in arrival order', async () => {
    const { log } = capturingLogger();
    const limiter = createRateLimiter({ redis: await readyRedis(), prefix, limit: 35, windowMs: 3_600_000, log });
    await limiter.take(`warm-${randomUUID()}`); // loads the script (EVALSHA from now on)
    const monitor = await redis().monitor();
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      // Scripts' own GET/SET show up too; count the calls.
      if (/^eval/i.test(args[0] ?? '') && args.some((a) => a.startsWith(`${prefix}:ratelimit:`))) seen.push(args);
    });
    await new Promise((r) => setTimeout(r, 100));
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const asked = [...Array(50).fill(a), ...Array(40).fill(b), ...Array(30).fill(c)] as string[];
    const decisions = await Promise.all(asked.map((id) => limiter.take(id)));
    await new Promise((r) => setTimeout(r, 200)); // MONITOR output arrives on its own connection
    monitor.disconnect();
    expect(seen.map((s) => [s[0]!.toLowerCase(), s[2], ...s.slice(3, 6).map((k) => k.split(':').pop())])).toEqual([['evalsha', '3', a, b, c]]);
    expect(seen[0]!.slice(-3)).toEqual(['50', '40', '30']);
    const per = (id: string) => decisions.filter((_, i) => asked[i] === id);
    expect([allowedCount(per(a)), allowedCount(per(b)), allowedCount(per(c))]).toEqual([35, 35, 30]);
    // The first ones asked are the ones allowed; the refused wait one interval (3600 s / 35).
    expect(
      per(a)
        .slice(0, 35)
        .every((d) => d.allowed),
    ).toBe(true);
    expect(per(a)[35]).toEqual({ allowed: false, retryAfterSec: 103 });
  });

  it('limiters on separate connections (as separate API processes) share one budget', async () => {
    const { log } = capturingLogger();
    const opts = { prefix, limit: 50, windowMs: 3_600_000, log };
    const [one, two] = [createRateLimiter({ ...opts, redis: await readyRedis() }), createRateLimiter({ ...opts, redis: await readyRedis() })];
    const id = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? one : two).take(id)));
    expect(allowedCount(decisions)).toBe(50);
    // Later turns of either limiter see the spent budget.
    expect(await Promise.all([one.take(id), two.take(id)])).toEqual([
      { allowed: false, retryAfterSec: 72 },
      { allowed: false, retryAfterSec: 72 },
    ]);
  });
});

describe('leases (limits of 10,000 or more per window)', () => {
  it('two limiters never allow more than the limit together, leave at most their leases unused, and call the script far less than once a turn', async () => {
    const { log } = capturingLogger();
    // 20,000 a day: leases of at most 20 requests (a thousandth of the limit); the budget
    // refills one request per 4.3 s, so none during the test.
    const opts = { prefix, limit: 20_000, windowMs: 86_400_000, log };
    const [one, two] = [createRateLimiter({ ...opts, redis: await readyRedis() }), createRateLimiter({ ...opts, redis: await readyRedis() })];
    const id = randomUUID();
    await Promise.all([one.take(`warm-${randomUUID()}`), two.take(`warm-${randomUUID()}`)]); // EVALSHA from now on
    const monitor = await redis().monitor();
    let calls = 0;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/^eval/i.test(args[0] ?? '') && args.some((a) => a === rateLimitKey(prefix, id))) calls++;
    });
    await new Promise((r) => setTimeout(r, 100));
    // 200 turns of 5 requests on each limiter: all within the limit.
    let allowed = 0;
    for (let turn = 0; turn < 200; turn++) {
      const ds = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).take(id)));
      allowed += allowedCount(ds);
    }
    await new Promise((r) => setTimeout(r, 200)); // MONITOR output arrives on its own connection
    monitor.disconnect();
    expect(allowed).toBe(2000);
    // Without leases: one call per limiter per turn (400). A lease holds up to 20 more requests.
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThanOrEqual(200);
    // Spend the rest of the budget from both: never more than the limit in all, and what the
    // script counted but no request used is at most the two leases held at the end (2 × 20).
    for (let turn = 0; turn < 40; turn++) {
      const ds = await Promise.all(Array.from({ length: 600 }, (_, i) => (i % 2 ? one : two).take(id)));
      allowed += allowedCount(ds);
    }
    expect(allowed).toBeLessThanOrEqual(20_000);
    expect(allowed).toBeGreaterThanOrEqual(20_000 - 40);
    expect(await one.take(id)).toMatchObject({ allowed: false });
  });
});

describe('Redis unavailable', () => {
  let blackhole: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Accepts connections and never answers: a Redis that hangs.
    blackhole = createServer((s) => {
      sockets.push(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => blackhole.close(r));
  });

  it('not connected: each process limits on its own at once, with one warning', async () => {
    // A port nothing listens on: take a free one and let it go.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const { log, lines } = capturingLogger();
    const down = redis(`redis://127.0.0.1:${port}`);
    const limiter = createRateLimiter({ redis: down, prefix, limit: 50, windowMs: 60_000, log });
    const id = randomUUID();
    const t0 = Date.now();
    const first = await Promise.all(Array.from({ length: 60 }, () => limiter.take(id)));
    const second = await Promise.all(Array.from({ length: 5 }, () => limiter.take(id)));
    expect(Date.now() - t0).toBeLessThan(500);
    expect(allowedCount(first)).toBe(50);
    expect(first[50]).toEqual({ allowed: false, retryAfterSec: 2 }); // 60 s / 50 = 1.2 s
    expect(allowedCount(second)).toBe(0);
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings.map((w) => w.msg)).toEqual(['rate limiter: Redis unavailable, limiting per process']);
    expect(JSON.stringify(lines)).not.toContain(id);
  });

  it('no answer within the timeout: decided in this process after it', async () => {
    const port = (blackhole.address() as AddressInfo).port;
    const hung = redis(`redis://127.0.0.1:${port}`, { enableReadyCheck: false, disableClientInfo: true });
    await new Promise((r) => hung.once('ready', r));
    const { log, lines } = capturingLogger();
    const limiter = createRateLimiter({ redis: hung, prefix, limit: 3, windowMs: 60_000, log, timeoutMs: 150 });
    const t0 = Date.now();
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.take('c1')));
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(1000);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(lines.filter((l) => l.level === 40).map((l) => l.err)).toEqual(['no answer within 150 ms']);
  });

  it('back after an outage: shared again, and says so', async () => {
    const { log, lines } = capturingLogger();
    const flaky = redis(REDIS_URL, { lazyConnect: true });
    const limiter = createRateLimiter({ redis: flaky, prefix, limit: 10, windowMs: 3_600_000, log });
    const id = randomUUID();
    expect(allowedCount(await Promise.all(Array.from({ length: 4 }, () => limiter.take(id))))).toBe(4);
    expect(await main.exists(rateLimitKey(prefix, id))).toBe(0); // decided locally
    await flaky.connect();
    expect(allowedCount(await Promise.all(Array.from({ length: 12 }, () => limiter.take(id))))).toBe(10);
    expect(await main.exists(rateLimitKey(prefix, id))).toBe(1);
    expect(lines.map((l) => l.msg)).toEqual(['rate limiter: Redis unavailable, limiting per process', 'rate limiter: Redis is back, limits are shared again']);
  });
});
