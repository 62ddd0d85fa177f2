/** Wiring of the employees feature (see `context.ts`). */
import { createAccessLogStore } from '../audit/access-log-store';
import { createAuditWriter } from '../audit/writer';
import { createConnectionAccessCache } from '../connections/access-cache';
import { createConnectionAccessLoader, createTerminatedCheck } from '../connections/access-store';
import type { EventService } from '../events/service';
import type { HrmsSource } from '../hrms/live-source';
import { tombstoneKeys } from '../crypto/tombstone';
import { watchRedis, type Infra } from '../infra';
import { createAccessLogService } from './access-log-service';
import { createEraseService } from './erase-service';
import { createErasureStore } from './erasure-store';
import { createEmployeeService } from './service';
import { createEmployeeStore } from './store';
import { createEmployeeUpdateService } from './update-service';
import { createEmployeeWriteStore } from './write-store';
import { createPayMonthStore } from './pay-months';

/**
 * Builds the employee store over the request pool (`store`) and over the syncs' pool
 * (`syncStore`, the same object unless this process is a worker), the connection access cache
 * (`access`: loads through `connections/access-store.ts` over the request pool, hears changes on
 * a subscriber of its own), the read service
 * (`service`: store, access cache, audit writer, live HRMS source) and the webhook update service
 * (`updates`), the erasure store (row deletion and tombstones, keyed by
 * `derivedKeys('employee-tombstone')`; syncs use it too) and the erasure service (`erasure`).
 * Takes the live HRMS source (setup's HRMS configurations) and the event service
 * (`employee.updated`, `employee.removed`); registers the access cache's close. Also the employer's access log
 * (`accessLog`, over the audit on the request pool).
 */
export function wireEmployees(infra: Infra, deps: { hrms: HrmsSource; events: EventService }) {
  const { config, cipher, pool, log } = infra;
  const store = createEmployeeStore(pool, cipher);
  const syncStore = infra.syncPool === pool ? store : createEmployeeStore(infra.syncPool, cipher);
  // The subscriber waits and resubscribes across outages; while it is away the TTL bounds staleness.
  const subscriber = infra.redis.duplicate();
  watchRedis(subscriber, 'subscriber', log);
  const access = createConnectionAccessCache({
    load: createConnectionAccessLoader(pool),
    publisher: infra.requestRedis,
    subscriber,
    channel: `${infra.prefix}:connections-changed`,
    ttlMs: config.HRX_CONNECTION_CACHE_TTL_MS,
  });
  infra.onClose('access cache', async () => {
    await access.close();
    subscriber.disconnect();
  });
  const erasures = createErasureStore(pool, tombstoneKeys(infra.derivedKeys('employee-tombstone')), cipher);
  // The digest key is the current master key's: after a rotation, an equal month rewritten once counts as a correction.
  const payDigestKey = infra.derivedKeys('pay-month-digest')[0]!;
  const payMonths = createPayMonthStore(pool, cipher, payDigestKey);
  const syncPayMonths = infra.syncPool === pool ? payMonths : createPayMonthStore(infra.syncPool, cipher, payDigestKey);
  const service = createEmployeeService({
    employees: store,
    connectionAccess: (v, c) => access.get(v, c),
    terminated: createTerminatedCheck(pool),
    cipher,
    audit: createAuditWriter(pool, { windowMs: config.HRX_AUDIT_WINDOW_MS }),
    hrms: deps.hrms,
    erasures,
    payMonths,
  });
  const writes = createEmployeeWriteStore(pool, cipher);
  const updates = createEmployeeUpdateService({ transactor: infra.transactor, writes, erasures, payMonths, events: deps.events });
  const erasure = createEraseService({
    transactor: infra.transactor,
    erasures,
    audit: (entries, tx) => writes.audit(entries, tx),
    events: deps.events,
  });
  const accessLog = createAccessLogService({ log: createAccessLogStore(pool) });
  return { service, store, syncStore, access, updates, accessLog, erasures, erasure, payMonths, syncPayMonths };
}
