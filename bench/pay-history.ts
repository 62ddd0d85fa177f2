/**
 * Benchmark `pay_history` (docs/benchmarks.md "pay_history", docs/pay-history.md "Read"): an org
 * synced from the reference simulator, whose first full sync backfills up to 24 pay months per
 * employee, then `GET /api/employee_details/{id}/pay_history/?months=12` against the plain read
 * `GET /api/employee_details/{id}` of the same hrx child, measured alternately (`rounds` times,
 * HRX_BENCH_ROUNDS, default 3) so a slow patch of the machine hits both; the figures are those of
 * the median round by pay_history/plain. Also the stored bytes per pay month
 * (`pg_total_relation_size('pay_months')` over its rows). The sync's peak RSS with and without
 * the backfill is not measured here yet.
 */
import { benchEnv, freePort, openBenchContext, round, seedEmployees, seedOrgs, spawnNode, waitForHttp, type Child } from './lib';
import { dbQuery } from '../test/support/db';
import { measureLoad, type LoadFigures } from './load';

export interface PayHistoryOptions {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
}

export interface PayHistoryResult {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  seedSyncMs: number;
  payMonths: number;
  payMonthsPerEmployee: number;
  storedBytes: number;
  bytesPerPayMonth: number;
  plain: LoadFigures;
  payHistory: LoadFigures;
  /** pay_history req/s over the plain read's, of the median round; target ≥ 0.8. */
  ratio: number;
  target: number;
  targetMet: boolean;
  rounds: { plainRps: number; payHistoryRps: number; ratio: number }[];
}

/** The pay_history / plain ratio the read must reach (docs/benchmarks.md "pay_history"). */
export const PAY_HISTORY_TARGET = 0.8;

export async function payHistoryBench(o: PayHistoryOptions, log: (s: string) => void): Promise<PayHistoryResult> {
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const { vendor, apiKey, client } = await seedOrgs(ctx);
  const { ids, seedSyncMs } = await seedEmployees(ctx, client.id, o.employees);
  const stored = (
    await dbQuery<{ n: number; bytes: string }>(ctx, `select count(*)::int as n, pg_total_relation_size('pay_months'::regclass)::text as bytes from pay_months`)
  ).rows[0]!;
  log(`  seeded ${o.employees} employees (with their pay months backfilled) in ${seedSyncMs} ms: ${stored.n} pay months, ${stored.bytes} bytes`);
  const query = `org=${client.uuid}&vendor_org=${vendor.uuid}`;
  const plainPaths = ids.map((id) => `/api/employee_details/${encodeURIComponent(id)}?${query}`);
  const payPaths = ids.map((id) => `/api/employee_details/${encodeURIComponent(id)}/pay_history/?${query}&months=12`);
  const headers = { username: apiKey };

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child: Child = spawnNode('hrx', ['bin/hrx.js', 'serve'], { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' });
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
  return {
    employees: o.employees,
    connections: o.connections,
    durationSec: o.durationSec,
    warmupSec: o.warmupSec,
    seedSyncMs,
    payMonths: stored.n,
    payMonthsPerEmployee: round(stored.n / o.employees, 2),
    storedBytes: Number(stored.bytes),
    bytesPerPayMonth: stored.n ? round(Number(stored.bytes) / stored.n, 1) : 0,
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
    `  ${name.padEnd(11)} ${String(f.rps).padStart(7)} req/s   p50 ${f.latencyMs.p50} ms   p99 ${f.latencyMs.p99} ms`;
  log(`\npay_history (${r.employees} employees, ${r.payMonthsPerEmployee} pay months each, months=12, ${r.connections} connections, ${r.durationSec} s):`);
  log(row('plain', r.plain));
  log(row('pay_history', r.payHistory));
  log(`  pay_history/plain ${r.ratio} (target ≥ ${r.target}: ${r.targetMet ? 'MET' : 'NOT MET'}); per round: ${r.rounds.map((x) => x.ratio).join(', ')}`);
  log(`  stored: ${r.payMonths} pay months, ${r.storedBytes} bytes, ${r.bytesPerPayMonth} bytes per pay month (pg_total_relation_size / rows)`);
}
