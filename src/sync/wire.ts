/** Wiring of the sync feature (see `context.ts`). */
import type { ErasureStore } from '../employees/erasure-store';
import type { EmployeeStore } from '../employees/store';
import type { PayMonthStore } from '../employees/pay-months';
import type { EventService } from '../events/service';
import type { Infra } from '../infra';
import type { WorkCounters } from '../ops/counters';
import type { OrgStore } from '../orgs/store';
import type { HrmsConfigs } from '../setup/wire';
import { syncBounds } from '../config';
import { createHealthRecorder } from './health';
import { createSyncLock } from './lock';
import { createSyncQueue } from './queue';
import { createSyncRunsService } from './runs-service';
import { createScheduleStore } from './schedules';
import { createSyncService } from './service';
import { createSyncRunStore } from './store';

/**
 * Builds the per-org sync lock and the sync queue (both on the request-path Redis), the run store
 * (`store`, request ORM) and the sync service, which in a worker runs over the syncs' own ORM,
 * pool and transactor (no 2 s limits). Takes the employee store of the syncs' pool, the HRMS
 * configurations (from setup's `wireHrmsConfigs`), the schedule store (`schedules`: which orgs get a
 * sync scheduler, schedules.ts), the erasure store (pages skip erased employees), the event service
 * (`sync.*`, `employee.removed`), the work counters and the org store (the operator's view of
 * runs, `runs`, names orgs by uuid); registers the queue's close. `health` reads the orgs' health
 * (sync/health.ts) on the request ORM.
 */
export function wireSync(
  infra: Infra,
  deps: {
    employees: EmployeeStore;
    erasures: ErasureStore;
    /** Pay history on the syncs' pool (employees/pay-months.ts). */
    payMonths?: Pick<PayMonthStore, 'record'>;
    hrmsConfigs: HrmsConfigs;
    events: EventService;
    /** The workers' counters of `/metrics` (src/ops/counters.ts): each run's end is counted. */
    counters: Pick<WorkCounters, 'syncRun'>;
    orgs: Pick<OrgStore, 'findByUuid'>;
  },
) {
  const { config, log } = infra;
  const lock = createSyncLock(infra.requestRedis, infra.prefix, config.HRX_SYNC_LOCK_TTL_SEC * 1000);
  const queue = infra.adoptQueue('sync queue', createSyncQueue(infra.requestRedis, infra.prefix));
  const store = createSyncRunStore(infra.db.orm);
  const schedules = createScheduleStore(infra.db.orm);
  const service = createSyncService({
    transactor: infra.syncTransactor,
    hrmsStallMs: config.HRX_SYNC_HRMS_STALL_SEC * 1000,
    bounds: syncBounds(config),
    lock,
    runs: infra.syncDb === infra.db ? store : createSyncRunStore(infra.syncDb.orm),
    employees: deps.employees,
    erasures: deps.erasures,
    ...(deps.payMonths ? { payMonths: deps.payMonths } : {}),
    hrmsConfigs: deps.hrmsConfigs.syncStore,
    connectorFor: deps.hrmsConfigs.connectorFor,
    log,
    connectorOptions: { retries: config.HRX_HRMS_RETRIES, minRetryDelayMs: config.HRX_HRMS_RETRY_MIN_MS, pageSize: config.HRX_SYNC_BATCH_SIZE },
    scheduleOf: (orgId) => schedules.expectedOf(orgId),
    setSchedule: (orgId, every) => queue.setSchedule(orgId, every),
    events: deps.events,
    onRunEnd: (r) => deps.counters.syncRun(r),
    // One budget per HRMS tenant, shared by every worker through Redis, and by live reads (setup/wire.ts).
    budgetFor: deps.hrmsConfigs.budgets.budgetFor,
    // On the syncs' ORM: written in the run's own transactions.
    health: createHealthRecorder(infra.syncDb.orm),
  });
  const runs = createSyncRunsService({
    runs: store,
    queue,
    findOrg: (uuid) => deps.orgs.findByUuid(uuid),
    hrmsConfig: (orgId) => deps.hrmsConfigs.store.load(orgId),
  });
  return { service, store, lock, queue, runs, schedules, health: createHealthRecorder(infra.db.orm) };
}
