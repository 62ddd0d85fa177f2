/**
 * The composition root of the job side: what a worker process (`hrx worker`, `hrx start`,
 * `hrx demo`) runs over an open context. `bin/hrx.js` hands `startJobs` to the CLI, so `src/`
 * never imports `jobs/` (npm run lint:deps).
 */
import type { RunningJobs } from '../src/cli/run';
import type { Context } from '../src/context';
import type { EventsWorkerDeps } from './events.worker';
import { startEventsWorker } from './events.worker';
import { startScheduleReconciler } from './schedules';
import { startSyncWorker } from './sync.worker';

/** What the events worker needs, from an open context and its configuration. */
export function eventsWorkerDeps(ctx: Context): EventsWorkerDeps {
  const c = ctx.config;
  return {
    connection: ctx.redis, prefix: c.HRX_REDIS_PREFIX, events: ctx.services.events, deliverer: ctx.deliverer, queue: ctx.eventsQueue,
    scheduleMs: c.HRX_EVENTS_RETRY_SCHEDULE_MS, consentScanMs: c.HRX_EVENTS_CONSENT_SCAN_MS, relayMs: c.HRX_EVENTS_RELAY_MS,
    concurrency: c.HRX_EVENTS_CONCURRENCY, log: ctx.log,
  };
}

/**
 * Starts the sync worker, the events worker (which installs its job schedulers; throws when Redis
 * refuses them) and the job-scheduler reconciler (jobs/schedules.ts) over `ctx`.
 */
export async function startJobs(ctx: Context): Promise<RunningJobs> {
  const { config, log } = ctx;
  const worker = startSyncWorker({ connection: ctx.redis, prefix: config.HRX_REDIS_PREFIX, sync: ctx.services.sync, log });
  log.info('sync worker started');
  const eventsWorker = await startEventsWorker(eventsWorkerDeps(ctx));
  log.info('events worker started');
  const reconciler = startScheduleReconciler({
    orm: ctx.db.orm, redis: ctx.requestRedis, syncQueue: ctx.syncQueue, eventsQueue: ctx.eventsQueue,
    refreshSchedule: (orgId) => ctx.services.sync.refreshSchedule(orgId),
    consentScanMs: config.HRX_EVENTS_CONSENT_SCAN_MS, relayMs: config.HRX_EVENTS_RELAY_MS, log,
  });
  return {
    stopScheduling: () => reconciler.stop(),
    close: async () => {
      await Promise.all([worker.close(), eventsWorker.close()]);
    },
  };
}
