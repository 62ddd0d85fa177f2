/**
 * What the workers need, taken from an open context: the one place for it, used by `startJobs`
 * (jobs/index.ts: `hrx worker`, `hrx start`, `hrx demo`) and the test harness alike, so both run
 * the workers wired the same way.
 */
import type { Context } from '../src/context';
import { eventsSchedules } from '../src/events/queue';
import type { EventsWorkerDeps } from './events.worker';
import type { HousekeepingWorkerDeps } from './housekeeping.worker';
import { credentialSchedules } from '../src/credentials/service';
import type { RetentionWorkerDeps } from './retention.worker';
import type { ScheduleReconcilerDeps } from './schedules';
import type { SyncWorkerDeps } from './sync.worker';

/** The sync worker's dependencies: the worker Redis client (waits across outages) and the sync service. */
export function syncWorkerDeps(ctx: Context): SyncWorkerDeps {
  return {
    redis: ctx.redis,
    prefix: ctx.config.HRX_REDIS_PREFIX,
    sync: ctx.services.sync,
    log: ctx.log,
    health: async (orgId) => (await ctx.syncHealth.read(orgId))?.state ?? null,
  };
}

/** The events worker's dependencies (deliveries; docs/events.md "Delivery"). */
export function eventsWorkerDeps(ctx: Context): EventsWorkerDeps {
  const c = ctx.config;
  return {
    redis: ctx.redis,
    prefix: c.HRX_REDIS_PREFIX,
    deliverer: ctx.deliverer,
    scheduleMs: c.HRX_EVENTS_RETRY_SCHEDULE_MS,
    concurrency: c.HRX_EVENTS_CONCURRENCY,
    log: ctx.log,
  };
}

/**
 * Installs every job scheduler of the housekeeping queue (the one list of them: a feature with
 * periodic work adds its schedules here and its job to jobs/housekeeping.worker.ts, unless it
 * keeps a queue of its own like retention's purge), and removes those an older hrx kept on the
 * events queue.
 */
export function installHousekeeping(ctx: Context): () => Promise<void> {
  const c = ctx.config;
  return async () => {
    await ctx.housekeepingQueue.install([
      ...eventsSchedules({ consentScanMs: c.HRX_EVENTS_CONSENT_SCAN_MS, relayMs: c.HRX_EVENTS_RELAY_MS }),
      ...credentialSchedules(),
    ]);
    await ctx.eventsQueue.removeLegacySchedulers();
  };
}

/** The housekeeping worker's dependencies (consent-expiry scan, outbox relay, credential sweep). */
export function housekeepingWorkerDeps(ctx: Context): HousekeepingWorkerDeps {
  return {
    redis: ctx.redis,
    prefix: ctx.config.HRX_REDIS_PREFIX,
    events: ctx.services.events,
    credentials: ctx.services.credentials,
    install: installHousekeeping(ctx),
    log: ctx.log,
  };
}

/** The retention worker's dependencies (docs/erasure-and-retention.md "Retention": the purge and its job scheduler). */
export function retentionWorkerDeps(ctx: Context): RetentionWorkerDeps {
  return {
    redis: ctx.redis,
    prefix: ctx.config.HRX_REDIS_PREFIX,
    retention: ctx.services.retention,
    queue: ctx.retentionQueue,
    purgeMs: ctx.config.HRX_RETENTION_PURGE_MS,
    log: ctx.log,
  };
}

/** The job-scheduler reconciler's dependencies (jobs/schedules.ts). */
export function reconcilerDeps(ctx: Context): ScheduleReconcilerDeps {
  return {
    schedules: ctx.syncSchedules,
    redis: ctx.requestRedis,
    syncQueue: ctx.syncQueue,
    installHousekeeping: installHousekeeping(ctx),
    retentionQueue: ctx.retentionQueue,
    retentionPurgeMs: ctx.config.HRX_RETENTION_PURGE_MS,
    log: ctx.log,
  };
}
