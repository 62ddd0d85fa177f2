/**
 * Benchmark 2, full sync: the reference simulator (in this process, so its memory is not the
 * worker's) serves N employees; `hrx worker` runs in a child process; one full sync is queued
 * (`syncQueue.syncNow`, what setup-config does) and timed until its `sync_runs` row says
 * succeeded. The worker's RSS is sampled every 100 ms from /proc. Run for each org size (default
 * 10,000 and 100,000; `--sync-sizes 10000,100000,1000000` adds a million) to compare peak memory
 * (docs/sync.md "Memory and throughput": the largest org's peak at most 1.15 × the smallest's).
 */
import { randomBytes } from 'node:crypto';
import { startHrmsSimulator } from '../src/hrms/sim/server';
import {
  benchEnv,
  configureHrms,
  cpuSeconds,
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
import { dbQuery } from '../test/support/db';

export interface FullSyncRun {
  employees: number;
  /** Queueing the job → its sync_runs row succeeded, as seen by polling every 100 ms. */
  wallMs: number;
  employeesPerSec: number;
  /** started_at → finished_at of the sync_runs row (excludes the worker picking the job up). */
  runMs: number;
  pages: number;
  /** Spawning `hrx worker` → the worker registered on the queue. */
  workerBootMs: number;
  /** Worker RSS just before the sync was queued. */
  idleRssMiB: number;
  /** Highest sampled RSS between queueing and success. */
  peakRssDuringSyncMiB: number;
  /** VmHWM of the worker at the end: peak RSS over its whole life (boot included). */
  vmHwmMiB: number;
  rssSamples: number;
  workerCpuSec: number;
  /** CPU of the PostgreSQL backends serving the worker (by their application_name) during the sync. */
  postgresCpuSec: number;
  /** CPU of this process during the sync: the simulator serving the pages (plus the 100 ms poll). */
  simulatorCpuSec: number;
  /** CPU per employee, µs: worker, its PostgreSQL backends, the simulator (docs/benchmarks.md). */
  cpuUsPerEmployee: { worker: number; postgres: number; simulator: number };
}

export interface FullSyncResult {
  runs: FullSyncRun[];
  /** Peak RSS of the largest org over that of the smallest (1.0 = memory does not grow with org size). */
  peakRssRatioLargeToSmall: number;
  vmHwmRatioLargeToSmall: number;
  /** Each size's peak RSS during its sync over the smallest size's, by size (ascending). */
  peakRssRatioToSmallest: { employees: number; ratio: number }[];
  /** Whether the largest org's peak is at most {@link MAX_PEAK_RATIO} × the smallest's. */
  flat: boolean;
}

/** The most a larger org's peak RSS may exceed the smallest's (docs/sync.md "Memory and throughput"). */
export const MAX_PEAK_RATIO = 1.15;

/** The org sizes run when none are given. */
export const DEFAULT_SYNC_SIZES = [10_000, 100_000];

async function oneSync(employees: number, timeoutMs: number, log: (s: string) => void): Promise<FullSyncRun> {
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const { client } = await seedOrgs(ctx);
  const simCreds = { clientId: 'bench-client', clientSecret: randomBytes(18).toString('base64url') };
  const sim = await startHrmsSimulator({ employees, seed: 'hrx-bench', ...simCreds });
  const closeSim = onCleanup('simulator', () => sim.close());
  await configureHrms(ctx, client.id, sim, simCreds);

  const tSpawn = performance.now();
  // Its own application_name, so its PostgreSQL backends (and their CPU) can be told apart.
  const appName = `hrx-bench-worker-${randomBytes(4).toString('hex')}`;
  // HRX_BENCH_WORKER_PROF=<dir>: the worker writes a V8 CPU profile there (bench/profile.ts reads it).
  const profDir = process.env.HRX_BENCH_WORKER_PROF;
  const profArgs = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const worker = spawnNode(`worker-${employees}`, [...profArgs, 'bin/hrx.js', 'worker'], { ...process.env, ...env, PGAPPNAME: appName });
  const backends = new Map<number, { first: number; last: number }>();
  const sampleBackends = async (): Promise<void> => {
    const pids = await dbQuery<{ pid: number }>(ctx, 'select pid from pg_stat_activity where application_name = $1', [appName]);
    for (const { pid } of pids.rows) {
      const s = cpuSeconds(pid);
      if (s === null) continue;
      const b = backends.get(pid);
      if (b) b.last = s;
      else backends.set(pid, { first: s, last: s });
    }
  };
  const rss = rssSampler(worker.pid, 100);
  try {
    await workerRegistered(ctx, worker);
    const workerBootMs = round(performance.now() - tSpawn, 0);
    const idleRssMiB = round(statusMiB(worker.pid, 'VmRSS') ?? 0, 1);
    const cpu0 = cpuSeconds(worker.pid) ?? 0;
    await sampleBackends();
    const idleBackends = new Set(backends.keys());
    const sim0 = process.cpuUsage();
    rss.window();

    const t0 = performance.now();
    await ctx.syncQueue.syncNow(client.id, 'bench');
    const row = await poll(
      `the ${employees}-employee sync to succeed`,
      async () => {
        if (worker.hasExited()) throw new Error(`worker exited during the sync:\n${worker.stderrTail()}`);
        await sampleBackends();
        const r = (
          await dbQuery<{ status: string; error: string | null; pages: number; employees_seen: number; run_ms: number }>(
            ctx,
            `select status, error, pages, employees_seen,
                extract(epoch from (finished_at - started_at)) * 1000 as run_ms
           from sync_runs where org_id = $1 order by started_at desc limit 1`,
            [client.id],
          )
        ).rows[0];
        if (r?.status === 'failed') throw new Error(`sync failed: ${r.error}`);
        return r?.status === 'succeeded' ? r : undefined;
      },
      timeoutMs,
      100,
    );
    const wallMs = round(performance.now() - t0, 0);
    const mem = rss.read();
    const vmHwmMiB = round(statusMiB(worker.pid, 'VmHWM') ?? 0, 1);
    const workerCpuSec = round((cpuSeconds(worker.pid) ?? 0) - cpu0, 2);
    const simUsage = process.cpuUsage(sim0);
    await sampleBackends();
    // A backend opened during the sync counts whole (its connection's start is the sync's work).
    let pgSec = 0;
    for (const [pid, b] of backends) pgSec += b.last - (idleBackends.has(pid) ? b.first : 0);
    const simulatorCpuSec = round((simUsage.user + simUsage.system) / 1e6, 2);

    const stored = (await dbQuery<{ n: number }>(ctx, 'select count(*)::int as n from employees where org_id = $1 and removed_at is null', [client.id]))
      .rows[0]!.n;
    if (stored !== employees || row.employees_seen !== employees) {
      throw new Error(`sync stored ${stored} employees (run saw ${row.employees_seen}), expected ${employees}`);
    }
    const run: FullSyncRun = {
      employees,
      wallMs,
      employeesPerSec: round(employees / (wallMs / 1000), 0),
      runMs: round(Number(row.run_ms), 0),
      pages: row.pages,
      workerBootMs,
      idleRssMiB,
      peakRssDuringSyncMiB: round(mem.windowPeakMiB, 1),
      vmHwmMiB,
      rssSamples: mem.samples,
      workerCpuSec,
      postgresCpuSec: round(pgSec, 2),
      simulatorCpuSec,
      cpuUsPerEmployee: {
        worker: round((workerCpuSec * 1e6) / employees, 0),
        postgres: round((pgSec * 1e6) / employees, 0),
        simulator: round((simulatorCpuSec * 1e6) / employees, 0),
      },
    };
    log(
      `  ${employees} employees: ${wallMs} ms (${run.employeesPerSec}/s), worker peak RSS ${run.peakRssDuringSyncMiB} MiB (idle ${idleRssMiB}, VmHWM ${vmHwmMiB}); ` +
        `CPU µs/employee: worker ${run.cpuUsPerEmployee.worker}, postgres ${run.cpuUsPerEmployee.postgres}, simulator ${run.cpuUsPerEmployee.simulator}`,
    );
    return run;
  } finally {
    rss.stop();
    await worker.stop(15_000);
    closeSim();
    await sim.close();
  }
}

export async function fullSyncBench(o: { sizes: number[] }, log: (s: string) => void): Promise<FullSyncResult> {
  const runs: FullSyncRun[] = [];
  for (const n of o.sizes) runs.push(await oneSync(n, Math.max(120_000, n * 30), log));
  const bySize = [...runs].sort((a, b) => a.employees - b.employees);
  const small = bySize[0]!;
  const large = bySize.at(-1)!;
  const peakRssRatioLargeToSmall = round(large.peakRssDuringSyncMiB / small.peakRssDuringSyncMiB, 2);
  return {
    runs,
    peakRssRatioLargeToSmall,
    vmHwmRatioLargeToSmall: round(large.vmHwmMiB / small.vmHwmMiB, 2),
    peakRssRatioToSmallest: bySize.map((r) => ({ employees: r.employees, ratio: round(r.peakRssDuringSyncMiB / small.peakRssDuringSyncMiB, 2) })),
    flat: peakRssRatioLargeToSmall <= MAX_PEAK_RATIO,
  };
}
