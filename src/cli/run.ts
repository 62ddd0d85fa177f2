/**
 * What the long-running commands run (`hrx serve`, `hrx worker`, `hrx start`, `hrx demo`): the
 * API and/or the workers over one context, and their graceful stop. Registered in `long.ts`.
 */
import { buildApp } from '../app';
import type { Config } from '../config';
import { openContext, type Context } from '../context';
import { migrate } from '../db/orm';
import type { Logger } from '../logger';
import { clusterMetricsChild } from '../ops/cluster-metrics';
import { listen } from '../server';
import type { StartJobs } from './runtime';

/** What a started process runs; `stop()` ends it gracefully. */
export interface Running {
  ctx: Context;
  url?: string;
  /**
   * Stops the scheduling, the API and the jobs, runs `beforeClose` (while the context is still
   * open: e.g. the demo removes its queues) and closes the context.
   */
  stop(opts?: { beforeClose?: (ctx: Context) => Promise<void> }): Promise<void>;
}

/** How long running jobs may go on after SIGTERM/SIGINT before they are handed back (docs/operations.md "Redis or PostgreSQL down; shutdown"). */
export const JOB_GRACE_MS = 25_000;

/** Resolves when `p` settles or after `ms`, whichever comes first; true when `p` settled. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    p.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

/**
 * Starts the API and/or the worker over one context. `migrateFirst` applies pending migrations
 * (used by `start` and the demo, so one command brings everything up). A worker runs what
 * `startJobs` starts (jobs/index.ts: the workers and the job-scheduler reconciler); a worker
 * without it throws before anything is opened.
 */
export async function startProcess(
  config: Config,
  log: Logger,
  what: { api: boolean; worker: boolean; migrateFirst?: boolean; startJobs?: StartJobs | undefined },
): Promise<Running> {
  if (what.worker && !what.startJobs) throw new Error('a worker process needs the job starters (jobs/index.ts)');
  const ctx = await openContext(config, log, { poolMax: what.api ? 20 : 5, worker: what.worker });
  try {
    if (what.migrateFirst) await migrate(ctx.db, ctx.migrationKeys);
  } catch (err) {
    await ctx.close();
    throw err;
  }
  // V2 service keys are created on first start (race-safe across processes); an unmigrated
  // database only delays it to the first use.
  if (what.api) await ctx.services.external.ensureServiceKeys().catch((err: unknown) => log.warn({ err }, 'service keys not ensured at start'));
  const server = what.api
    ? await listen(buildApp(ctx, { clusterMetrics: clusterMetricsChild() }), config.HOST, config.PORT, config.HRX_BASE_PATH, log)
    : undefined;
  const jobs = what.worker && what.startJobs ? await what.startJobs(ctx) : undefined;
  return {
    ctx,
    ...(server ? { url: server.url } : {}),
    // docs/operations.md "Redis or PostgreSQL down; shutdown": requests in flight finish (≤ 25 s) while running jobs finish
    // (≤ 25 s); a job still running then is left to BullMQ, which hands it to another worker
    // once its lock expires (its PostgreSQL transaction is rolled back when this process ends).
    async stop(opts = {}) {
      await jobs?.stopScheduling();
      const jobsDone = jobs ? jobs.close() : Promise.resolve();
      await server?.stop();
      if (!(await within(jobsDone, JOB_GRACE_MS))) log.warn('jobs still running after the grace period: handed back to the queue');
      if (opts.beforeClose) await opts.beforeClose(ctx).catch((err: unknown) => log.warn({ err }, 'shutdown step skipped'));
      await ctx.close();
    },
  };
}
