/**
 * The employee update webhook (docs/api.md "Employee update webhook"): a client org
 * pushes one employee record or up to 1,000, each a partial record keyed by `employeeId`. Unknown
 * employees are created with the record's defaults (docs/data-points.md); known ones are merged (present
 * fields overwrite, nested objects merge field by field, arrays are replaced; see `mergeRecord`).
 * Only employees whose data points actually change are written, so a repeated body writes nothing.
 */
import type { AuditEntryInput } from '../db/sql';
import type { Transactor, Tx } from '../db/tx';
import type { Written } from '../events/types';
import { changedDataPoints } from '../domain/data-points';
import { mergeRecord, normalizeRecord, type DeepPartial, type EmployeeRecord } from '../domain/record';
import type { ErasureStore } from './erasure-store';
import type { PayMonthStore, PayMonthWrite, RecordedPayMonth } from './pay-months';
import { newEmployeeRowId } from './store';
import { WEBHOOK_RETRY_SQLSTATES, type EmployeeWriteStore } from './write-store';

/**
 * One record of the body: a partial record with its `employeeId` (already validated), and the
 * pay months of its `salaryHistory` (docs/pay-history.md "The update webhook").
 */
export type EmployeeUpdate = DeepPartial<EmployeeRecord> & { employeeId: string; salaryHistory?: PayMonthWrite['month'][] | null | undefined };

/** The answer for one record of the body (docs/api.md "Employee update webhook"), in request order. */
export interface EmployeeUpdateResult {
  employeeId: string;
  /** The store id of the employee (new for a created one, kept for a known one). */
  id: string;
  /** Data point names (docs/data-points.md) whose stored value this record changed; `[]` when none. */
  updated_fields: string[];
}

export interface EmployeeUpdateServiceDeps {
  transactor: Transactor;
  writes: EmployeeWriteStore;
  /** Tombstones of erased employees (docs/erasure-and-retention.md "Erasing an employee"): posting an erased employee again removes its tombstone. */
  erasures: Pick<ErasureStore, 'clearTombstones'>;
  /** Pay history (docs/pay-history.md): the months the body's `monthly` and `salaryHistory` carry. */
  payMonths: Pick<PayMonthStore, 'record'>;
  /**
   * The outbox (docs/events.md "Outbox"): `employeesUpdated` writes the `employee.updated` events (ids and
   * data point names only) in the webhook's transaction; `dispatch` queues them after commit.
   */
  events: {
    employeesUpdated(clientOrgId: number, changes: { employeeId: string; id: string; updatedFields: string[] }[], tx: Tx): Promise<Written>;
    /** `employee.pay_recorded` for the recorded months, in the webhook's transaction. */
    payRecorded(clientOrgId: number, recorded: RecordedPayMonth[], tx: Tx): Promise<Written>;
    dispatch(written: Written | undefined): Promise<void>;
  };
}

/**
 * The pay months a body records (docs/pay-history.md "Where months come from"), in body order:
 * each record's `salaryHistory`, then the month its merged `monthly` carries when the record
 * touched `monthly` and the result has a `month` and a `year`.
 */
function payMonthsOf(updates: readonly EmployeeUpdate[], state: Map<string, { record: EmployeeRecord }>): PayMonthWrite[] {
  const out: PayMonthWrite[] = [];
  for (const u of updates) {
    const rec = state.get(u.employeeId)!.record;
    for (const m of u.salaryHistory ?? []) out.push({ employeeRowId: rec.id, employeeId: rec.employeeId, month: m });
  }
  // The latest `monthly` of each employee: what its record now holds.
  const touched = new Set(updates.filter((u) => u.salaryDetails?.monthly).map((u) => u.employeeId));
  for (const employeeId of touched) {
    const rec = state.get(employeeId)!.record;
    const { month, year } = rec.salaryDetails.monthly;
    if (month !== null && year !== null) out.push({ employeeRowId: rec.id, employeeId: rec.employeeId, month: { ...rec.salaryDetails.monthly, month, year } });
  }
  return out;
}

function joinWritten(a: Written | undefined, b: Written): Written {
  return a ? { eventIds: [...a.eventIds, ...b.eventIds], deliveryIds: [...a.deliveryIds, ...b.deliveryIds] } : b;
}

/** The audit action of a webhook write (actor: the client org). */
export const UPDATE_AUDIT_ACTION = 'employee.update';

export type EmployeeUpdateService = ReturnType<typeof createEmployeeUpdateService>;

/** Builds the update webhook's service. */
export function createEmployeeUpdateService(deps: EmployeeUpdateServiceDeps) {
  return {
    /**
     * Applies `updates` (1..1,000, validated) to the employees of client org `clientOrgId`, all or
     * nothing, in one transaction with the rows locked, so concurrent updates and a running sync
     * never lose each other's writes. A record naming the same employee as an earlier one merges
     * onto the earlier one's result. An employee removed by a full sync is revived (served again,
     * same `id`); an erased one is created anew (new `id`) and its tombstone removed, so syncs
     * carry it again (docs/privacy.md). Every employee written gets one audit entry `employee.update` with the changed
     * data points, and the changed ones an `employee.updated` event, all in the same transaction
     * (docs/events.md "Outbox": a committed update always has its event, a rolled-back one never does).
     * The events' deliveries are queued after commit without holding up the answer (the outbox
     * relay queues what that misses). Returns one result per update, in order. Throws the
     * database error (rolled back).
     */
    async apply(input: { clientOrgId: number; requestId: string; updates: readonly EmployeeUpdate[] }): Promise<EmployeeUpdateResult[]> {
      const { clientOrgId, requestId, updates } = input;
      const employeeIds = [...new Set(updates.map((u) => u.employeeId))];
      let written: Written | undefined;
      const results = await deps.transactor.transaction(
        async (tx) => {
          const locked = await deps.writes.lock(tx, clientOrgId, employeeIds);
          const state = new Map<string, { original: EmployeeRecord; record: EmployeeRecord; created: boolean; revived: boolean }>();
          for (const employeeId of employeeIds) {
            const row = locked.get(employeeId);
            const original = row?.record ?? normalizeRecord({ employeeId }, newEmployeeRowId());
            state.set(employeeId, { original, record: original, created: !row, revived: row?.removed ?? false });
          }
          const results: EmployeeUpdateResult[] = updates.map((u) => {
            const s = state.get(u.employeeId)!;
            const next = mergeRecord(s.record, u);
            const updated = changedDataPoints(s.record, next);
            s.record = next;
            return { employeeId: u.employeeId, id: next.id, updated_fields: updated };
          });
          // Net changes per employee (a later record of the body may undo an earlier one's).
          const rows = [...state.values()]
            .map((s) => ({ ...s, changed: changedDataPoints(s.original, s.record) }))
            .filter((s) => s.created || s.revived || s.changed.length > 0);
          const created = rows.filter((s) => s.created).map((s) => s.record);
          await deps.writes.insert(clientOrgId, created, tx);
          // Only a created employee can have a tombstone: erasure deletes the row it leaves one for.
          await deps.erasures.clearTombstones(
            clientOrgId,
            created.map((r) => r.employeeId),
            tx,
          );
          await deps.writes.update(
            clientOrgId,
            rows.filter((s) => !s.created).map((s) => s.record),
            tx,
          );
          await deps.writes.audit(
            rows.map((s): AuditEntryInput => ({
              requestId,
              actorOrgId: clientOrgId,
              action: UPDATE_AUDIT_ACTION,
              clientOrgId,
              connectionId: null,
              employeeId: s.record.employeeId,
              dataPoints: s.changed,
            })),
            tx,
          );
          const changes = rows.filter((s) => s.changed.length > 0).map((s) => ({ employeeId: s.record.employeeId, id: s.record.id, updatedFields: s.changed }));
          written = changes.length > 0 ? await deps.events.employeesUpdated(clientOrgId, changes, tx) : undefined;
          // Pay months after the rows they belong to exist (a created employee's included).
          const recorded = await deps.payMonths.record(clientOrgId, payMonthsOf(updates, state), tx);
          if (recorded.length > 0) written = joinWritten(written, await deps.events.payRecorded(clientOrgId, recorded, tx));
          return results;
        },
        { retryOn: WEBHOOK_RETRY_SQLSTATES },
      );
      // Committed: queue the deliveries without waiting (dispatch never throws; the relay
      // queues any it could not).
      void deps.events.dispatch(written);
      return results;
    },
  };
}
