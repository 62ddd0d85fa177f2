/**
 * `npm run bench -- --only scale`: what the number of client orgs costs when nothing happens
 * (docs/operations.md "Job schedulers at scale"). At each size (default 1,000 and 10,000), in a
 * fresh schema and Redis prefix: one vendor with that many approved connections, each client org
 * with a valid HRMS configuration and a month of sync runs. Then, in this process:
 * - the full pass of the job schedulers from an empty Redis (every scheduler installed) and with
 *   every scheduler in place (nothing to write), wall time and CPU (`process.cpuUsage`);
 * - the periodic check (one PostgreSQL aggregate, one Redis round trip): CPU per check and the
 *   share of a core it takes every 30 s;
 * - the reconcile pass before this design (every org refreshed one by one every 30 s: its two
 *   PostgreSQL reads, the configuration's decryption, one Redis read), replayed for comparison;
 * and against `hrx serve` (a child process): the vendor's connection list (`GET
 * /api/vendor/connections/`, first and last page of 20) p50/p99 and the `/metrics` scrape time.
 */
import { randomBytes } from 'node:crypto';
import { reconcilerDeps } from '../jobs/deps';
import { startScheduleReconciler } from '../jobs/schedules';
import { createConnectionStore } from '../src/connections/store';
import type { Context } from '../src/context';
import { createHrmsConfigStore } from '../src/setup/store';
import { syncSchedulerOrg } from '../src/sync/queue';
import { FREQUENCY_MS } from '../src/sync/schedules';
import { dbQuery } from '../test/support/db';
import { benchEnv, type Child, freePort, openBenchContext, round, runCleanups, seedClientOrgs, spawnNode, waitForHttp } from './lib';

export interface ScaleOptions {
  sizes: number[];
  /** Requests per listing page measured (after 10 not counted). */
  requests: number;
  /** `/metrics` scrapes measured (after 3 not counted). */
  scrapes: number;
  /** Replay the pass from before the periodic check (default true; minutes at 10,000 orgs on a busy machine). */
  oldPass?: boolean;
}

interface Timed {
  wallMs: number;
  cpuMs: number;
}

export interface ScaleSize {
  orgs: number;
  seedSec: number;
  fullPassEmpty: Timed & { installed: number };
  fullPassInPlace: Timed & { changed: number };
  check: Timed & { pgMs: number; pctOfCoreEvery30s: number; inLine: boolean };
  oldPass: (Timed & { pctOfCoreEvery30s: number }) | null;
  list: { firstPage: { p50: number; p99: number }; lastPage: { p50: number; p99: number; page: number }; requests: number };
  metrics: { p50: number; max: number; scrapes: number };
}

export interface ScaleResult {
  sizes: ScaleSize[];
}

const PERIOD_MS = 30_000;
const FREQS = Object.keys(FREQUENCY_MS);
const pct = (sorted: number[], p: number): number => round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!, 2);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall time and this process's CPU (user + system) of `fn`, in ms. */
async function timed<T>(fn: () => Promise<T>): Promise<Timed & { value: T }> {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t;
  const d = process.cpuUsage(c);
  return { value, wallMs: round(wallMs, 2), cpuMs: round((d.user + d.system) / 1000, 2) };
}

/** One vendor (with an API key) and `n` client orgs, each configured, connected and with 30 days of runs. */
export async function seed(ctx: Context, n: number): Promise<{ apiKey: string; clientIds: number[] }> {
  const vendor = await ctx.services.orgs.create({ name: 'Scale Vendor', vendor: true, client: false });
  const apiKey = await ctx.services.orgs.createApiKey(vendor.org.uuid);
  const clientIds = await seedClientOrgs(ctx, n, 'Scale Client');
  // Each configuration encrypted for its own org, as setup-config stores it (the old pass decrypts them).
  const secret = JSON.stringify({
    credentials: { client_id: 'x', client_secret: 'y', api_key: '', grant_type: 'client_credentials', hrms_host: 'http://127.0.0.1:9' },
    apiConfigs: [],
  });
  const enc = clientIds.map((id) => ctx.cipher.encrypt(secret, `hrms-config:${id}`));
  await dbQuery(
    ctx,
    `insert into hrms_configs (org_id, hrms_id, credentials_enc, configured_apis, valid, created_at, updated_at)
     select o, 'reference', e, '{}', true, now(), now() from unnest($1::int[], $2::text[]) as t(o, e)`,
    [clientIds, enc],
  );
  await dbQuery(
    ctx,
    `insert into connections (id, vendor_org_id, client_org_id, status, consent_required, sync_frequency, created_at, status_changed_at)
     select gen_random_uuid(), $1, o, 'approved', false, ($3::text[])[1 + o % array_length($3::text[], 1)], now() - make_interval(secs => o), now()
       from unnest($2::int[]) o`,
    [vendor.org.id, clientIds, FREQS],
  );
  await dbQuery(
    ctx,
    `insert into sync_runs (id, org_id, trigger, status, started_at, finished_at, pages, employees_seen, employees_removed)
     select gen_random_uuid(), o, 'schedule', case when d % 10 = 0 then 'failed' else 'succeeded' end,
            now() - make_interval(days => d), now() - make_interval(days => d) + interval '1 minute', 1, 100, 0
       from unnest($1::int[]) o, generate_series(1, 30) d`,
    [clientIds],
  );
  await dbQuery(ctx, 'analyze');
  return { apiKey, clientIds };
}

/** The reconcile pass as it ran every 30 s before the periodic check: every org refreshed one by one. */
async function oldPass(ctx: Context): Promise<void> {
  const connections = createConnectionStore(ctx.db.orm);
  const configs = createHrmsConfigStore(ctx.db.orm, ctx.cipher);
  const orgs = new Set(await connections.approvedClientOrgs());
  // Listed in pages of 500 (as the full pass does): one call for 10,000 schedulers outlasts the
  // request client's command timeout on this machine.
  const schedulers = [];
  for (let start = 0; ; start += 500) {
    const page = await ctx.syncQueue.queue.getJobSchedulers(start, start + 499, true);
    schedulers.push(...page);
    if (page.length < 500) break;
  }
  for (const s of schedulers) {
    const orgId = syncSchedulerOrg(s.key) ?? syncSchedulerOrg(s.id);
    if (orgId !== null) orgs.add(orgId);
  }
  for (const orgId of orgs) {
    const freqs = await connections.approvedFrequencies(orgId);
    const config = await configs.load(orgId).catch(() => null);
    const every = freqs.length && config?.valid ? Math.min(...freqs.map((f) => FREQUENCY_MS[f] ?? FREQUENCY_MS.daily!)) : null;
    await ctx.syncQueue.setSchedule(orgId, every);
  }
}

/** p50/p99 of `n` sequential GETs of `url` (after 10 not counted); throws on a non-200 answer. */
async function latencies(url: string, headers: Record<string, string>, n: number, warm = 10): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n + warm; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status} (request ${i + 1}): ${body.slice(0, 300)}`);
    if (i >= warm) ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b);
}

/**
 * `hrx serve` on `port`; started again (up to 3 times) when it exits before listening: on a
 * machine this busy its start-up check of Redis (2 s) sometimes gives up.
 */
async function serve(env: Record<string, string>, port: number): Promise<Child> {
  for (let attempt = 1; ; attempt++) {
    const child = spawnNode('hrx', ['bin/hrx.js', 'serve'], { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, child, 90_000);
      return child;
    } catch (err) {
      await child.stop();
      if (attempt >= 3) throw err;
    }
  }
}

async function oneSize(n: number, opts: ScaleOptions, log: (s: string) => void): Promise<ScaleSize> {
  const env = { ...benchEnv(), HRX_ADMIN_TOKEN: randomBytes(24).toString('base64url') };
  const ctx = await openBenchContext(env);
  const t0 = performance.now();
  const { apiKey } = await seed(ctx, n);
  const seedSec = round((performance.now() - t0) / 1000);
  log(`  ${n} client orgs seeded in ${seedSec} s`);

  // The start of a worker: a full pass over an empty Redis (the reconciler's own start, waited for).
  const deps = { ...reconcilerDeps(ctx), everyMs: 3_600_000 };
  const empty = await timed(async () => {
    const r = startScheduleReconciler(deps);
    await r.stop();
    return r;
  });
  const reconciler = empty.value;
  const installed = await ctx.syncQueue.queue.getJobSchedulersCount();
  const inPlace = await timed(() => reconciler.reconcile());
  const checks: Timed[] = [];
  let inLine = true;
  for (let i = 0; i < 21; i++) {
    const c = await timed(() => reconciler.check());
    inLine &&= c.value;
    if (i > 0) checks.push(c);
  }
  const pgMs: number[] = [];
  for (let i = 0; i < 11; i++) pgMs.push((await timed(() => ctx.syncSchedules.fingerprint())).wallMs);
  const check = { wallMs: median(checks.map((c) => c.wallMs)), cpuMs: median(checks.map((c) => c.cpuMs)) };
  const old = opts.oldPass === false ? null : await timed(() => oldPass(ctx));
  log(`  passes measured; serving`);

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = await serve(env, port);
  const lastPage = Math.ceil(n / 20);
  const first = await latencies(`${origin}/api/vendor/connections/?page=1`, { authorization: apiKey }, opts.requests);
  const last = await latencies(`${origin}/api/vendor/connections/?page=${lastPage}`, { authorization: apiKey }, opts.requests);
  const scrape = await latencies(`${origin}/metrics`, { authorization: `Bearer ${env.HRX_ADMIN_TOKEN}` }, opts.scrapes, 3);
  await child.stop();
  await runCleanups();
  return {
    orgs: n,
    seedSec,
    fullPassEmpty: { wallMs: empty.wallMs, cpuMs: empty.cpuMs, installed },
    fullPassInPlace: { wallMs: inPlace.wallMs, cpuMs: inPlace.cpuMs, changed: inPlace.value.length },
    check: { ...check, pgMs: median(pgMs), pctOfCoreEvery30s: round((check.cpuMs / PERIOD_MS) * 100, 4), inLine },
    oldPass: old && { wallMs: old.wallMs, cpuMs: old.cpuMs, pctOfCoreEvery30s: round((old.cpuMs / PERIOD_MS) * 100, 2) },
    list: {
      firstPage: { p50: pct(first, 0.5), p99: pct(first, 0.99) },
      lastPage: { p50: pct(last, 0.5), p99: pct(last, 0.99), page: lastPage },
      requests: opts.requests,
    },
    metrics: { p50: pct(scrape, 0.5), max: round(scrape.at(-1)!, 2), scrapes: opts.scrapes },
  };
}

/** Runs every size in turn (each in its own schema and Redis prefix, dropped after it). */
export async function scaleBench(opts: ScaleOptions, log: (s: string) => void): Promise<ScaleResult> {
  const sizes: ScaleSize[] = [];
  for (const n of opts.sizes) {
    sizes.push(await oneSize(n, opts, log));
    // Each size as soon as it is measured: a later, larger one may fail.
    printScale({ sizes: sizes.slice(-1) }, log);
  }
  return { sizes };
}

/** The summary lines of {@link scaleBench}. */
export function printScale(r: ScaleResult, log: (s: string) => void): void {
  log('\nscale (one vendor, N approved connections, N configured client orgs; this process and one `hrx serve`):');
  for (const s of r.sizes) {
    log(`  ${String(s.orgs).padStart(6)} orgs:`);
    log(
      `    periodic check: ${s.check.cpuMs} ms CPU, ${s.check.wallMs} ms wall (PostgreSQL aggregate ${s.check.pgMs} ms) = ${s.check.pctOfCoreEvery30s} % of a core every 30 s${s.check.inLine ? '' : '  (NOT in line: ran full passes)'}`,
    );
    log(
      `    full pass: from empty Redis ${s.fullPassEmpty.wallMs} ms wall, ${s.fullPassEmpty.cpuMs} ms CPU (${s.fullPassEmpty.installed} schedulers); all in place ${s.fullPassInPlace.wallMs} ms wall, ${s.fullPassInPlace.cpuMs} ms CPU (${s.fullPassInPlace.changed} changed)`,
    );
    if (s.oldPass)
      log(`    old pass (every org refreshed every 30 s): ${s.oldPass.wallMs} ms wall, ${s.oldPass.cpuMs} ms CPU = ${s.oldPass.pctOfCoreEvery30s} % of a core`);
    log(
      `    GET /api/vendor/connections/ (${s.list.requests} each): page 1 p50 ${s.list.firstPage.p50} ms p99 ${s.list.firstPage.p99} ms; page ${s.list.lastPage.page} p50 ${s.list.lastPage.p50} ms p99 ${s.list.lastPage.p99} ms`,
    );
    log(`    GET /metrics (${s.metrics.scrapes} scrapes): p50 ${s.metrics.p50} ms, max ${s.metrics.max} ms`);
  }
}
