/** Wiring of the sync feature (see `context.ts`). */
import type { ConnectionStore } from '../connections/store';
import type { EmployeeStore } from '../employees/store';
import type { EventService } from '../events/service';
import type { Infra } from '../infra';
import type { HrmsConfigs } from '../setup/wire';
import { createSyncLock } from './lock';
import { createSyncQueue } from './queue';
import { createSyncService } from './service';
import { createSyncRunStore } from './store';

/**
 * Builds the per-org sync lock and the sync queue (both on the request-path Redis), the run store
 * (`store`, request ORM) and the sync service, which in a worker runs over the syncs' own ORM,
 * pool and transactor (no 2 s limits). Takes the employee store of the syncs' pool, the HRMS
 * configurations (from setup's `wireHrmsConfigs`), the connection store (approved frequencies
 * make the schedule) and the event service (`sync.*`, `employee.removed`); registers the queue's
 * close.
 */
export function wireSync(infra: Infra, deps: {
  employees: EmployeeStore;
  hrmsConfigs: HrmsConfigs;
  connections: Pick<ConnectionStore, 'approvedFrequencies'>;
  events: EventService;
}) {
  const { config, log } = infra;
  const lock = createSyncLock(infra.requestRedis, infra.prefix, config.HRX_SYNC_LOCK_TTL_SEC * 1000);
  const queue = createSyncQueue(infra.requestRedis, infra.prefix);
  // Connection errors are logged once per outage by infra's watchRedis; BullMQ would print each one.
  queue.queue.on('error', () => undefined);
  // A queue still connecting would report its late error to a listener close() removed.
  infra.onClose('sync queue', async () => {
    await queue.queue.waitUntilReady().catch(() => undefined);
    await queue.close();
  });
  const store = createSyncRunStore(infra.db.orm);
  const service = createSyncService({
    transactor: infra.syncTransactor, hrmsStallMs: config.HRX_SYNC_HRMS_STALL_SEC * 1000,
    lock,
    runs: infra.syncDb === infra.db ? store : createSyncRunStore(infra.syncDb.orm),
    employees: deps.employees,
    hrmsConfigs: deps.hrmsConfigs.syncStore,
    connectorFor: deps.hrmsConfigs.connectorFor, log,
    connectorOptions: { retries: config.HRX_HRMS_RETRIES, minRetryDelayMs: config.HRX_HRMS_RETRY_MIN_MS, pageSize: config.HRX_SYNC_BATCH_SIZE },
    approvedFrequencies: (orgId) => deps.connections.approvedFrequencies(orgId),
    setSchedule: (orgId, every) => queue.setSchedule(orgId, every),
    events: deps.events,
  });
  return { service, store, lock, queue };
}
