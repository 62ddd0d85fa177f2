/**
 * Shared plumbing of the benchmarks: a fresh schema / Redis prefix per benchmark, seeding through
 * the real services, child processes (with their RSS and CPU read from /proc), free ports and a
 * cleanup registry that also runs on Ctrl-C and on failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../src/config';
import { openContext, type Context } from '../src/context';
import { migrate } from '../src/db/orm';
import { startHrmsSimulator } from '../src/hrms/sim/server';
import { statusMiB } from './proc';
import { createLogger } from '../src/logger';
// The bench reads and seeds rows through its own pool on the bench schema, as the tests do.
import { closeTestDb, dbQuery, storesOf } from '../test/support/db';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/* ------------------------------------------------------------------ cleanup */

const cleanups: { name: string; fn: () => Promise<unknown> }[] = [];

/** Registers `fn` to run at the end (last registered runs first); returns an unregister function. */
export function onCleanup(name: string, fn: () => Promise<unknown>): () => void {
  const entry = { name, fn };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

let draining: Promise<void> = Promise.resolve();
let aborting = false;

/** Runs every registered cleanup (each bounded to 20 s), newest first; concurrent calls queue up. */
export function runCleanups(): Promise<void> {
  draining = draining.then(async () => {
    while (cleanups.length) {
      const { name, fn } = cleanups.pop()!;
      const timeout = sleep(20_000).then(() => {
        throw new Error('timed out');
      });
      await Promise.race([fn(), timeout]).catch((err: unknown) => {
        process.stderr.write(`bench: cleanup "${name}" failed: ${(err as Error).message}\n`);
      });
    }
  });
  return draining;
}

/** Ctrl-C: no new child processes from now on; then clean up. */
export function abortAndCleanUp(): Promise<void> {
  aborting = true;
  return runCleanups();
}

/* ----------------------------------------------------------- environments */

/** Environment of one benchmark's hrx: its own schema, Redis prefix and master key. */
export function benchEnv(): Record<string, string> {
  const id = randomBytes(5).toString('hex');
  return {
    DATABASE_URL,
    REDIS_URL,
    HRX_DB_SCHEMA: `bench_${id}`,
    HRX_REDIS_PREFIX: `hrxbench:${id}`,
    HRX_MASTER_KEY: randomBytes(32).toString('base64'),
    // One API key drives >10k requests/s: a limit no run reaches (a burst of 10⁹), so the
    // limiter stays on and its cost (one Redis script call per event-loop turn) is measured
    // without turning a load test into a 429 test.
    HRX_RATE_LIMIT_PER_MINUTE: '1000000000',
    // The reference simulator the syncs read from listens on 127.0.0.1.
    HRX_HRMS_ALLOW_PRIVATE_HOSTS: '1',
    LOG_LEVEL: 'warn',
  };
}

/** Opens a context on `env` (in this process), migrated, and registers dropping its schema and keys. */
export async function openBenchContext(env: Record<string, string>): Promise<Context> {
  if (aborting) throw new Error('interrupted');
  const config = loadConfig(env);
  const ctx = await openContext(config, createLogger('warn', 'bench'), { poolMax: 5 });
  onCleanup(`schema ${env.HRX_DB_SCHEMA}`, () => dropSchema(env.HRX_DB_SCHEMA!));
  onCleanup(`redis ${env.HRX_REDIS_PREFIX}`, () => deleteRedisPrefix(env.HRX_REDIS_PREFIX!));
  onCleanup(`context ${env.HRX_DB_SCHEMA}`, async () => {
    await ctx.syncQueue.obliterate().catch(() => undefined);
    await closeTestDb(ctx);
    await ctx.close();
  });
  await migrate(ctx.db, ctx.migrationKeys);
  return ctx;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** Deletes every Redis key under `prefix:` (SCAN, bounded). */
export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 });
  try {
    let cursor = '0';
    const deadline = Date.now() + 15_000;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0' && Date.now() < deadline);
  } finally {
    redis.disconnect();
  }
}

/** A vendor with an API key, a client, and an approved connection without consent requirement (and no sync queued). */
export async function seedOrgs(ctx: Context) {
  const vendor = await ctx.services.orgs.create({ name: 'Bench Vendor', vendor: true, client: false });
  const apiKey = await ctx.services.orgs.createApiKey(vendor.org.uuid);
  const client = await ctx.services.orgs.create({ name: 'Bench Client', vendor: false, client: true });
  await ctx.services.connections.create({
    vendorUuid: vendor.org.uuid,
    clientUuid: client.org.uuid,
    status: 'approved',
    consentRequired: false,
  });
  // The first approval queues a sync (docs/behaviour.md "Sync"); a benchmark times the syncs it queues
  // itself, so that one must not run first (or at the same time) in the worker it starts later.
  await ctx.syncQueue.queue.drain(true);
  return { vendor: vendor.org, apiKey, client: client.org };
}

/**
 * `n` client orgs named `<name> 0` … `<name> n-1`: the first made by the org service, the others
 * copies of its row in one `insert … select` (the service takes seconds per org on a busy
 * machine), every column copied but the unique ones (uuid, name, app_key, remote org id).
 * Returns their ids, the service-made one first.
 */
export async function seedClientOrgs(ctx: Context, n: number, name: string): Promise<number[]> {
  const template = await ctx.services.orgs.create({ name: `${name} 0`, vendor: false, client: true });
  const columns = (
    await dbQuery<{ column_name: string }>(
      ctx,
      `select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'orgs' and column_name <> 'id'`,
    )
  ).rows.map((r) => r.column_name);
  const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const fresh: Record<string, string> = {
    uuid: 'gen_random_uuid()',
    org_name: `${literal(name + ' ')} || i`,
    org_name_key: `${literal(name.toLowerCase() + ' ')} || i`,
    app_key: `${literal(name.toLowerCase().replace(/\W+/g, '-') + '-')} || i || '-' || md5(random()::text)`,
    remote_org_id: 'null',
  };
  const copies = await dbQuery<{ id: number }>(
    ctx,
    `insert into orgs (${columns.map((c) => `"${c}"`).join(', ')})
     select ${columns.map((c) => fresh[c] ?? `"${c}"`).join(', ')} from orgs, generate_series(1, $2::int) i where id = $1 returning id`,
    [template.org.id, n - 1],
  );
  return [template.org.id, ...copies.rows.map((r) => r.id)];
}

/** Stores the client org's HRMS configuration pointing at a simulator (what setup-config saves). */
export async function configureHrms(ctx: Context, orgId: number, sim: { url: string }, creds: { clientId: string; clientSecret: string }): Promise<void> {
  await storesOf(ctx).hrmsConfigs.save({
    orgId,
    hrmsId: 'reference',
    apiConfigs: [],
    credentials: { hrms_host: sim.url, grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret },
  });
}

/**
 * Syncs `n` employees into client org `clientOrgId` through the real sync service, from a
 * reference simulator started and stopped here. Returns their employee ids (sorted) and the sync's
 * wall time in ms. Throws when the sync does not store exactly `n` employees.
 */
export async function seedEmployees(ctx: Context, clientOrgId: number, n: number): Promise<{ ids: string[]; seedSyncMs: number }> {
  const simCreds = { clientId: 'bench-client', clientSecret: randomBytes(18).toString('base64url') };
  const sim = await startHrmsSimulator({ employees: n, seed: 'hrx-bench', ...simCreds });
  const closeSim = onCleanup('simulator', () => sim.close());
  try {
    await configureHrms(ctx, clientOrgId, sim, simCreds);
    const t0 = performance.now();
    const outcome = await ctx.services.sync.run(clientOrgId, 'bench', `bench-seed-${randomBytes(4).toString('hex')}`);
    const seedSyncMs = round(performance.now() - t0, 0);
    if (outcome.status !== 'succeeded' || outcome.employees !== n) throw new Error(`seeding sync did not succeed: ${JSON.stringify(outcome)}`);
    const ids = (
      await dbQuery<{ employee_id: string }>(ctx, 'select employee_id from employees where org_id = $1 and removed_at is null order by employee_id', [
        clientOrgId,
      ])
    ).rows.map((r) => r.employee_id);
    if (ids.length !== n) throw new Error(`expected ${n} employees in the store, found ${ids.length}`);
    return { ids, seedSyncMs };
  } finally {
    closeSim();
    await sim.close();
  }
}

/* --------------------------------------------------------------- children */

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  hasExited(): boolean;
  stdout(): string;
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `node <args>` (this Node.js) in the project root; killed at cleanup if still running. */
export function spawnNode(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  if (aborting) throw new Error('interrupted');
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (proc.pid === undefined) throw new Error(`could not spawn ${name}`);
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.length > 1_000_000) out = out.slice(-500_000);
  });
  proc.stderr.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-8000);
  });
  let done = false;
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      done = true;
      resolve(code);
    }),
  );
  const stop = async (graceMs = 10_000): Promise<void> => {
    if (done) return;
    proc.kill('SIGTERM');
    const t = setTimeout(() => {
      if (!done) proc.kill('SIGKILL');
    }, graceMs);
    await exited;
    clearTimeout(t);
  };
  const unregister = onCleanup(`child ${name}`, () => stop(5_000));
  void exited.then(unregister);
  return { name, proc, pid: proc.pid, exited, hasExited: () => done, stdout: () => out, stderrTail: () => err.trim(), stop };
}

/** Polls `url` until it answers any HTTP status (throws if `child` exits or `timeoutMs` passes). */
export async function waitForHttp(url: string, child: Child, timeoutMs = 60_000, headers: Record<string, string> = {}): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.hasExited()) throw new Error(`${child.name} exited before it listened:\n${child.stderrTail()}`);
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return res.status;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer at ${url} within ${timeoutMs} ms:\n${child.stderrTail()}`);
    await sleep(100);
  }
}

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/* ------------------------------------------------------------------- /proc */

// The /proc readers live in bench/proc.ts; every benchmark imports them from here.
export * from './proc';

/** Samples a process's VmRSS every `everyMs`; `window()` starts a new window of peak tracking. */
export function rssSampler(pid: number, everyMs = 100) {
  let peak = 0;
  let windowPeak = 0;
  let samples = 0;
  const tick = () => {
    const v = statusMiB(pid, 'VmRSS');
    if (v === null) return;
    samples++;
    peak = Math.max(peak, v);
    windowPeak = Math.max(windowPeak, v);
  };
  tick();
  const timer = setInterval(tick, everyMs);
  const stopTimer = onCleanup(`rss sampler ${pid}`, () => {
    clearInterval(timer);
    return Promise.resolve();
  });
  return {
    window() {
      tick();
      windowPeak = statusMiB(pid, 'VmRSS') ?? 0;
    },
    read() {
      tick();
      return { peakMiB: peak, windowPeakMiB: windowPeak, samples };
    },
    stop() {
      tick();
      clearInterval(timer);
      stopTimer();
      return { peakMiB: peak, windowPeakMiB: windowPeak, samples };
    },
  };
}

/* ------------------------------------------------------------------ misc */

/** Waits (at most 90 s, while `worker` is an `hrx worker`) until a worker is registered on the sync queue; throws with its stderr if it exits first. */
export async function workerRegistered(ctx: Context, worker: Child): Promise<void> {
  await poll(
    'the worker to register on the queue',
    async () => {
      if (worker.hasExited()) throw new Error(`worker exited:\n${worker.stderrTail()}`);
      return (await ctx.syncQueue.queue.getWorkersCount()) > 0 ? true : undefined;
    },
    90_000,
  );
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Polls `fn` every `everyMs` until it returns a non-undefined value; throws after `timeoutMs`. */
export async function poll<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/* ------------------------------------------------------ load run plumbing */

/** The load options of `employee_details`, `external` and `tail_latency` (`npm run bench` flags, as text). */
export interface LoadFlags {
  employees?: string | undefined;
  connections?: string | undefined;
  duration?: string | undefined;
  warmup?: string | undefined;
}

/** A flag's positive number, `d` when absent; throws on anything else. */
export function positiveNumber(v: string | undefined, d: number): number {
  const n = v === undefined ? d : Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`bad number "${v}"`);
  return n;
}

/** `--employees` (default 1,000), `--connections` (50), `--duration` (10 s) and `--warmup` (2 s). */
export function loadOptions(f: LoadFlags): { employees: number; connections: number; durationSec: number; warmupSec: number } {
  return {
    employees: positiveNumber(f.employees, 1000),
    connections: positiveNumber(f.connections, 50),
    durationSec: positiveNumber(f.duration, 10),
    warmupSec: positiveNumber(f.warmup, 2),
  };
}
