/**
 * The employee update webhook (interface.md "Update employee details"; decisions §6): a client org
 * pushes one employee record or up to 1,000, each a partial record keyed by `employeeId`. Unknown
 * employees are created with the record's defaults (decisions §3); known ones are merged (present
 * fields overwrite, nested objects merge field by field, arrays are replaced; see `mergeRecord`).
 * Only employees whose data points actually change are written, so a repeated body writes nothing.
 */
import type { AuditEntryInput } from '../audit/writer';
import { changedDataPoints } from './data-points';
import { mergeRecord, normalizeRecord, type DeepPartial, type EmployeeRecord } from './record';
import { newEmployeeId } from './store';
import type { EmployeeWriteStore } from './write-store';

/** One record of the body: a partial record with its `employeeId` (already validated). */
export type EmployeeUpdate = DeepPartial<EmployeeRecord> & { employeeId: string };

/** The answer for one record of the body (decisions §6), in request order. */
export interface EmployeeUpdateResult {
  employeeId: string;
  /** The store id of the employee (new for a created one, kept for a known one). */
  id: string;
  /** Data point names (decisions §3) whose stored value this record changed; `[]` when none. */
  updated_fields: string[];
}

export interface EmployeeUpdateServiceDeps {
  writes: EmployeeWriteStore;
  /**
   * Told of the employees a request changed, after it commits (the `employee.updated` event of
   * decisions §10: ids and data point names only). The update is committed by then: the
   * wiring (context.ts) logs a failure here rather than failing the answered request.
   */
  onUpdated?: (clientOrgId: number, changes: { employeeId: string; id: string; updatedFields: string[] }[]) => Promise<unknown>;
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
     * same `id`). Every employee written gets one audit entry `employee.update` with the changed
     * data points; once committed, `onUpdated` hears of the changed ones. Returns one result per
     * update, in order. Throws the database error (rolled back).
     */
    async apply(input: { clientOrgId: number; requestId: string; updates: readonly EmployeeUpdate[] }): Promise<EmployeeUpdateResult[]> {
      const { clientOrgId, requestId, updates } = input;
      const employeeIds = [...new Set(updates.map((u) => u.employeeId))];
      let changes: { employeeId: string; id: string; updatedFields: string[] }[] = [];
      const results = await deps.writes.transaction(async (tx) => {
        const locked = await tx.lock(clientOrgId, employeeIds);
        const state = new Map<string, { original: EmployeeRecord; record: EmployeeRecord; created: boolean; revived: boolean }>();
        for (const employeeId of employeeIds) {
          const row = locked.get(employeeId);
          const original = row?.record ?? normalizeRecord({ employeeId }, newEmployeeId());
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
        const written = [...state.values()]
          .map((s) => ({ ...s, changed: changedDataPoints(s.original, s.record) }))
          .filter((s) => s.created || s.revived || s.changed.length > 0);
        await tx.insert(clientOrgId, written.filter((s) => s.created).map((s) => s.record));
        await tx.update(clientOrgId, written.filter((s) => !s.created).map((s) => s.record));
        await tx.audit(written.map((s): AuditEntryInput => ({
          requestId, actorOrgId: clientOrgId, action: UPDATE_AUDIT_ACTION, clientOrgId, connectionId: null,
          employeeId: s.record.employeeId, dataPoints: s.changed,
        })));
        changes = written.filter((s) => s.changed.length > 0)
          .map((s) => ({ employeeId: s.record.employeeId, id: s.record.id, updatedFields: s.changed }));
        return results;
      });
      // After the commit: the event is about data that is now served.
      if (changes.length > 0 && deps.onUpdated) await deps.onUpdated(clientOrgId, changes);
      return results;
    },
  };
}
