/**
 * What the workers need, taken from an open context: the one place for it, used by `startJobs`
 * (jobs/index.ts: `hrx worker`, `hrx start`, `hrx demo`) and the test harness alike, so both run
 * the workers wired the same way.
 */
import type { Context } from '../src/context';
import type { EventsWorkerDeps } from './events.worker';
import type { ScheduleReconcilerDeps } from './schedules';
import type { SyncWorkerDeps } from './sync.worker';

/** The sync worker's dependencies: the worker Redis client (waits across outages) and the sync service. */
export function syncWorkerDeps(ctx: Context): SyncWorkerDeps {
  return { redis: ctx.redis, prefix: ctx.config.HRX_REDIS_PREFIX, sync: ctx.services.sync, log: ctx.log };
}

/** The events worker's dependencies (delivery, consent scan, outbox relay; decisions §10). */
export function eventsWorkerDeps(ctx: Context): EventsWorkerDeps {
  const c = ctx.config;
  return {
    redis: ctx.redis, prefix: c.HRX_REDIS_PREFIX, events: ctx.services.events, deliverer: ctx.deliverer, queue: ctx.eventsQueue,
    scheduleMs: c.HRX_EVENTS_RETRY_SCHEDULE_MS, consentScanMs: c.HRX_EVENTS_CONSENT_SCAN_MS, relayMs: c.HRX_EVENTS_RELAY_MS,
    concurrency: c.HRX_EVENTS_CONCURRENCY, log: ctx.log,
  };
}

/** The job-scheduler reconciler's dependencies (jobs/schedules.ts). */
export function reconcilerDeps(ctx: Context): ScheduleReconcilerDeps {
  const c = ctx.config;
  return {
    orm: ctx.db.orm, redis: ctx.requestRedis, syncQueue: ctx.syncQueue, eventsQueue: ctx.eventsQueue,
    refreshSchedule: (orgId) => ctx.services.sync.refreshSchedule(orgId),
    consentScanMs: c.HRX_EVENTS_CONSENT_SCAN_MS, relayMs: c.HRX_EVENTS_RELAY_MS, log: ctx.log,
  };
}
