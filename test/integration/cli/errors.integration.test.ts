/**
 * What the CLI prints when a command cannot do its work (docs/cli.md "How every command behaves"), through the real
 * executable: plain words on stderr, never SQL, a bound value of a statement or a password; a
 * usage error (exit 2) names the valid values; an unknown org or id, an unmigrated database
 * (exit 1) say so; an unreachable PostgreSQL or Redis is named and the command gives up within
 * 5 s of what the same command takes when both answer (a baseline run under the same machine
 * load); `migrate` names the database it migrated (host, port, database, schema), never the
 * password of DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHrx, type HrxRun } from '../../support/cli';
import { DATABASE_URL, dropSchema, testEnv } from '../../support/harness';
import { freePort } from '../../support/private-services';

/** What a statement or a driver message looks like: none of it may reach the terminal. */
const SQL = /\b(select|insert|update|delete)\b[\s\S]*\b(from|into|set|where)\b|DriverException|syntax error|\$\d|"t_[0-9a-f]+"|invalid input syntax/i;

const { Client } = pg;

const env = testEnv({ LOG_LEVEL: 'silent' });
const fresh = testEnv({ LOG_LEVEL: 'silent' });
const withPassword = (url: string) => url.replace('postgresql://postgres@', 'postgresql://postgres:s3cret-pw@');

beforeAll(async () => {
  const m = await runHrx(['migrate', '--json'], env);
  expect(m.code, m.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await dropSchema(env.HRX_DB_SCHEMA!);
  await dropSchema(fresh.HRX_DB_SCHEMA!);
});

/** The run's one stderr line, checked for SQL. */
function oneLine(r: HrxRun): string {
  expect(r.stderr).not.toMatch(SQL);
  expect(r.stdout).not.toMatch(SQL);
  return r.stderr.trim().split('\n')[0]!;
}

describe('hrx errors in plain words', () => {
  it('apikey create --org nope: a usage error naming the option and what it takes, no SQL (exit 2)', async () => {
    const r = await runHrx(['apikey', 'create', '--org', 'nope', '--json'], env);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe("hrx: option '--org <uuid>' argument 'nope' is invalid. not a UUID (an org's uuid, as `hrx org create` prints it).");
    expect(r.stderr).toContain('Usage: hrx apikey create');
    expect(r.stdout).toBe('');
  }, 60_000);

  it('an org, API key or connection that does not exist is named (exit 1)', async () => {
    const org = randomUUID();
    for (const [args, line] of [
      [['apikey', 'create', '--org', org], `hrx: no org with uuid ${org}`],
      [['apikey', 'list', '--org', org], `hrx: no org with uuid ${org}`],
      [['apikey', 'revoke', 'not-a-key'], 'hrx: no active API key with id not-a-key'],
      [['connection', 'approve', 'nope'], 'hrx: no active connection with id nope'],
      [['sync', 'run', '--org', org], `hrx: org: no client org with uuid ${org}`],
      [['connection', 'create', '--vendor', org, '--client', org], 'hrx: vendor: no vendor org with this uuid'],
    ] as const) {
      const r = await runHrx([...args, '--json'], env);
      expect(r.code, r.stderr).toBe(1);
      expect(oneLine(r)).toBe(line);
      expect(r.stdout).toBe('');
    }
  }, 120_000);

  it('a value outside the allowed ones lists them (exit 2)', async () => {
    const u = randomUUID();
    const r = await runHrx(['connection', 'create', '--vendor', u, '--client', u, '--status', 'maybe'], env);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe("hrx: option '--status <status>' argument 'maybe' is invalid. Allowed choices are pending, approved, rejected.");
    const shared = await runHrx(['connection', 'create', '--vendor', u, '--client', u, '--shared', 'name,shoe_size'], env);
    expect(shared.code).toBe(2);
    expect(oneLine(shared)).toMatch(/^hrx: option '--shared <points>' argument 'name,shoe_size' is invalid\. unknown data point "shoe_size": one of name, /);
  }, 60_000);

  it('an unmigrated database says to run migrate, without SQL (exit 1)', async () => {
    const r = await runHrx(['org', 'create', '--name', 'Early', '--vendor', '--json'], fresh);
    expect(r.code).toBe(1);
    expect(oneLine(r)).toBe('hrx: the database has no hrx tables: run `hrx migrate` first (PostgreSQL 42P01)');
  }, 60_000);

  it('migrate names the database it migrated (host, port, database, schema), never the password', async () => {
    const e = { ...fresh, DATABASE_URL: withPassword(DATABASE_URL) };
    const text = await runHrx(['migrate'], e);
    expect(text.code, text.stderr).toBe(0);
    // The database of the run's DATABASE_URL (CI's is `test`), host and port as it names them.
    const url = new URL(DATABASE_URL);
    const where = `${url.hostname}:${url.port || '5432'}${url.pathname} (schema ${fresh.HRX_DB_SCHEMA})`;
    expect(text.stdout).toMatch(new RegExp(`^migrated ${where.replace(/[()]/g, '\\$&')}: applied Migration\\d+`));
    const again = await runHrx(['migrate', '--json'], e);
    expect(JSON.parse(again.stdout)).toEqual({ database: where, applied: [] });
    for (const out of [text, again]) expect(out.stdout + out.stderr).not.toContain('s3cret-pw');
  }, 120_000);
});

describe('hrx with a database that does not exist', () => {
  it('migrate on a mistyped database name fails naming it (exit 1), and creates no database', async () => {
    const name = `hrx_missing_${randomUUID().slice(0, 8)}`;
    const url = withPassword(DATABASE_URL).replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
    expect(url).toContain(`/${name}`);
    const r = await runHrx(['migrate', '--json'], { ...env, DATABASE_URL: url });
    expect(r.code).toBe(1);
    expect(oneLine(r)).toBe(`hrx: the database "${name}" does not exist: hrx never creates one; create it (createdb ${name}) and run hrx migrate`);
    expect(r.stdout + r.stderr).not.toContain('s3cret-pw');
    const pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    try {
      expect((await pg.query('select 1 from pg_database where datname = $1', [name])).rowCount).toBe(0);
    } finally {
      await pg.end();
    }
  }, 60_000);
});

describe('hrx on a port that is taken', () => {
  it('serve and hrms-sim name the port in use (exit 1)', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const serve = await runHrx(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
      expect(serve.code).toBe(1);
      expect(oneLine(serve)).toBe(`hrx: port ${port} on 127.0.0.1 is in use (another hrx, or another program): stop it, or set PORT`);
      const sim = await runHrx(['hrms-sim', '--port', String(port), '--employees', '1', '--client-id', 'a', '--client-secret', 'b'], env);
      expect(sim.code).toBe(1);
      expect(oneLine(sim)).toBe(`hrx: port ${port} on 127.0.0.1 is in use (another simulator, or another program): stop it, or choose --port`);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  }, 60_000);
});

describe('hrx with PostgreSQL or Redis unreachable', () => {
  it('names which, prints no password, and gives up within 5 s of a run where both answer', async () => {
    // The same command with both services up: what starting and one query cost under this load.
    const baseline = await runHrx(['apikey', 'list', '--org', randomUUID(), '--json'], env);
    expect(baseline.code).toBe(1);
    const pg = await runHrx(['apikey', 'list', '--org', randomUUID(), '--json'], {
      ...env,
      DATABASE_URL: `postgresql://postgres:s3cret-pw@127.0.0.1:${await freePort()}/test`,
    });
    const redis = await runHrx(['apikey', 'list', '--org', randomUUID(), '--json'], { ...env, REDIS_URL: `redis://:s3cret-pw@127.0.0.1:${await freePort()}` });
    console.log(`[cli-unreachable] baseline ${baseline.ms} ms, PostgreSQL down ${pg.ms} ms, Redis down ${redis.ms} ms`);
    expect(pg.code).toBe(1);
    expect(oneLine(pg)).toMatch(/^hrx: PostgreSQL is unreachable \(DATABASE_URL\): connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    expect(redis.code).toBe(1);
    expect(oneLine(redis)).toMatch(/^hrx: Redis is unreachable \(REDIS_URL\): connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    for (const r of [pg, redis]) {
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain('s3cret-pw');
      expect(r.ms - baseline.ms).toBeLessThan(5000);
    }
  }, 120_000);

  it('a server that takes the connection but never answers: named, "no answer within", within 5 s of the baseline', async () => {
    // A TCP listener on 127.0.0.1 that accepts and then says nothing (a hung PostgreSQL or Redis).
    const held: Socket[] = [];
    const mute = createServer((socket) => {
      held.push(socket);
    });
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    const port = (mute.address() as AddressInfo).port;
    try {
      const baseline = await runHrx(['apikey', 'list', '--org', randomUUID(), '--json'], env);
      const pg = await runHrx(['apikey', 'list', '--org', randomUUID(), '--json'], { ...env, DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/test` });
      const redis = await runHrx(['apikey', 'list', '--org', randomUUID(), '--json'], { ...env, REDIS_URL: `redis://127.0.0.1:${port}` });
      console.log(`[cli-hung] baseline ${baseline.ms} ms, PostgreSQL hung ${pg.ms} ms, Redis hung ${redis.ms} ms`);
      expect([pg.code, redis.code]).toEqual([1, 1]);
      expect(oneLine(pg)).toBe('hrx: PostgreSQL is unreachable (DATABASE_URL): no answer within 1.8 s');
      expect(oneLine(redis)).toBe('hrx: Redis is unreachable (REDIS_URL): no answer within 2 s');
      for (const r of [pg, redis]) expect(r.ms - baseline.ms).toBeLessThan(5000);
    } finally {
      for (const s of held) s.destroy();
      await new Promise<void>((r) => mute.close(() => r()));
    }
  }, 120_000);
});

describe('hrx without DATABASE_URL', () => {
  it('a one-shot command says it uses the embedded PostgreSQL, before starting it', async () => {
    // HRX_DATA_DIR is a file: the embedded server cannot start, so the warning is all this costs (no server is run).
    const dir = mkdtempSync(path.join(tmpdir(), 'hrx-no-db-'));
    const notADir = path.join(dir, 'data');
    writeFileSync(notADir, '');
    try {
      const r = await runHrx(['org', 'list', '--json'], { ...env, DATABASE_URL: '', HRX_DATA_DIR: notADir });
      expect(r.code).toBe(1);
      const [warning, failure] = r.stderr.trim().split('\n');
      expect(warning).toBe(
        `hrx: DATABASE_URL is not set: using the embedded PostgreSQL under ${notADir} (the one \`npm run demo\` starts); set DATABASE_URL for another database`,
      );
      expect(failure).toMatch(/^hrx: PostgreSQL is unreachable \(embedded PostgreSQL\)/);
      // With DATABASE_URL set, not a word of it.
      const set = await runHrx(['org', 'list', '--json'], env);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr).not.toContain('DATABASE_URL is not set');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
