/**
 * Integration-test harness: a fresh PostgreSQL schema and Redis prefix per test file, the real
 * app on a real port, the real sync worker, and the reference HRMS simulator. Nothing mocked.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Worker } from 'bullmq';
import { destination, type DestinationStream } from 'pino';
import path from 'node:path';
import { startEventsWorker } from '../../jobs/events.worker';
import { startHousekeepingWorker } from '../../jobs/housekeeping.worker';
import { startSyncWorker } from '../../jobs/sync.worker';
import { eventsWorkerDeps, housekeepingWorkerDeps, syncWorkerDeps } from '../../jobs/deps';
import { buildApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { openContext, type Context } from '../../src/context';
import { migrate } from '../../src/db/orm';
import { startHrmsSimulator, type SimOptions } from '../../src/hrms/sim/server';
import { createLogger } from '../../src/logger';
import { listen } from '../../src/server';
import { inject } from 'vitest';
import { HRX_BIN } from './cli';
import { closeTestDb } from './db';
import { startMailbox, type Mailbox } from './mailbox';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, type TestServices } from './services';

/**
 * The run's PostgreSQL and Redis, as the global setup chose them (test/support/services.ts:
 * DATABASE_URL/REDIS_URL, Testcontainers, or the machine's 127.0.0.1 services).
 */
const services = inject('testServices') as TestServices | undefined;
export const DATABASE_URL = services?.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
export const REDIS_URL = services?.redisUrl ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;

/** Environment of a test file's own hrx: its schema, Redis prefix and master key. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const id = randomBytes(5).toString('hex');
  return {
    DATABASE_URL,
    REDIS_URL,
    HRX_DB_SCHEMA: `t_${id}`,
    HRX_REDIS_PREFIX: `hrxtest:${id}`,
    HRX_MASTER_KEY: randomBytes(32).toString('base64'),
    HRX_ADMIN_TOKEN: randomBytes(24).toString('base64url'),
    HRX_SYNC_LOCK_TTL_SEC: '5',
    HRX_HRMS_RETRY_MIN_MS: '20',
    HRX_HRMS_RETRIES: '12',
    // The reference simulator of the tests listens on 127.0.0.1 (tests of the guard set '0').
    HRX_HRMS_ALLOW_PRIVATE_HOSTS: '1',
    // With HRX_TEST_LOG_DIR, every line goes to a file the suite's teardown scans (log-scan.ts).
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? (process.env.HRX_TEST_LOG_DIR ? 'debug' : 'silent'),
    PORT: '0',
    ...extra,
  };
}

/** A running hrx for one test file. */
export interface TestApp {
  env: Record<string, string>;
  config: Config;
  ctx: Context;
  url: string;
  worker: Worker | undefined;
  /**
   * The in-process SMTP server hrx sends its Connect e-mail codes to (HRX_SMTP_URL), unless the
   * test's `env` names HRX_SMTP_URL itself ('' for none: then undefined).
   */
  mailbox: Mailbox | undefined;
  startWorker(): Worker;
  /**
   * Starts the events worker (deliveries) and the housekeeping worker (consent scan, relay, with
   * their job schedulers), as `hrx worker` does; resolves with the events worker.
   */
  startEventsWorker(): Promise<Worker>;
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 now (the OS's pick; closed again before it is returned). */
export async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * Starts hrx (API, and the worker unless `worker: false`) on a fresh schema, on `port` (default:
 * any free one; a test that must name its own URL in HRX_PUBLIC_URL picks it with {@link freePort}).
 */
export async function startTestApp(
  opts: { worker?: boolean; env?: Record<string, string>; logStream?: DestinationStream; port?: number } = {},
): Promise<TestApp> {
  const mailbox = opts.env && 'HRX_SMTP_URL' in opts.env ? undefined : await startMailbox();
  const env = testEnv({ ...(mailbox ? { HRX_SMTP_URL: mailbox.url, HRX_SMTP_FROM: 'hrx test <no-reply@hrx.test>' } : {}), ...opts.env });
  const config = loadConfig(env);
  // `logStream`: the app's log lines go there (a test reading every line, test/integration/cross/logs-pii).
  const logDir = process.env.HRX_TEST_LOG_DIR;
  const log = createLogger(
    config.LOG_LEVEL,
    'hrx',
    opts.logStream ?? (logDir ? destination({ dest: path.join(logDir, `${config.HRX_DB_SCHEMA}.log`), mkdir: true, sync: true }) : undefined),
  );
  const ctx = await openContext(config, log, { poolMax: 5 });
  await migrate(ctx.db, ctx.migrationKeys);
  const server = await listen(buildApp(ctx, { validateResponses: true }), '127.0.0.1', opts.port ?? 0, config.HRX_BASE_PATH, log);
  const workers: Worker[] = [];
  const app: TestApp = {
    env,
    config,
    ctx,
    url: server.url,
    worker: undefined,
    mailbox,
    startWorker() {
      const w = startSyncWorker(syncWorkerDeps(ctx));
      workers.push(w);
      app.worker = w;
      return w;
    },
    async startEventsWorker() {
      const w = startEventsWorker(eventsWorkerDeps(ctx));
      workers.push(w);
      workers.push(await startHousekeepingWorker(housekeepingWorkerDeps(ctx)));
      return w;
    },
    async stop() {
      await server.stop();
      for (const w of workers) await w.close(true).catch(() => undefined);
      await ctx.syncQueue.obliterate().catch(() => undefined);
      await ctx.eventsQueue.queue.obliterate({ force: true }).catch(() => undefined);
      await ctx.housekeepingQueue.queue.obliterate({ force: true }).catch(() => undefined);
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${config.HRX_REDIS_PREFIX}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await closeTestDb(ctx);
      await ctx.close();
      await dropSchema(config.HRX_DB_SCHEMA);
      await mailbox?.close();
    },
  };
  if (opts.worker !== false) app.startWorker();
  return app;
}

/** Drops a test schema. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
}

/** Starts the simulator with test defaults (on 127.0.0.1 unless `host` says otherwise). */
export function startSim(opts: Partial<SimOptions> & { host?: string; port?: number } = {}) {
  return startHrmsSimulator({
    employees: 25,
    seed: 'test-seed',
    clientId: 'sim-client',
    clientSecret: 'sim-secret-' + randomUUID(),
    ...opts,
  });
}

/** Polls `fn` every `everyMs` until it returns a truthy value or `timeoutMs` passes (then throws). */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 30_000, everyMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`waitFor timed out${last ? `: ${last instanceof Error ? last.toString() : JSON.stringify(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A JSON HTTP call against the app; returns status, headers and parsed body. */
export async function call(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

/** A second API process of a test's hrx, for behaviour shared across processes. */
export interface SecondApi {
  url: string;
  /** Its stdout and stderr so far (for failure messages). */
  log(): string;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Spawns `hrx serve` on `app`'s schema, Redis prefix and keys (its env) on a free port, and
 * waits until it answers /healthz (throws with its output when it does not within 60 s).
 */
export async function startSecondApi(app: Pick<TestApp, 'env'>, extraEnv: Record<string, string> = {}): Promise<SecondApi> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [HRX_BIN, 'serve'], {
    env: { ...process.env, ...app.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const second: SecondApi = {
    url: `http://127.0.0.1:${port}`,
    log: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
  await waitFor(async () => (await call(`${second.url}/healthz`)).status === 200, 60_000, 200).catch(async (err: unknown) => {
    await second.stop();
    throw new Error(`second hrx did not start: ${String(err)}\n${out}`);
  });
  return second;
}

/** Median wall time (ms) of `runs` sequential calls of `fn` (timing-oracle checks). */
export async function medianMs(fn: () => Promise<unknown>, runs = 7): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((x, y) => x - y)[Math.floor(runs / 2)]!;
}
