/**
 * Benchmark `tail_latency`: the plain read (`GET /api/employee_details/{id}`) of hrx (`hrx serve`
 * in a child process, `--processes` as asked) and the `pg-row` baseline (bench/servers/pg-row.mjs,
 * a bare node:http handler reading the same row with `pg`), each first at saturation (its maximum
 * rate: autocannon, 50 connections, as `employee_details`), then at a fixed rate of 70 % of that
 * maximum for 30 s (autocannon's `overallRate`, whose latencies are corrected for coordinated
 * omission: a request that could not be sent on time counts from when it should have been).
 * Reports p50/p99/p99.9 of both runs of both servers, and hrx's maximum over pg-row's (the
 * direction `employee_details` uses: above 1, hrx answers more reads a second than the bare read).
 */
import { createRequire } from 'node:module';
import { benchEnv, cpuSeconds, freePort, openBenchContext, openCpuWindow, round, seedEmployees, seedOrgs, spawnNode, waitForHttp } from './lib';
import { apiPoolSize } from './employee-details';
import { figuresOf, measureLoad, type LoadFigures, type RunResult } from './load';

export interface TailLatencyOptions {
  employees: number;
  connections: number;
  /** Seconds of the saturation run (after `warmupSec`). */
  durationSec: number;
  warmupSec: number;
  /** Seconds of the fixed-rate run. */
  fixedSec: number;
  /** Share of the measured maximum the fixed-rate run asks for. */
  fraction: number;
  /** `hrx serve --processes` of the hrx child. */
  processes: string;
}

/** Latency percentiles of one run, ms. */
export interface Tail {
  p50: number;
  p99: number;
  p99_9: number;
  max: number;
}

export interface TailTarget {
  max: LoadFigures & { tail: Tail };
  /** The fixed-rate run: the rate asked, the rate answered, its latencies. */
  fixed: { askedRps: number; rps: number; tail: Tail; non2xx: number; errors: number; timeouts: number; serverCpuCores: number | null; otherCpuCores: number };
}

export interface TailLatencyResult {
  employees: number;
  processes: string;
  fraction: number;
  fixedSec: number;
  hrx: TailTarget;
  pgRow: TailTarget;
  ratios: {
    /** hrx's maximum rate ÷ pg-row's (the direction of `employee_details`); target ≥ 1.5. */
    hrxToPgRowMaxRps: number;
    /** hrx's p99 at the fixed rate, ms; target ≤ 15. */
    hrxFixedP99Ms: number;
    targetsMet: { maxRatio: boolean; fixedP99: boolean };
  };
}

interface CannonLatency {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  p99_9: number;
  max: number;
}
type CannonResult = RunResult & { latency: CannonLatency };
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  headers: Record<string, string>;
  overallRate?: number;
  requests: { method: string; setupRequest: (req: { path?: string }) => { path?: string } }[];
}) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const tailOf = (l: CannonLatency): Tail => ({ p50: l.p50, p99: l.p99, p99_9: l.p99_9, max: l.max });

export async function tailLatencyBench(o: TailLatencyOptions, log: (s: string) => void): Promise<TailLatencyResult> {
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const { vendor, apiKey, client } = await seedOrgs(ctx);
  const { ids, seedSyncMs } = await seedEmployees(ctx, client.id, o.employees);
  log(`  seeded ${o.employees} employees in ${seedSyncMs} ms`);
  const paths = ids.map((id) => `/api/employee_details/${encodeURIComponent(id)}?org=${client.uuid}&vendor_org=${vendor.uuid}`);

  async function target(
    name: string,
    args: string[],
    childEnv: Record<string, string>,
    readyPath: string,
    headers: Record<string, string>,
  ): Promise<TailTarget> {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const child = spawnNode(name, args, { ...process.env, ...childEnv, PORT: String(port), HOST: '127.0.0.1' });
    try {
      await waitForHttp(origin + readyPath, child, 90_000);
      // `--processes N`: every child must be up before the maximum is measured.
      for (let i = 0; i < 20; i++) await fetch(origin + paths[0]!, { headers }).then((r) => r.arrayBuffer());
      await new Promise((r) => setTimeout(r, 3000));
      log(`  ${name}: saturation, ${o.connections} connections, ${o.durationSec} s after ${o.warmupSec} s warm-up...`);
      let maxTail: Tail | undefined;
      const figures = await measureLoad(
        { origin, paths, headers, connections: o.connections, durationSec: o.durationSec, warmupSec: o.warmupSec },
        child,
        (r) => (maxTail = tailOf(r.latency)),
      );
      const maxFig = { ...figures, tail: maxTail! };
      const askedRps = Math.max(1, Math.round(maxFig.rps * o.fraction));
      log(`  ${name}: ${maxFig.rps} req/s at saturation (p99 ${maxFig.tail.p99} ms); fixed rate ${askedRps} req/s for ${o.fixedSec} s...`);
      let next = 0;
      const window = openCpuWindow(() => cpuSeconds(child.pid));
      const r = await autocannon({
        url: origin,
        connections: o.connections,
        duration: o.fixedSec,
        timeout: 10,
        headers,
        overallRate: askedRps,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! }) }],
      });
      const f = figuresOf(r, window.close());
      const fixed = {
        askedRps,
        rps: f.rps,
        tail: tailOf(r.latency),
        non2xx: f.non2xx,
        errors: f.errors,
        timeouts: f.timeouts,
        serverCpuCores: f.serverCpuCores,
        otherCpuCores: f.otherCpuCores,
      };
      log(`  ${name}: fixed ${fixed.rps} req/s, p50 ${fixed.tail.p50} ms, p99 ${fixed.tail.p99} ms, p99.9 ${fixed.tail.p99_9} ms`);
      if (maxFig.non2xx + maxFig.errors + fixed.non2xx + fixed.errors > 0) {
        throw new Error(`${name}: ${maxFig.non2xx + fixed.non2xx} non-2xx, ${maxFig.errors + fixed.errors} errors — every response must be 200`);
      }
      return { max: maxFig, fixed };
    } finally {
      await child.stop(15_000);
    }
  }

  const pgRow = await target(
    'pg-row',
    ['bench/servers/pg-row.mjs'],
    { DATABASE_URL: env.DATABASE_URL!, HRX_DB_SCHEMA: env.HRX_DB_SCHEMA!, POOL_MAX: String(apiPoolSize()), ORG_ID: String(client.id) },
    '/',
    {},
  );
  const hrx = await target('hrx', ['bin/hrx.js', 'serve', '--processes', o.processes], env, '/healthz', { username: apiKey });
  const ratio = round(hrx.max.rps / pgRow.max.rps, 3);
  return {
    employees: o.employees,
    processes: o.processes,
    fraction: o.fraction,
    fixedSec: o.fixedSec,
    hrx,
    pgRow,
    ratios: {
      hrxToPgRowMaxRps: ratio,
      hrxFixedP99Ms: hrx.fixed.tail.p99,
      targetsMet: { maxRatio: ratio >= 1.5, fixedP99: hrx.fixed.tail.p99 <= 15 },
    },
  };
}

/** The summary lines of a tail_latency result. */
export function printTailLatency(r: TailLatencyResult, log: (s: string) => void): void {
  log(
    `\ntail_latency (GET /api/employee_details/{id}, ${r.employees} employees; hrx serve --processes ${r.processes}; ` +
      `fixed rate = ${Math.round(r.fraction * 100)} % of each server's own maximum, ${r.fixedSec} s):`,
  );
  const row = (name: string, t: TailTarget) =>
    `  ${name.padEnd(7)} max ${String(t.max.rps).padStart(6)} req/s (p50 ${t.max.tail.p50} / p99 ${t.max.tail.p99} / p99.9 ${t.max.tail.p99_9} ms)   ` +
    `fixed ${t.fixed.askedRps} asked, ${t.fixed.rps} answered: p50 ${t.fixed.tail.p50} ms  p99 ${t.fixed.tail.p99} ms  p99.9 ${t.fixed.tail.p99_9} ms  (max ${t.fixed.tail.max} ms)`;
  log(row('pg-row', r.pgRow));
  log(row('hrx', r.hrx));
  log(
    `  hrx/pg-row max rps ${r.ratios.hrxToPgRowMaxRps} (target ≥ 1.5: ${r.ratios.targetsMet.maxRatio ? 'MET' : 'NOT MET'})   ` +
      `hrx p99 at the fixed rate ${r.ratios.hrxFixedP99Ms} ms (target ≤ 15: ${r.ratios.targetsMet.fixedP99 ? 'MET' : 'NOT MET'})`,
  );
  const other = Math.max(r.hrx.max.otherCpuCores, r.pgRow.max.otherCpuCores, r.hrx.fixed.otherCpuCores, r.pgRow.fixed.otherCpuCores);
  if (other > 0.25) log(`  WARNING: other work on the machine used up to ${other} cores during these runs; rates are depressed and tails longer.`);
}
