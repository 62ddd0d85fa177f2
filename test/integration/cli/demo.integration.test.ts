/**
 * `hrx demo` on the tests' PostgreSQL and Redis: its reference simulator listens on 127.0.0.1,
 * so the demo allows private HRMS hosts for its own process even when the environment says
 * HRX_HRMS_ALLOW_PRIVATE_HOSTS=0 (README "What `npm run demo` does"). Its Redis keys live under
 * `<HRX_REDIS_PREFIX>:demo` (a real hrx on the same Redis never sees its jobs or job
 * schedulers), and when it stops, after its read or on Ctrl-C (SIGINT to its process group, as
 * a terminal sends it), its queues and job schedulers are gone and it logged no warning.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { HRX_BIN } from '../../support/cli';
import { dropSchema, REDIS_URL, testEnv } from '../../support/harness';
import { freePort } from '../../support/private-services';

const run = promisify(execFile);

/** The demo's Redis keys: its queues (`bull`) and whatever else is left under its prefix. */
async function keysOf(prefix: string): Promise<{ all: string[]; outsideDemo: string[] }> {
  const redis = new Redis(REDIS_URL);
  try {
    const all = await redis.keys(`${prefix}:*`);
    return { all, outsideDemo: all.filter((k) => !k.startsWith(`${prefix}:demo:`)) };
  } finally {
    redis.disconnect();
  }
}

/** Warnings and errors among the demo's log lines (JSON, level 40 and up). */
const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => /"level":(4|5|6)\d/.test(l));

describe('hrx demo', () => {
  const env = testEnv({ HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0', LOG_LEVEL: 'warn' });
  const prefix = env.HRX_REDIS_PREFIX!;
  afterAll(async () => {
    await dropSchema(env.HRX_DB_SCHEMA!);
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('syncs from its simulator on 127.0.0.1 and reads, with HRX_HRMS_ALLOW_PRIVATE_HOSTS=0 in the environment, leaving no queue behind', async () => {
    const [port, simPort] = [await freePort(), await freePort()];
    const { stdout, stderr } = await run(process.execPath, [HRX_BIN, 'demo', '--exit-after-read', '--employees', '5', '--sim-port', String(simPort)], {
      env: { ...process.env, ...env, PORT: String(port) },
      timeout: 90_000,
    });
    expect(stdout).toContain(`reference HRMS at http://127.0.0.1:${simPort} with 5 employees.`);
    expect(stdout).toMatch(/First successful read [\d.]+ s after start: EMP00001 is /);
    // The first sync backfilled the simulator's payroll: 12 months read (docs/pay-history.md "Read").
    expect(stdout).toMatch(/Pay history of EMP00001: 12 months, newest \d{4}-\d\d gross [\d.]+ net [\d.]+\./);
    expect(stdout).toMatch(/curl -s -H 'username: \S+' 'http:\/\/\S+\/api\/employee_details\/EMP00001\/pay_history\/\?org=\S+&vendor_org=\S+&months=12'/);
    expect(warnings(stderr)).toEqual([]);
    const { all, outsideDemo } = await keysOf(prefix);
    expect(outsideDemo).toEqual([]);
    expect(all.filter((k) => k.includes(':bull:'))).toEqual([]);
  }, 120_000);

  it('Ctrl-C (SIGINT to its process group) stops it with exit 0, no warning, its job schedulers removed', async () => {
    const { code, stderr, running } = await demoUntilCtrlC(env);
    expect(running.outsideDemo).toEqual([]);
    expect(running.all.some((k) => k.startsWith(`${prefix}:demo:bull:{sync}:sync:repeat:`))).toBe(true);
    expect(code).toBe(0);
    expect(warnings(stderr)).toEqual([]);
    const after = await keysOf(prefix);
    expect(after.all.filter((k) => k.includes(':bull:'))).toEqual([]);
  }, 150_000);

  it('with its embedded PostgreSQL, which Ctrl-C stops too: no pg pool error, no warning', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hrx-demo-'));
    // Run as root, the package runs PostgreSQL as user postgres: it must reach the directory.
    chmodSync(dataDir, 0o755);
    try {
      const { DATABASE_URL: _unused, ...rest } = env;
      const embedded = { ...rest, DATABASE_URL: '', HRX_DATA_DIR: dataDir, HRX_EMBEDDED_PG_PORT: String(await freePort()) };
      const { code, stderr } = await demoUntilCtrlC(embedded);
      expect(code).toBe(0);
      expect(stderr).not.toContain('pg pool error');
      expect(warnings(stderr)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});

/**
 * Starts `hrx demo` in a process group of its own, waits for its "Press Ctrl-C", notes the demo's
 * Redis keys, sends SIGINT to the whole group (a terminal's Ctrl-C) and resolves once it exited.
 */
async function demoUntilCtrlC(env: Record<string, string>) {
  const [port, simPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [HRX_BIN, 'demo', '--employees', '5', '--sim-port', String(simPort)], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 180_000;
  while (!stdout.includes('Press Ctrl-C to stop.') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 200));
  expect(stdout, stderr).toContain('Press Ctrl-C to stop.');
  const running = await keysOf(env.HRX_REDIS_PREFIX!);
  process.kill(-child.pid!, 'SIGINT');
  return { code: await exited, stdout, stderr, running };
}
