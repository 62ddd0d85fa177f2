/**
 * A PgBouncer of a test's own (Debian package `pgbouncer`) in front of the run's PostgreSQL, in
 * `pool_mode = transaction` with a small server pool, on a free loopback port, with its config,
 * log and pidfile in a temp dir of its own (docs/operations.md "Scaling out").
 *
 * `HRX_TEST_PGBOUNCER` names the binary (default /usr/sbin/pgbouncer); without one the tests skip
 * and say so, unless `CI` or `HRX_REQUIRE_PGBOUNCER=1` is set (.ci/run sets it and installs the
 * package): then they fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { waitFor } from './harness';

export const PGBOUNCER = process.env.HRX_TEST_PGBOUNCER ?? '/usr/sbin/pgbouncer';
const found = existsSync(PGBOUNCER);
const required = Boolean(process.env.CI) || process.env.HRX_REQUIRE_PGBOUNCER === '1';
/** Whether the PgBouncer test files run: a PgBouncer is there, or CI requires one (then starting it fails and says why). */
export const havePgBouncer = found || required;
if (!found && !required) console.warn(`PgBouncer tests skipped: no PgBouncer at ${PGBOUNCER} (apt-get install pgbouncer, or set HRX_TEST_PGBOUNCER)`);

/** A running PgBouncer. */
export interface PgBouncer {
  /** `databaseUrl` with PgBouncer's host and port. */
  url: string;
  /** Its log so far. */
  log(): string;
  /** Stops it (SIGINT: immediate shutdown) and removes its temp dir. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * Starts PgBouncer in front of `databaseUrl` (trust auth, user from the URL) with `poolSize`
 * server connections per database/user pair; resolves once a query through it answers.
 * `ignoreStartupParameters`: its `ignore_startup_parameters` (e.g. `options`: it then drops them
 * silently instead of refusing the connection). PgBouncer refuses to run as root: as root it runs
 * as the `postgres` user (`-u postgres`).
 */
export async function startPgBouncer(databaseUrl: string, opts: { poolSize?: number; ignoreStartupParameters?: string } = {}): Promise<PgBouncer> {
  if (!found) throw new Error(`no PgBouncer at ${PGBOUNCER} (apt-get install pgbouncer, or set HRX_TEST_PGBOUNCER)`);
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'hrx-pgbouncer-'));
  const port = await freePort();
  const conf = path.join(dir, 'pgbouncer.ini');
  const logFile = path.join(dir, 'pgbouncer.log');
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    conf,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 4}`,
      ...(opts.ignoreStartupParameters ? [`ignore_startup_parameters = ${opts.ignoreStartupParameters}`] : []),
      'max_client_conn = 500',
      `logfile = ${logFile}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const root = userInfo().uid === 0;
  if (root) {
    const pgUser = lookupUid('postgres');
    chownSync(dir, pgUser.uid, pgUser.gid);
  }
  const child: ChildProcess = spawn(PGBOUNCER, [...(root ? ['-u', 'postgres'] : []), conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const log = () => out + (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  target.hostname = '127.0.0.1';
  target.port = String(port);
  const url = target.toString();
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGINT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${log()}`);
        const c = new pg.Client({ connectionString: url });
        try {
          await c.connect();
          await c.query('select 1');
          return true;
        } finally {
          await c.end().catch(() => undefined);
        }
      },
      15_000,
      100,
    );
  } catch (err) {
    const said = log();
    await stop();
    throw new Error(`PgBouncer did not answer: ${String(err)}\n${said}`, { cause: err });
  }
  return { url, log, stop };
}

/** The uid and gid of a local user (from /etc/passwd). */
function lookupUid(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`PgBouncer refuses to run as root and there is no "${name}" user to run it as`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
