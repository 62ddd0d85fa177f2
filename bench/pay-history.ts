/**
 * Benchmark `pay_history` (docs/benchmarks.md "pay_history", docs/pay-history.md "Read"): an org
 * synced from the reference simulator, whose first full sync backfills up to 24 pay months per
 * employee, then `GET /api/employee_details/{id}/pay_history/?months=12` against the plain read
 * `GET /api/employee_details/{id}` of the same hrx child, measured alternately (`rounds` times,
 * HRX_BENCH_ROUNDS, default 3) so a slow patch of the machine hits both; the figures are those of
 * the median round by pay_history/plain. Also the stored bytes per pay month
 * (`pg_total_relation_size('pay_months')` over its rows, and that of `pay_envelopes`, the served
 * form), and the peak RSS of the `hrx worker`
 * that runs the org's first full sync with the backfill against that of the same sync of the same
 * org (same simulator seed and size, its own schema) from a simulator whose payroll holds no
 * history, each in a fresh worker process sampled every 100 ms.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startHrmsSimulator } from '../src/hrms/sim/server';
import type { Context } from '../src/context';
import {
  benchEnv,
  configureHrms,
  freePort,
  onCleanup,
  openBenchContext,
  poll,
  ROOT,
  round,
  rssSampler,
  seedOrgs,
  spawnNode,
  statusMiB,
  waitForHttp,
  workerRegistered,
  type Child,
} from './lib';
import { dbQuery } from '../test/support/db';
import { measureLoad, type LoadFigures } from './load';
import { summariseProfile, type ProfileSummary } from './profile';

/** One org's first full sync in an `hrx worker` of its own: wall time and the worker's peak RSS. */
interface WorkerSync {
  wallMs: number;
  idleRssMiB: number;
  peakRssMiB: number;
}

/**
 * Syncs `employees` from a reference simulator (payroll history `payHistoryMonths` deep) into
 * `ctx`'s client org `clientId` in a fresh `hrx worker` (`env`: the context's), sampling the
 * worker's RSS every 100 ms during the sync.
 */
async function syncInWorker(
  ctx: Context,
  env: Record<string, string>,
  clientId: number,
  employees: number,
  payHistoryMonths: number,
  log: (s: string) => void,
): Promise<WorkerSync> {
  const simCreds = { clientId: 'bench-client', clientSecret: randomBytes(18).toString('base64url') };
  const sim = await startHrmsSimulator({ employees, seed: 'hrx-bench', payHistoryMonths, ...simCreds });
  const closeSim = onCleanup('simulator', () => sim.close());
  await configureHrms(ctx, clientId, sim, simCreds);
  const worker = spawnNode(`worker-pay-${payHistoryMonths}`, ['bin/hrx.js', 'worker'], { ...process.env, ...env });
  const rss = rssSampler(worker.pid, 100);
  try {
    await workerRegistered(ctx, worker);
    const idleRssMiB = round(statusMiB(worker.pid, 'VmRSS') ?? 0, 1);
    rss.window();
    const t0 = performance.now();
    await ctx.syncQueue.syncNow(clientId, 'bench');
    await poll(
      `the ${employees}-employee sync (payroll history ${payHistoryMonths} months) to succeed`,
      async () => {
        if (worker.hasExited()) throw new Error(`worker exited during the sync:\n${worker.stderrTail()}`);
        const r = (
          await dbQuery<{ status: string; error: string | null }>(
            ctx,
            `select status, error from sync_runs where org_id = $1 order by started_at desc limit 1`,
            [clientId],
          )
        ).rows[0];
        if (r?.status === 'failed') throw new Error(`sync failed: ${r.error}`);
        return r?.status === 'succeeded' ? true : undefined;
      },
      3_600_000,
      200,
    );
    const wallMs = round(performance.now() - t0, 0);
    const peakRssMiB = round(rss.read().windowPeakMiB, 1);
    log(`  sync of ${employees} employees, payroll history ${payHistoryMonths} months: ${wallMs} ms, worker peak RSS ${peakRssMiB} MiB (idle ${idleRssMiB})`);
    return { wallMs, idleRssMiB, peakRssMiB };
  } finally {
    rss.stop();
    await worker.stop(15_000);
    closeSim();
    await sim.close();
  }
}

export interface PayHistoryOptions {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** When set, the hrx child runs with `--cpu-prof` into this directory (both reads in one profile). */
  profileDir?: string | undefined;
}

export interface PayHistoryResult {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  seedSyncMs: number;
  /** Peak RSS (MiB) of the worker running the first full sync with the backfill, and of the same sync without history. */
  backfillRssMiB: number;
  noHistoryRssMiB: number;
  /** backfillRssMiB / noHistoryRssMiB; target ≤ 1.15. */
  rssRatio: number;
  rssTarget: number;
  rssTargetMet: boolean;
  payMonths: number;
  payMonthsPerEmployee: number;
  storedBytes: number;
  bytesPerPayMonth: number;
  /** `pg_total_relation_size('pay_envelopes')`: the served form, one envelope per employee. */
  envelopeBytes: number;
  plain: LoadFigures;
  payHistory: LoadFigures;
  /** pay_history req/s over the plain read's, of the median round; target ≥ 0.8. */
  ratio: number;
  target: number;
  targetMet: boolean;
  rounds: { plainRps: number; payHistoryRps: number; ratio: number }[];
  profile?: ProfileSummary;
}

/** The pay_history / plain ratio the read must reach (docs/benchmarks.md "pay_history"). */
export const PAY_HISTORY_TARGET = 0.8;
/** The most the sync's peak RSS with the backfill may exceed the same sync's without history. */
export const PAY_BACKFILL_RSS_TARGET = 1.15;

export async function payHistoryBench(o: PayHistoryOptions, log: (s: string) => void): Promise<PayHistoryResult> {
  // The same sync without history first, in a schema of its own.
  const baseEnv = benchEnv();
  const baseCtx = await openBenchContext(baseEnv);
  const base = await syncInWorker(baseCtx, baseEnv, (await seedOrgs(baseCtx)).client.id, o.employees, 0, log);
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const { vendor, apiKey, client } = await seedOrgs(ctx);
  const backfill = await syncInWorker(ctx, env, client.id, o.employees, 36, log);
  const seedSyncMs = backfill.wallMs;
  const ids = (
    await dbQuery<{ employee_id: string }>(ctx, 'select employee_id from employees where org_id = $1 and removed_at is null order by employee_id', [client.id])
  ).rows.map((r) => r.employee_id);
  if (ids.length !== o.employees) throw new Error(`expected ${o.employees} employees in the store, found ${ids.length}`);
  const stored = (
    await dbQuery<{ n: number; bytes: string; envelope_bytes: string }>(
      ctx,
      `select count(*)::int as n, pg_total_relation_size('pay_months'::regclass)::text as bytes,
              pg_total_relation_size('pay_envelopes'::regclass)::text as envelope_bytes from pay_months`,
    )
  ).rows[0]!;
  log(`  seeded ${o.employees} employees (with their pay months backfilled) in ${seedSyncMs} ms: ${stored.n} pay months, ${stored.bytes} bytes`);
  const query = `org=${client.uuid}&vendor_org=${vendor.uuid}`;
  const plainPaths = ids.map((id) => `/api/employee_details/${encodeURIComponent(id)}?${query}`);
  const payPaths = ids.map((id) => `/api/employee_details/${encodeURIComponent(id)}/pay_history/?${query}&months=12`);
  const headers = { username: apiKey };

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const profArgs: string[] = [];
  if (o.profileDir) {
    mkdirSync(o.profileDir, { recursive: true });
    profArgs.push('--cpu-prof', `--cpu-prof-dir=${o.profileDir}`);
  }
  const child: Child = spawnNode('hrx', [...profArgs, 'bin/hrx.js', 'serve'], { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' });
  const rounds: { plain: LoadFigures; pay: LoadFigures; ratio: number }[] = [];
  try {
    await waitForHttp(origin + '/healthz', child, 90_000);
    for (const p of [plainPaths[0]!, payPaths[0]!]) {
      const res = await fetch(origin + p, { headers });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`hrx answered ${res.status} to ${p}: ${body.slice(0, 300)}`);
    }
    const measure = async (name: string, paths: string[]) => {
      const f = await measureLoad({ origin, paths, headers, connections: o.connections, durationSec: o.durationSec, warmupSec: o.warmupSec }, child);
      if (f.non2xx + f.errors + f.timeouts > 0 || f.responses2xx === 0)
        throw new Error(`${name}: ${f.non2xx} non-2xx, ${f.errors} errors, ${f.timeouts} timeouts`);
      log(`  ${name}: ${f.rps} req/s, p99 ${f.latencyMs.p99} ms`);
      return f;
    };
    const count = Math.max(1, Number(process.env.HRX_BENCH_ROUNDS ?? 3));
    for (let i = 0; i < count; i++) {
      const plain = await measure('plain', plainPaths);
      const pay = await measure('pay_history', payPaths);
      rounds.push({ plain, pay, ratio: pay.rps / plain.rps });
    }
  } finally {
    await child.stop(15_000);
  }
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)]!;
  const profile = o.profileDir ? summariseProfile(o.profileDir) : undefined;
  return {
    ...(profile ? { profile } : {}),
    employees: o.employees,
    connections: o.connections,
    durationSec: o.durationSec,
    warmupSec: o.warmupSec,
    seedSyncMs,
    backfillRssMiB: backfill.peakRssMiB,
    noHistoryRssMiB: base.peakRssMiB,
    rssRatio: round(backfill.peakRssMiB / base.peakRssMiB, 3),
    rssTarget: PAY_BACKFILL_RSS_TARGET,
    rssTargetMet: backfill.peakRssMiB / base.peakRssMiB <= PAY_BACKFILL_RSS_TARGET,
    payMonths: stored.n,
    payMonthsPerEmployee: round(stored.n / o.employees, 2),
    storedBytes: Number(stored.bytes),
    bytesPerPayMonth: stored.n ? round(Number(stored.bytes) / stored.n, 1) : 0,
    envelopeBytes: Number(stored.envelope_bytes),
    plain: median.plain,
    payHistory: median.pay,
    ratio: round(median.ratio, 3),
    target: PAY_HISTORY_TARGET,
    targetMet: median.ratio >= PAY_HISTORY_TARGET,
    rounds: rounds.map((r) => ({ plainRps: r.plain.rps, payHistoryRps: r.pay.rps, ratio: round(r.ratio, 3) })),
  };
}

/** The summary lines of {@link payHistoryBench}. */
export function printPayHistory(r: PayHistoryResult, log: (s: string) => void): void {
  const row = (name: string, f: LoadFigures) =>
    `  ${name.padEnd(11)} ${String(f.rps).padStart(7)} req/s   p50 ${f.latencyMs.p50} ms   p99 ${f.latencyMs.p99} ms   hrx CPU ${f.serverCpuMsPerRequest ?? '?'} ms/req   PostgreSQL CPU ${f.postgresCpuMsPerRequest} ms/req   other ${f.otherCpuCores} cores`;
  log(`\npay_history (${r.employees} employees, ${r.payMonthsPerEmployee} pay months each, months=12, ${r.connections} connections, ${r.durationSec} s):`);
  log(row('plain', r.plain));
  log(row('pay_history', r.payHistory));
  log(`  pay_history/plain ${r.ratio} (target ≥ ${r.target}: ${r.targetMet ? 'MET' : 'NOT MET'}); per round: ${r.rounds.map((x) => x.ratio).join(', ')}`);
  log(
    `  pay_backfill_rss/none ${r.rssRatio} (target ≤ ${r.rssTarget}: ${r.rssTargetMet ? 'MET' : 'NOT MET'}): worker peak RSS ${r.backfillRssMiB} MiB with the backfill, ${r.noHistoryRssMiB} MiB without history`,
  );
  if (r.profile) {
    log(
      `  hrx CPU profile ${path.relative(ROOT, r.profile.file)} (${r.profile.totalMs} ms sampled, ${r.profile.idlePct}% idle); project functions by inclusive time:`,
    );
    for (const h of r.profile.projectInclusive.slice(0, 16)) log(`    ${String(h.selfPct).padStart(5)}%  ${h.name}`);
    log('  by module:');
    for (const h of r.profile.byModule.slice(0, 10)) log(`    ${String(h.selfPct).padStart(5)}%  ${h.name}`);
  }
  log(`  stored: ${r.payMonths} pay months, ${r.storedBytes} bytes, ${r.bytesPerPayMonth} bytes per pay month (pg_total_relation_size / rows)`);
  log(
    `  served form: ${r.envelopeBytes} bytes of pay envelopes, ${r.payMonths ? round(r.envelopeBytes / r.payMonths, 1) : 0} bytes per pay month (pg_total_relation_size('pay_envelopes') / pay months)`,
  );
}
