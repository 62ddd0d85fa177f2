/**
 * The command line when a dependency is unreachable (docs/operations.md "Redis or PostgreSQL down; shutdown", docs/cli.md): each command exits 1
 * within a few seconds with one line naming PostgreSQL or Redis, and changes nothing; with both
 * reachable, `migrate` and `org create` exit 0 right after printing their JSON.
 */
import { execFile } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { HRX_BIN } from '../../support/cli';
import pg from 'pg';
import { DATABASE_URL, dropSchema, testEnv } from '../../support/harness';
import { freePort } from '../../support/private-services';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function hrx(args: string[], env: Record<string, string>): Promise<Run> {
  const t = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [HRX_BIN, ...args], { env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr, ms: Date.now() - t });
    });
  });
}

const env = testEnv();
afterAll(async () => {
  await dropSchema(env.HRX_DB_SCHEMA!);
});

describe('hrx commands and unreachable dependencies', () => {
  it('migrate and org create print their JSON and exit 0', async () => {
    const m = await hrx(['migrate', '--json'], env);
    expect(m.code, m.stderr).toBe(0);
    expect(JSON.parse(m.stdout).applied.length).toBeGreaterThan(0);
    const o = await hrx(['org', 'create', '--name', 'Acme', '--client', '--json'], env);
    expect(o.code, o.stderr).toBe(0);
    expect(JSON.parse(o.stdout)).toMatchObject({ org_name: 'Acme' });
    console.log(`[faults-cli] migrate exited in ${m.ms} ms, org create in ${o.ms} ms`);
  }, 60_000);

  it('Redis unreachable: exit 1 naming Redis within 10 s, and no org is created', async () => {
    const r = await hrx(['org', 'create', '--name', 'NoRedis', '--vendor', '--json'], { ...env, REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    console.log(`[faults-cli] Redis unreachable: exit ${r.code} in ${r.ms} ms: ${r.stderr.trim()}`);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^hrx: Redis is unreachable \(REDIS_URL\): connect ECONNREFUSED/)]);
    expect(r.ms).toBeLessThan(10_000);
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    try {
      const rows = await db.query(`select count(*)::int as n from "${env.HRX_DB_SCHEMA}".orgs where org_name = 'NoRedis'`);
      expect(rows.rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  }, 60_000);

  it('PostgreSQL unreachable: exit 1 naming PostgreSQL within 10 s', async () => {
    const r = await hrx(['migrate', '--json'], { ...env, DATABASE_URL: `postgresql://postgres:secret@127.0.0.1:${await freePort()}/test` });
    console.log(`[faults-cli] PostgreSQL unreachable: exit ${r.code} in ${r.ms} ms: ${r.stderr.trim()}`);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^hrx: PostgreSQL is unreachable \(DATABASE_URL\): connect ECONNREFUSED/)]);
    expect(r.stderr).not.toContain('secret');
    expect(r.ms).toBeLessThan(10_000);
  }, 60_000);
});
