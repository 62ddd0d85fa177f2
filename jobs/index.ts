/**
 * The composition root of the job side: what a worker process (`hrx worker`, `hrx start`,
 * `hrx demo`) runs over an open context. `bin/hrx.js` hands `startJobs` to the CLI, so `src/`
 * never imports `jobs/` (npm run lint:deps). What each worker takes from the context is in
 * `jobs/deps.ts` (the test harness starts the workers from there too).
 */
import type { RunningJobs } from '../src/cli/run';
import type { Context } from '../src/context';
import { eventsWorkerDeps, reconcilerDeps, syncWorkerDeps } from './deps';
import { startEventsWorker } from './events.worker';
import { startScheduleReconciler } from './schedules';
import { startSyncWorker } from './sync.worker';

/**
 * Starts the sync worker, the events worker (which installs its job schedulers; throws when Redis
 * refuses them) and the job-scheduler reconciler (jobs/schedules.ts) over `ctx`.
 */
export async function startJobs(ctx: Context): Promise<RunningJobs> {
  const { log } = ctx;
  const worker = startSyncWorker(syncWorkerDeps(ctx));
  log.info('sync worker started');
  const eventsWorker = await startEventsWorker(eventsWorkerDeps(ctx));
  log.info('events worker started');
  const reconciler = startScheduleReconciler(reconcilerDeps(ctx));
  return {
    stopScheduling: () => reconciler.stop(),
    close: async () => {
      await Promise.all([worker.close(), eventsWorker.close()]);
    },
  };
}
