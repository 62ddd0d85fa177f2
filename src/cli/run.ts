/**
 * Long-running commands: `hrx serve` (API), `hrx worker` (sync and events workers), `hrx start` (both in one
 * process), `hrx hrms-sim` (the reference HRMS simulator).
 */
import { eventsWorkerDeps, reconcilerDeps, syncWorkerDeps } from '../../jobs/deps';
import { startEventsWorker } from '../../jobs/events.worker';
import { startSyncWorker } from '../../jobs/sync.worker';
import { buildApp } from '../app';
import type { Config } from '../config';
import { openContext, type Context } from '../context';
import { migrate } from '../db/orm';
import { startHrmsSimulator } from '../hrms/sim/server';
import type { Logger } from '../logger';
import { listen, onShutdown } from '../server';
import { startScheduleReconciler } from '../../jobs/schedules';
import { parse, required, UsageError } from './args';

/** What a started process runs; `stop()` ends it gracefully. */
export interface Running {
  ctx: Context;
  url?: string;
  stop(): Promise<void>;
}

/** How long running jobs may go on after SIGTERM/SIGINT before they are handed back (decisions §11). */
export const JOB_GRACE_MS = 25_000;

/** Resolves when `p` settles or after `ms`, whichever comes first; true when `p` settled. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    p.then(() => { clearTimeout(timer); resolve(true); }, () => { clearTimeout(timer); resolve(true); });
  });
}

/**
 * Starts the API and/or the worker over one context. `migrateFirst` applies pending migrations
 * (used by `start` and the demo, so one command brings everything up). A worker also runs the
 * job-scheduler reconciler (jobs/schedules.ts).
 */
export async function startProcess(config: Config, log: Logger, what: { api: boolean; worker: boolean; migrateFirst?: boolean }): Promise<Running> {
  const ctx = await openContext(config, log, { poolMax: what.api ? 20 : 5, worker: what.worker });
  try {
    if (what.migrateFirst) await migrate(ctx.db);
  } catch (err) {
    await ctx.close();
    throw err;
  }
  // V2 service keys are created on first start (race-safe across processes); an unmigrated
  // database only delays it to the first use.
  if (what.api) await ctx.services.external.ensureServiceKeys().catch((err: unknown) => log.warn({ err }, 'service keys not ensured at start'));
  const server = what.api ? await listen(buildApp(ctx), config.HOST, config.PORT, config.HRX_BASE_PATH, log) : undefined;
  const worker = what.worker ? startSyncWorker(syncWorkerDeps(ctx)) : undefined;
  if (worker) log.info('sync worker started');
  const eventsWorker = what.worker ? await startEventsWorker(eventsWorkerDeps(ctx)) : undefined;
  if (eventsWorker) log.info('events worker started');
  const reconciler = what.worker ? startScheduleReconciler(reconcilerDeps(ctx)) : undefined;
  return {
    ctx,
    ...(server ? { url: server.url } : {}),
    // decisions §11 "Shutdown": requests in flight finish (≤ 25 s) while running jobs finish
    // (≤ 25 s); a job still running then is left to BullMQ, which hands it to another worker
    // once its lock expires (its PostgreSQL transaction is rolled back when this process ends).
    async stop() {
      await reconciler?.stop();
      const workers = [worker, eventsWorker].filter((w) => w !== undefined);
      const jobsDone = Promise.all(workers.map((w) => w.close()));
      await server?.stop();
      if (!(await within(jobsDone, JOB_GRACE_MS))) log.warn('jobs still running after the grace period: handed back to the queue');
      await ctx.close();
    },
  };
}

/** `hrx serve`, `hrx worker`, `hrx start`: run until SIGTERM/SIGINT. */
export async function runCommand(kind: 'serve' | 'worker' | 'start', argv: string[], config: Config, log: Logger): Promise<void> {
  parse(argv, {});
  const running = await startProcess(config, log, {
    api: kind !== 'worker', worker: kind !== 'serve', migrateFirst: kind === 'start',
  });
  onShutdown(() => running.stop(), log);
}

/** `hrx hrms-sim --port P --employees N --seed S --client-id ID --client-secret SECRET [...]`. */
export async function hrmsSimCommand(argv: string[], log: Logger): Promise<void> {
  const { values } = parse(argv, {
    port: { type: 'string' }, host: { type: 'string' }, employees: { type: 'string' }, seed: { type: 'string' },
    'client-id': { type: 'string' }, 'client-secret': { type: 'string' }, 'latency-ms': { type: 'string' },
    'rate-429': { type: 'string' }, 'rate-5xx': { type: 'string' },
  });
  const num = (name: string, dflt: number): number => {
    const v = values[name as keyof typeof values];
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a non-negative number`);
    return n;
  };
  const sim = await startHrmsSimulator({
    port: num('port', 9100),
    host: values.host ?? '127.0.0.1',
    employees: num('employees', 100),
    seed: values.seed ?? '1',
    clientId: required(values, 'client-id'),
    clientSecret: required(values, 'client-secret'),
    latencyMs: num('latency-ms', 0),
    rate429: num('rate-429', 0),
    rate5xx: num('rate-5xx', 0),
  });
  log.info({ url: sim.url }, 'reference HRMS simulator listening');
  process.stdout.write(JSON.stringify({ url: sim.url, port: sim.port }) + '\n');
  onShutdown(() => sim.close(), log);
}
