/**
 * A private Redis Cluster of three masters (no replicas) for the tests of docs/operations.md
 * "Redis Cluster": three `redis-server --cluster-enabled yes` children on free loopback ports
 * (and their cluster bus ports, port + 10000), joined by `redis-cli --cluster create`, with their
 * node files in a temporary folder. The machine's shared Redis is never touched.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why a cluster cannot be started here (`redis-server` or `redis-cli` missing), or null. */
export function clusterUnavailable(): string | null {
  for (const bin of [REDIS_SERVER, REDIS_CLI]) if (!existsSync(bin)) return `${bin} is not installed (Debian package redis-server)`;
  return null;
}

/** Whether `port` can be bound on 127.0.0.1 now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A random port in 20000–44999 whose cluster bus port (+10000) is free too; never one of `taken`. */
async function clusterPort(taken: number[]): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if (taken.some((t) => Math.abs(t - port) < 2 || Math.abs(t + 10_000 - port) < 2 || Math.abs(t - 10_000 - port) < 2)) continue;
    if ((await bindable(port)) && (await bindable(port + 10_000))) return port;
  }
  throw new Error('no free pair of ports for a Redis Cluster node');
}

/** A running three-master cluster. */
export interface PrivateCluster {
  /** `REDIS_URL` for hrx with `HRX_REDIS_CLUSTER=1`: every node, comma-separated. */
  url: string;
  ports: number[];
  /** Keys held by each node (its DBSIZE), in `ports` order. */
  keysPerNode(): Promise<number[]>;
  /** Kills the servers and removes their folder. */
  stop(): Promise<void>;
}

/** Asks one node `args` (a fresh connection, closed after). */
async function ask(port: number, ...args: string[]): Promise<unknown> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await r.call(args[0]!, ...args.slice(1));
  } finally {
    r.disconnect();
  }
}

/** Polls `ok` every 100 ms until it holds; throws `what` after `ms`. */
async function until(ok: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await ok().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(what);
}

/** Starts three masters, creates the cluster and waits until every node says `cluster_state:ok`. */
export async function startRedisCluster(): Promise<PrivateCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hrx-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const stop = async (): Promise<void> => {
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = running.map((c) => new Promise((r) => c.once('exit', r)));
    for (const c of running) c.kill('SIGKILL');
    await Promise.all(exited);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await clusterPort(ports);
      ports.push(port);
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`)];
      args.push('--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no');
      children.push(spawn(REDIS_SERVER, args, { stdio: 'ignore' }));
    }
    for (const port of ports) await until(async () => (await ask(port, 'ping')) === 'PONG', 10_000, `redis-server did not start on port ${port}`);
    await run(REDIS_CLI, ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    for (const port of ports) {
      await until(async () => String(await ask(port, 'cluster', 'info')).includes('cluster_state:ok'), 30_000, `node ${port} never reached cluster_state:ok`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: ports.map((p) => `redis://127.0.0.1:${p}`).join(','),
    ports,
    keysPerNode: () => Promise.all(ports.map(async (p) => Number(await ask(p, 'dbsize')))),
    stop,
  };
}
