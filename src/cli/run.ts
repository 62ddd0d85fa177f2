/**
 * Long-running commands: `hrx serve` (API), `hrx worker` (sync and events workers), `hrx start` (both in one
 * process), `hrx hrms-sim` (the reference HRMS simulator).
 */
import { buildApp } from '../app';
import type { Config } from '../config';
import { openContext, type Context } from '../context';
import { migrate } from '../db/orm';
import { startHrmsSimulator } from '../hrms/sim/server';
import type { Logger } from '../logger';
import { listen, onShutdown } from '../server';
import { parse, required, UsageError } from './args';

/** What a started process runs; `stop()` ends it gracefully. */
export interface Running {
  ctx: Context;
  url?: string;
  stop(): Promise<void>;
}

/** The job side of a worker process (sync and events workers, schedule reconciler), once started. */
export interface RunningJobs {
  /** Stops installing job schedulers (first, so no new work is scheduled during shutdown). */
  stopScheduling(): Promise<void>;
  /** Closes the workers; resolves once their running jobs have finished. */
  close(): Promise<void>;
}

/**
 * Starts the job side over an open context. Injected by the composition root (`jobs/index.ts`,
 * handed over by `bin/hrx.js`), so `src/` never imports `jobs/`. Throws when Redis refuses the
 * events worker's schedulers.
 */
export type StartJobs = (ctx: Context) => Promise<RunningJobs>;

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
 * (used by `start` and the demo, so one command brings everything up). A worker runs what
 * `startJobs` starts (jobs/index.ts: the workers and the job-scheduler reconciler); a worker
 * without it throws before anything is opened.
 */
export async function startProcess(
  config: Config, log: Logger, what: { api: boolean; worker: boolean; migrateFirst?: boolean; startJobs?: StartJobs | undefined },
): Promise<Running> {
  if (what.worker && !what.startJobs) throw new Error('a worker process needs the job starters (jobs/index.ts)');
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
  const jobs = what.worker && what.startJobs ? await what.startJobs(ctx) : undefined;
  return {
    ctx,
    ...(server ? { url: server.url } : {}),
    // decisions §11 "Shutdown": requests in flight finish (≤ 25 s) while running jobs finish
    // (≤ 25 s); a job still running then is left to BullMQ, which hands it to another worker
    // once its lock expires (its PostgreSQL transaction is rolled back when this process ends).
    async stop() {
      await jobs?.stopScheduling();
      const jobsDone = jobs ? jobs.close() : Promise.resolve();
      await server?.stop();
      if (!(await within(jobsDone, JOB_GRACE_MS))) log.warn('jobs still running after the grace period: handed back to the queue');
      await ctx.close();
    },
  };
}

/** `hrx serve`, `hrx worker`, `hrx start`: run until SIGTERM/SIGINT. */
export async function runCommand(kind: 'serve' | 'worker' | 'start', argv: string[], config: Config, log: Logger, startJobs?: StartJobs): Promise<void> {
  parse(argv, {});
  const running = await startProcess(config, log, {
    api: kind !== 'worker', worker: kind !== 'serve', migrateFirst: kind === 'start', startJobs,
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
