/**
 * Benchmark 1, employee_details under load: `GET /api/employee_details/{id}` of hrx (`hrx serve`
 * in a child process) against two ceilings measured the same way, each in its own child process:
 * a bare node:http hello-world and a bare node:http handler reading the same employees row with
 * `pg`. The load generator (autocannon) runs in this process.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { benchEnv, freePort, openBenchContext, ROOT, round, seedEmployees, seedOrgs, spawnNode, waitForHttp, type Child } from './lib';
import { testPool } from '../test/support/db';
import { measureLoad, type LoadFigures } from './load';
import { summariseProfile, type ProfileSummary } from './profile';

export interface EmployeeDetailsOptions {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** When set, the hrx child runs with `--cpu-prof` into this directory. */
  profileDir?: string | undefined;
}

export interface EmployeeDetailsResult {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  poolSize: number;
  seedSyncMs: number;
  responseBytes: { hrx: number; pgRow: number; hello: number };
  hrx: LoadFigures;
  hello: LoadFigures;
  pgRow: LoadFigures;
  ratios: { hrxToHelloRps: number; hrxToPgRowRps: number; pgRowToHrxP99: number; hrxToPgRowTarget: number; targetMet: boolean };
  /**
   * pg-row and hrx are measured alternately, `rounds` times (HRX_BENCH_ROUNDS, default 3), so a
   * slow patch of the machine hits both; `hrx`, `pgRow` and `ratios` are those of the median
   * round by hrx/pg-row, and every round's ratio is kept here.
   */
  rounds: { pgRowRps: number; hrxRps: number; hrxToPgRowRps: number }[];
  auditRowsWritten: number;
  profile?: ProfileSummary | null;
}

/** The pg pool size of `hrx serve` (src/cli/run.ts: `poolMax: what.api ? N : M`). */
export function apiPoolSize(): number {
  const src = readFileSync(path.join(ROOT, 'src/cli/run.ts'), 'utf8');
  const m = /poolMax:\s*what\.api\s*\?\s*(\d+)/.exec(src);
  return m ? Number(m[1]) : 20;
}

async function sizeOf(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; body: string }> {
  const res = await fetch(url, { headers });
  const body = await res.text();
  return { status: res.status, bytes: Buffer.byteLength(body), body };
}

export async function employeeDetailsBench(o: EmployeeDetailsOptions, log: (s: string) => void): Promise<EmployeeDetailsResult> {
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const { vendor, apiKey, client } = await seedOrgs(ctx);

  const { ids, seedSyncMs } = await seedEmployees(ctx, client.id, o.employees);
  log(`  seeded ${o.employees} employees via the sync service in ${seedSyncMs} ms`);
  const paths = ids.map((id) => `/api/employee_details/${encodeURIComponent(id)}?org=${client.uuid}&vendor_org=${vendor.uuid}`);
  const poolSize = apiPoolSize();
  const load = { paths, connections: o.connections, durationSec: o.durationSec, warmupSec: o.warmupSec };

  /** Spawns a server child, waits for it, checks one response, measures, stops it. */
  async function target(name: string, args: string[], childEnv: Record<string, string>, readyPath: string, headers: Record<string, string>) {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const child: Child = spawnNode(name, args, { ...process.env, ...childEnv, PORT: String(port), HOST: '127.0.0.1' });
    try {
      await waitForHttp(origin + readyPath, child, 90_000);
      const probe = await sizeOf(origin + paths[0]!, headers);
      if (probe.status !== 200) throw new Error(`${name} answered ${probe.status} to ${paths[0]}: ${probe.body.slice(0, 300)}`);
      log(`  ${name}: warming up ${o.warmupSec} s, measuring ${o.durationSec} s with ${o.connections} connections...`);
      const figures = await measureLoad({ ...load, origin, headers }, child);
      log(`  ${name}: ${figures.rps} req/s, p99 ${figures.latencyMs.p99} ms, non-2xx ${figures.non2xx}, errors ${figures.errors}`);
      return { figures, bytes: probe.bytes, child };
    } finally {
      await child.stop(15_000);
    }
  }

  const hello = await target('hello', ['bench/servers/hello.mjs'], {}, '/', {});

  const profArgs: string[] = [];
  if (o.profileDir) {
    mkdirSync(o.profileDir, { recursive: true });
    profArgs.push('--cpu-prof', `--cpu-prof-dir=${o.profileDir}`);
  }
  const roundCount = Math.max(1, Number(process.env.HRX_BENCH_ROUNDS ?? 3));
  const auditBefore = await countAudit(testPool(ctx));
  const pairs: { pgRow: Awaited<ReturnType<typeof target>>; hrx: Awaited<ReturnType<typeof target>>; ratio: number }[] = [];
  for (let i = 0; i < roundCount; i++) {
    if (roundCount > 1) log(`  round ${i + 1} of ${roundCount}`);
    const pgRowRound = await target(
      'pg-row',
      ['bench/servers/pg-row.mjs'],
      {
        DATABASE_URL: env.DATABASE_URL!,
        HRX_DB_SCHEMA: env.HRX_DB_SCHEMA!,
        POOL_MAX: String(poolSize),
        ORG_ID: String(client.id),
      },
      '/',
      {},
    );
    // Profile only the first hrx round (one profile file to read).
    const hrxRound = await target('hrx', [...(i === 0 ? profArgs : []), 'bin/hrx.js', 'serve'], env, '/healthz', { username: apiKey });
    const bad = hrxRound.figures.non2xx + hrxRound.figures.errors + hrxRound.figures.timeouts;
    if (bad > 0 || hrxRound.figures.responses2xx === 0) {
      throw new Error(
        `hrx employee_details round ${i + 1}: ${hrxRound.figures.non2xx} non-2xx, ${hrxRound.figures.errors} errors, ` +
          `${hrxRound.figures.timeouts} timeouts — every response must be 200`,
      );
    }
    pairs.push({ pgRow: pgRowRound, hrx: hrxRound, ratio: hrxRound.figures.rps / pgRowRound.figures.rps });
  }
  const auditRowsWritten = (await countAudit(testPool(ctx))) - auditBefore;
  const median = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor(pairs.length / 2)]!;
  const { hrx, pgRow } = median;

  const h = hrx.figures;
  const result: EmployeeDetailsResult = {
    employees: o.employees,
    connections: o.connections,
    durationSec: o.durationSec,
    warmupSec: o.warmupSec,
    poolSize,
    seedSyncMs,
    responseBytes: { hrx: hrx.bytes, pgRow: pgRow.bytes, hello: hello.bytes },
    hrx: h,
    hello: hello.figures,
    pgRow: pgRow.figures,
    ratios: {
      hrxToHelloRps: round(h.rps / hello.figures.rps, 3),
      hrxToPgRowRps: round(h.rps / pgRow.figures.rps, 3),
      pgRowToHrxP99: round(pgRow.figures.latencyMs.p99 / h.latencyMs.p99, 3),
      hrxToPgRowTarget: 0.9,
      targetMet: h.rps / pgRow.figures.rps >= 0.9,
    },
    rounds: pairs.map((p) => ({ pgRowRps: p.pgRow.figures.rps, hrxRps: p.hrx.figures.rps, hrxToPgRowRps: round(p.ratio, 3) })),
    auditRowsWritten,
  };
  if (o.profileDir) result.profile = summariseProfile(o.profileDir);
  const bad = h.non2xx + h.errors + h.timeouts;
  if (bad > 0 || h.responses2xx === 0) {
    throw Object.assign(
      new Error(
        `hrx employee_details: ${h.non2xx} non-2xx responses, ${h.errors} errors, ${h.timeouts} timeouts ` +
          `(status codes ${JSON.stringify(h.statusCodes)}) out of ${h.requests} — every response must be 200`,
      ),
      { partial: result },
    );
  }
  return result;
}

async function countAudit(pool: { query(q: string): Promise<{ rows: { n: number }[] }> }): Promise<number> {
  return (await pool.query('select count(*)::int as n from audit_log')).rows[0]!.n;
}
