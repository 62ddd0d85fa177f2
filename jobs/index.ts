/**
 * The composition root of the job side: what a worker process (`hrx worker`, `hrx start`,
 * `hrx demo`) runs over an open context. `bin/hrx.js` hands `startJobs` to the CLI, so `src/`
 * never imports `jobs/` (npm run lint:deps). What each worker takes from the context is in
 * `jobs/deps.ts` (the test harness starts the workers from there too).
 */
import type { RunningJobs } from '../src/cli/runtime';
import type { Context } from '../src/context';
import { eventsWorkerDeps, housekeepingWorkerDeps, reconcilerDeps, retentionWorkerDeps, syncWorkerDeps } from './deps';
import { startEventsWorker } from './events.worker';
import { startHousekeepingWorker } from './housekeeping.worker';
import { startRetentionWorker } from './retention.worker';
import { startScheduleReconciler } from './schedules';
import { startSyncWorker } from './sync.worker';

/**
 * Starts the sync worker, the events worker, the housekeeping worker and the retention worker
 * (both install their job schedulers; throw when Redis refuses them) and the job-scheduler reconciler
 * (jobs/schedules.ts) over `ctx`.
 */
export async function startJobs(ctx: Context): Promise<RunningJobs> {
  const { log } = ctx;
  const worker = startSyncWorker(syncWorkerDeps(ctx));
  log.info('sync worker started');
  const eventsWorker = startEventsWorker(eventsWorkerDeps(ctx));
  log.info('events worker started');
  const housekeepingWorker = await startHousekeepingWorker(housekeepingWorkerDeps(ctx));
  log.info('housekeeping worker started');
  const retentionWorker = await startRetentionWorker(retentionWorkerDeps(ctx));
  log.info('retention worker started');
  const reconciler = startScheduleReconciler(reconcilerDeps(ctx));
  return {
    stopScheduling: () => reconciler.stop(),
    close: async () => {
      await Promise.all([worker.close(), eventsWorker.close(), housekeepingWorker.close(), retentionWorker.close()]);
    },
  };
}
