/**
 * Benchmark `hrms_sync` (docs/benchmarks.md): per product, a product simulator (in this process)
 * serves N employees (default 10,000); `hrx worker` runs in a child process with the real sync
 * service, the tenant's shared Redis budget at the product's published limit, PostgreSQL and the
 * product's connector. Measured:
 * - a full sync (queued as setup-config does): wall time queue → succeeded, HRMS requests the
 *   simulator received against the minimum the product's paging allows, the largest number of
 *   requests in any window of the product's limit, and the worker's peak RSS (sampled from /proc);
 * - an incremental sync (queued as the org's job scheduler does) after 1 % of the employees
 *   changed: wall time and requests. A product without incremental listing (its definition's
 *   `incremental: false`: greytHR) runs that sync full, and is reported so; a product with it
 *   that runs full fails the benchmark. The tenant's budget window is cleared first, as it would be
 *   by the time a scheduled sync runs (an hour later), so the figure is the incremental sync's own.
 */
import { DIALECT_SIMS } from '../src/hrms/sim/dialects';
import { HRMS_CATALOG } from '../src/hrms/catalog';
import { connectorFor } from '../src/hrms/registry';
import {
  benchEnv,
  cpuSeconds,
  deleteRedisPrefix,
  onCleanup,
  openBenchContext,
  poll,
  round,
  rssSampler,
  seedOrgs,
  spawnNode,
  statusMiB,
  workerRegistered,
} from './lib';
import { dbQuery, storesOf } from '../test/support/db';

/** The sync's page size (HRX_SYNC_BATCH_SIZE, default 500) capped at the product's largest page. */
const pageSize = (max: number): number => Math.min(max, Number(process.env.HRX_SYNC_BATCH_SIZE ?? 500));

export interface HrmsSyncFigures {
  wallMs: number;
  /** started_at → finished_at of the sync_runs row. */
  runMs: number;
  kind: string;
  employeesSeen: number;
  /** Requests the simulator received (token and data). */
  requests: number;
  tokenRequests: number;
  throttled: number;
  maxInWindow: number;
}

export interface HrmsSyncRun {
  hrmsId: string;
  employees: number;
  limit: { requests: number; windowMs: number };
  /** The connector lists changes (its definition's `incremental`); false: every scheduled sync is full. */
  incrementalListing: boolean;
  full: HrmsSyncFigures & { minRequests: number; idleRssMiB: number; peakRssDuringSyncMiB: number; vmHwmMiB: number; workerCpuSec: number };
  /** The scheduled sync after `changed` employees changed; `kind` `full` for a product without incremental listing. */
  incremental: HrmsSyncFigures & { changed: number };
}

export interface HrmsSyncResult {
  runs: HrmsSyncRun[];
}

async function oneProduct(hrmsId: string, employees: number, log: (s: string) => void): Promise<HrmsSyncRun> {
  const start = DIALECT_SIMS.get(hrmsId);
  if (!start) throw new Error(`no simulator for ${hrmsId}`);
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const { client } = await seedOrgs(ctx);
  // No pay months: the employee sync is what is measured here. A product's first full sync also
  // backfills 24 pay months through its payroll API (docs/pay-history.md "Where months come
  // from"), which at a published limit takes its own time (Keka's pay register, 200 employees a
  // request per pay cycle: about 1,200 requests for 10,000 employees, some 25 minutes at 50 a
  // minute); the pay_history benchmark measures the backfill.
  const sim = await start({ employees, seed: 'hrx-bench', variants: { payHistoryMonths: 0 } });
  const closeSim = onCleanup(`${hrmsId} simulator`, () => sim.close());
  const setup = sim.setup();
  await storesOf(ctx).hrmsConfigs.save({ orgId: client.id, hrmsId, credentials: setup.access_credentials, apiConfigs: setup.api_configs });

  const worker = spawnNode(`worker-${hrmsId}`, ['bin/hrx.js', 'worker'], { ...process.env, ...env });
  const rss = rssSampler(worker.pid, 100);
  try {
    await workerRegistered(ctx, worker);
    const idleRssMiB = round(statusMiB(worker.pid, 'VmRSS') ?? 0, 1);
    const cpu0 = cpuSeconds(worker.pid) ?? 0;

    const run = async (trigger: 'bench' | 'schedule', timeoutMs: number): Promise<HrmsSyncFigures> => {
      sim.resetStats();
      const queuedAt = new Date();
      const t0 = performance.now();
      await ctx.syncQueue.syncNow(client.id, trigger);
      const row = await poll(
        `the ${hrmsId} ${trigger} sync to succeed`,
        async () => {
          if (worker.hasExited()) throw new Error(`worker exited during the sync:\n${worker.stderrTail()}`);
          const r = (
            await dbQuery<{ status: string; error: string | null; kind: string; employees_seen: number; run_ms: number }>(
              ctx,
              `select status, error, kind, employees_seen, extract(epoch from (finished_at - started_at)) * 1000 as run_ms
             from sync_runs where org_id = $1 and started_at >= $2 order by started_at desc limit 1`,
              [client.id, queuedAt],
            )
          ).rows[0];
          if (r?.status === 'failed') throw new Error(`sync failed: ${r.error}`);
          return r?.status === 'succeeded' ? r : undefined;
        },
        timeoutMs,
        100,
      );
      const wallMs = round(performance.now() - t0, 0);
      const s = sim.stats();
      return {
        wallMs,
        runMs: round(Number(row.run_ms), 0),
        kind: row.kind,
        employeesSeen: row.employees_seen,
        requests: s.requests,
        tokenRequests: s.tokenRequests,
        throttled: s.throttled,
        maxInWindow: s.maxInWindow,
      };
    };

    rss.window();
    const full = await run('bench', 15 * 60_000);
    const mem = rss.read();
    const vmHwmMiB = round(statusMiB(worker.pid, 'VmHWM') ?? 0, 1);
    const workerCpuSec = round((cpuSeconds(worker.pid) ?? 0) - cpu0, 2);
    if (full.employeesSeen !== employees) throw new Error(`the full sync saw ${full.employeesSeen} employees, expected ${employees}`);
    const minRequests = (await HRMS_CATALOG.find((p) => p.hrmsId === hrmsId)?.minSyncRequests?.(sim, pageSize)) ?? Number.NaN;
    log(
      `  ${hrmsId} full: ${full.wallMs} ms, ${full.requests} requests (minimum ${minRequests}), max ${full.maxInWindow} in a window of ${sim.stats().limit.requests}, worker peak RSS ${round(mem.windowPeakMiB, 1)} MiB`,
    );

    const ids = sim.employeeIds();
    const changedIds = ids.filter((_, k) => k % 100 === 50);
    for (const id of changedIds) sim.change(id);
    await deleteRedisPrefix(`${env.HRX_REDIS_PREFIX}:hrms-budget`);
    const incrementalListing = connectorFor(hrmsId)?.incremental === true;
    // Without incremental listing (greytHR) the scheduled sync reads everything again: a full sync's time.
    const incremental = await run('schedule', (incrementalListing ? 5 : 15) * 60_000);
    if (incrementalListing && incremental.kind !== 'incremental') throw new Error(`the scheduled sync ran ${incremental.kind}, not incremental`);
    log(`  ${hrmsId} ${scheduledLine(incrementalListing, incremental, changedIds.length)}`);
    return {
      hrmsId,
      employees,
      limit: sim.stats().limit,
      incrementalListing,
      full: { ...full, minRequests, idleRssMiB, peakRssDuringSyncMiB: round(mem.windowPeakMiB, 1), vmHwmMiB, workerCpuSec },
      incremental: { ...incremental, changed: changedIds.length },
    };
  } finally {
    rss.stop();
    await worker.stop(15_000);
    closeSim();
    await sim.close();
  }
}

/** What the scheduled sync after `changed` changes did, as one line. */
function scheduledLine(incrementalListing: boolean, i: HrmsSyncFigures, changed: number): string {
  return incrementalListing
    ? `incremental (${changed} changed): ${i.wallMs} ms, ${i.requests} requests, ${i.employeesSeen} employees seen`
    : `no incremental listing: scheduled sync ran ${i.kind}, ${i.requests} requests, ${i.wallMs} ms (${changed} changed, ${i.employeesSeen} employees seen)`;
}

/** The products benched by default: every product of the catalog that declares its minimum (`minSyncRequests`, src/hrms/product-module.ts), in its order. */
export const HRMS_BENCH_PRODUCTS: readonly string[] = HRMS_CATALOG.filter((p) => p.minSyncRequests).map((p) => p.hrmsId);

/** Runs the benchmark for each of `products` (hrms_ids with a simulator) in turn. */
export async function hrmsSyncBench(o: { products: string[]; employees: number }, log: (s: string) => void): Promise<HrmsSyncResult> {
  const runs: HrmsSyncRun[] = [];
  for (const p of o.products) runs.push(await oneProduct(p, o.employees, log));
  return { runs };
}

/** The summary lines of a result. */
export function printHrmsSync(r: HrmsSyncResult, log: (s: string) => void): void {
  log("\nhrms_sync (worker child with the shared Redis budget at each product's limit, product simulator in the bench process):");
  for (const x of r.runs) {
    const f = x.full,
      i = x.incremental;
    log(`  ${x.hrmsId.padEnd(12)} ${x.employees} employees, limit ${x.limit.requests}/${x.limit.windowMs / 1000} s`);
    log(
      `    full:        ${String(f.wallMs).padStart(7)} ms queue→succeeded (run ${f.runMs} ms)   requests ${f.requests} (minimum ${f.minRequests}; ${f.tokenRequests} token)   ` +
        `max in a window ${f.maxInWindow}, throttled ${f.throttled}   worker RSS idle ${f.idleRssMiB} MiB, peak during sync ${f.peakRssDuringSyncMiB} MiB, VmHWM ${f.vmHwmMiB} MiB, CPU ${f.workerCpuSec} s`,
    );
    if (x.incrementalListing)
      log(
        `    incremental: ${String(i.wallMs).padStart(7)} ms queue→succeeded (run ${i.runMs} ms)   requests ${i.requests} (${i.tokenRequests} token)   ${i.changed} changed, ${i.employeesSeen} listed`,
      );
    else
      log(
        `    scheduled:   no incremental listing: scheduled sync ran ${i.kind}, ${i.requests} requests (${i.tokenRequests} token), ${i.wallMs} ms queue→succeeded (run ${i.runMs} ms)   ${i.changed} changed, ${i.employeesSeen} listed`,
      );
  }
}
