/**
 * The retention purge (docs/erasure-and-retention.md "Retention"; DPDP Rules 2025: logs of processing kept at
 * least a year, personal data no longer than its purpose needs). A job scheduler runs it
 * (src/retention/queue.ts, jobs/retention.worker.ts); each run deletes what is due:
 * - audit entries (reads, webhook writes, erasures; Connect proof attempts) older than
 *   `auditDays` (`HRX_AUDIT_RETENTION_DAYS`, default 400);
 * - consent records that ended more than `auditDays` ago, once the employee is no longer held;
 * - employees a full sync no longer saw, `removedDays` (`HRX_REMOVED_RETENTION_DAYS`, default 30)
 *   after their removal: their row, with every value it holds, and the outbox events naming them;
 *   the credentials issued about them revoked, their employee id blanked;
 * - outbox events (with their deliveries and attempts) whose deliveries all ended, `eventDays`
 *   (`HRX_EVENT_RETENTION_DAYS`, default 30) after they were written; `employee.removed` events
 *   (an erasure's notice among them) as soon as their deliveries ended;
 * - idempotency keys and their answers 24 h after their first request (docs/api.md "Idempotency").
 * Source: docs/erasure-and-retention.md "Retention".
 * Tombstones of erased employees are not purged: they hold no personal data (a keyed hash) and
 * must outlive the HRMS's copy, or the next sync would bring the employee back.
 */
import { IDEMPOTENCY_HOURS } from '../idempotency/store';
import type { Logger } from '../logger';
import type { RetentionStore } from './store';

/** What one purge deleted, by kind. */
export interface PurgeCounts {
  auditEntries: number;
  proofAuditEntries: number;
  consents: number;
  removedEmployees: number;
  events: number;
  idempotencyKeys: number;
}

export interface RetentionServiceDeps {
  store: RetentionStore;
  auditDays: number;
  removedDays: number;
  /** Days an ended event is kept (`HRX_EVENT_RETENTION_DAYS`). */
  eventDays: number;
  log: Logger;
  /** Rows per delete statement (default 5,000). */
  batch?: number;
}

export type RetentionService = ReturnType<typeof createRetentionService>;

/** Builds the retention service. */
export function createRetentionService(deps: RetentionServiceDeps) {
  const batch = deps.batch ?? 5000;
  /** Runs `step` until a batch comes back short; returns the total. */
  const drain = async (step: (days: number, batch: number) => Promise<number>, days: number): Promise<number> => {
    let total = 0;
    for (;;) {
      const n = await step(days, batch);
      total += n;
      if (n < batch) return total;
    }
  };
  return {
    /**
     * One purge: every kind drained in turn (removed employees first, so their ended consents
     * are due in the same run). Logs the counts (no ids, no values). Throws the database's error;
     * what was deleted before it stays deleted, and the next run goes on from there.
     */
    async purge(): Promise<PurgeCounts> {
      const removedEmployees = await drain(deps.store.purgeRemovedEmployees, deps.removedDays);
      const auditEntries = await drain(deps.store.purgeAuditEntries, deps.auditDays);
      const proofAuditEntries = await drain(deps.store.purgeProofAuditEntries, deps.auditDays);
      const consents = await drain(deps.store.purgeConsents, deps.auditDays);
      const events = await drain(deps.store.purgeEvents, deps.eventDays);
      const idempotencyKeys = await drain(deps.store.purgeIdempotencyKeys, IDEMPOTENCY_HOURS);
      const counts = { auditEntries, proofAuditEntries, consents, removedEmployees, events, idempotencyKeys };
      deps.log.info({ ...counts, auditDays: deps.auditDays, removedDays: deps.removedDays, eventDays: deps.eventDays }, 'retention purge done');
      return counts;
    },
  };
}
