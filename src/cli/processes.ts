/**
 * `hrx serve --processes N|auto` (docs/operations.md "Several processes on one machine"): a
 * primary process that runs no API itself and starts N API processes with node:cluster, which
 * share the one port (the primary accepts connections and hands them to the children in turn).
 *
 * - SIGTERM/SIGINT to the primary: it tells every child to stop (each finishes its requests in
 *   flight, as one `hrx serve` does), waits for them all and exits 0 when every child did; a
 *   second signal, or a child still running after the children's own bound, kills them (exit 1).
 * - A child that exits before any child listened (bad settings, port in use, PostgreSQL
 *   unreachable): the primary stops the others and exits 1, as one `hrx serve` would.
 * - A child that exits unasked once one has listened (killed; or its start timed out on a busy
 *   machine): a new one takes its place; more than `MAX_RESTARTS` in `RESTART_WINDOW_MS` (a crash
 *   loop) stops everything, exit 1, so the orchestrator sees it.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger } from '../logger';
import { serveClusterMetrics } from '../ops/cluster-metrics';
import { STOP_MESSAGE } from '../server';

/** Restarts allowed within `RESTART_WINDOW_MS` before the primary gives up. */
export const MAX_RESTARTS = 5;
export const RESTART_WINDOW_MS = 60_000;
/** How long the primary waits for the children after a signal: their own bound (45 s) and a margin. */
const CHILDREN_GRACE_MS = 50_000;

/** `auto` → one per core (`os.availableParallelism()`), else the number itself. */
export function processCount(v: string): number {
  return v === 'auto' ? availableParallelism() : Number(v);
}

/** True in a child started by {@link superviseApiProcesses}. */
export const isApiChild = (): boolean => cluster.isWorker;

/**
 * Runs in the primary: starts `n` children (each runs this same command line, `hrx serve`, and
 * sees `isApiChild()`), supervises them and exits the process when they are all gone.
 */
export function superviseApiProcesses(n: number, log: Logger): void {
  serveClusterMetrics();
  const listened = new Set<number>();
  const restarts: number[] = [];
  let stopping = false;
  let failed = false;

  const alive = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
  const exitWhenAllGone = () => {
    if (alive().length > 0) return;
    log.info({ failed }, 'every API process has exited');
    process.exit(failed ? 1 : 0);
  };
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason, processes: alive().length }, 'stopping the API processes');
    for (const w of alive()) if (w.isConnected()) w.send(STOP_MESSAGE);
    const force = setTimeout(() => {
      log.error({ graceMs: CHILDREN_GRACE_MS }, 'API processes still running after the grace period: killing them');
      failed = true;
      for (const w of alive()) w.process.kill('SIGKILL');
    }, CHILDREN_GRACE_MS);
    force.unref();
    exitWhenAllGone();
  };
  const start = () => cluster.fork();

  cluster.on('listening', (w) => {
    if (listened.has(w.id)) return;
    listened.add(w.id);
    log.info({ pid: w.process.pid }, 'API process listening');
  });
  cluster.on('exit', (w, code, signal) => {
    const pid = w.process.pid;
    const clean = code === 0 && !signal;
    if (stopping) {
      if (!clean) failed = true;
      log.info({ pid, code, signal }, 'API process exited');
      exitWhenAllGone();
      return;
    }
    failed = true;
    // Before any process listened: the settings, the port or PostgreSQL are wrong for all of them.
    if (listened.size === 0) {
      log.error({ pid, code, signal }, 'an API process exited before any listened: stopping the others');
      stopAll('a process failed to start');
      return;
    }
    const now = Date.now();
    while (restarts.length && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length >= MAX_RESTARTS) {
      log.error({ pid, code, signal, restarts: restarts.length, windowMs: RESTART_WINDOW_MS }, 'API processes keep exiting: stopping the others');
      stopAll('crash loop');
      return;
    }
    restarts.push(now);
    failed = false;
    log.error({ pid, code, signal }, 'an API process exited unexpectedly: starting another');
    start();
  });

  let signals = 0;
  const onSignal = (signal: string) => {
    if (++signals > 1) {
      log.warn({ signal }, 'second signal: killing the API processes');
      for (const w of alive()) w.process.kill('SIGKILL');
      process.exit(1);
    }
    stopAll(signal);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  for (let i = 0; i < n; i++) start();
  log.info({ processes: n, pid: process.pid }, 'hrx API processes starting');
}
