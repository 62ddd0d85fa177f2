/**
 * Erasure of an employee by its employer (docs/erasure-and-retention.md "Erasing an employee"; DPDP Act 2023 §8(7), §12):
 * the employee's row, which holds every stored copy of its values (the record envelope and the
 * masked envelope the plain read serves), is deleted; a tombstone (a keyed hash of
 * the `employeeId`, erasure-store.ts) makes later syncs skip the employee until the employer
 * posts it again through the update webhook; the vendors with an approved connection hear
 * `employee.removed` (reason `erased`); an audit entry `employee.erase` records who erased whom
 * and when. Consents and earlier audit entries are kept as the proof of what was done with the
 * data (purged later by retention, src/retention/): audit entries hold ids, times and data point
 * names, never values; a consent's statement, free text the vendor wrote that may name the
 * employee, is replaced by its keyed digest (src/crypto/tombstone.ts `statementDigest`). The
 * credentials issued about the employee are revoked and lose its id (erasure-store.ts `forgetCredentials`). The event
 * outbox's earlier events naming the employee are deleted, or rewritten without it (events/outbox-retention.ts
 * `scrubEmployeeEvents`); the `employee.removed` of the erasure stays until its deliveries end,
 * then retention purges it (docs/erasure-and-retention.md "Every copy"). All of it commits in one transaction, under the org's erasure
 * lock, so a sync running meanwhile never brings the row back (see erasure-store.ts).
 */
import type { AuditEntryInput } from '../db/sql';
import type { Transactor, Tx } from '../db/tx';
import { AppError } from '../errors';
import { employeeErasedEvent } from '../events/catalog';
import type { EventInput, Written } from '../events/types';
import type { ErasureStore } from './erasure-store';

/** The audit action of an erasure (actor: the client org; no data points). */
export const ERASE_AUDIT_ACTION = 'employee.erase';

export interface EraseServiceDeps {
  transactor: Transactor;
  erasures: ErasureStore;
  /** Writes audit entries in the erasure's transaction (employees/write-store.ts `audit`). */
  audit(entries: readonly AuditEntryInput[], tx: Tx): Promise<void>;
  /** The outbox (docs/events.md "Outbox"): `employee.removed` is written in the erasure's transaction, queued after commit. */
  events: {
    writeIn(tx: Tx, input: EventInput | EventInput[]): Promise<Written>;
    dispatch(written: Written | undefined): Promise<void>;
  };
}

/** What an erasure answers (docs/erasure-and-retention.md "Erasing an employee"): the id and when it was erased. */
export interface EraseResult {
  employee_id: string;
  erased_at: string;
}

export type EraseService = ReturnType<typeof createEraseService>;

/** Builds the erasure service. */
export function createEraseService(deps: EraseServiceDeps) {
  return {
    /**
     * Erases `employeeId` (trimmed, validated) of client org `clientOrgId` as described above.
     * An employee already erased (tombstone, no row) answers its first erasure again, writing
     * nothing: a retried request gets the same answer. Throws `EMPLOYEE_NOT_FOUND` when the org
     * has neither the employee nor its tombstone (another employer's employee is not found
     * either: the lookup is confined to the caller's org), and the database's error (rolled back).
     */
    async erase(input: { clientOrgId: number; employeeId: string; requestId: string }): Promise<EraseResult> {
      const { clientOrgId, employeeId, requestId } = input;
      let written: Written | undefined;
      const erasedAt = await deps.transactor.transaction(async (tx) => {
        written = undefined;
        // First, before any row lock: a sync's page write in progress finishes, a later one waits.
        await deps.erasures.lockForErasure(clientOrgId, tx);
        const row = await deps.erasures.deleteEmployee(clientOrgId, employeeId, tx);
        if (!row) {
          const before = await deps.erasures.erasedAt(clientOrgId, employeeId, tx);
          if (!before) throw new AppError('EMPLOYEE_NOT_FOUND');
          return before;
        }
        const at = await deps.erasures.addTombstone(clientOrgId, employeeId, tx);
        await deps.erasures.digestConsentStatements(clientOrgId, employeeId, tx);
        // The credentials about the employee: revoked now (not at the next sweep), their rows keep no id.
        await deps.erasures.forgetCredentials(clientOrgId, employeeId, tx);
        // Every copy: the outbox events naming the employee go (or lose it), before its notice is written.
        await deps.erasures.scrubEvents(clientOrgId, employeeId, tx);
        await deps.audit(
          [
            {
              requestId,
              actorOrgId: clientOrgId,
              action: ERASE_AUDIT_ACTION,
              clientOrgId,
              connectionId: null,
              employeeId,
              dataPoints: [],
            },
          ],
          tx,
        );
        written = await deps.events.writeIn(tx, employeeErasedEvent(clientOrgId, row, at));
        return at;
      });
      // Committed: queue the deliveries without waiting (the outbox relay queues what this misses).
      void deps.events.dispatch(written);
      return { employee_id: employeeId, erased_at: erasedAt.toISOString() };
    },
  };
}
