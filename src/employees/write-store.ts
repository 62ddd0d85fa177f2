/**
 * Employee writes of the update webhook (docs/api.md "Employee update webhook"), in the caller's transaction (`Tx`, see
 * db/tx.ts): the request's employee rows are locked (`select … for update`), merged by the
 * service, and written back, with the audit entries and the `employee.updated` events of the
 * writes in the same transaction (docs/events.md). Each step is one statement for the whole
 * batch, never one round trip per record; statements go to the transaction's `pg` connection
 * (`pgClientOf`), not through knex.
 *
 * Rows are locked in `employee_id` order (and the sync upserts its pages in the same order), so
 * two writers of overlapping batches queue on each other instead of deadlocking. A deadlock,
 * serialization failure or a concurrent create of the same employee (unique violation) fails the
 * transaction; the service runs it again (`WEBHOOK_RETRY_SQLSTATES`), where the lock then finds
 * the committed row.
 */
import type pg from 'pg';
import { insertAuditEntries, markEstablished, type AuditEntryInput } from '../db/sql';
import { pgClientOf, queryableOf, RETRYABLE_SQLSTATES, type Tx } from '../db/tx';
import type { FieldCipher } from '../crypto/field-cipher';
import { decodeEmployee, EMPLOYEE_ROW_COLUMNS, employeeRowsJson } from './codec';
import { normalizeRecord, type EmployeeRecord } from '../domain/record';

/** An employee row as the webhook's transaction holds it (locked until commit). */
export interface LockedEmployee {
  /** The full record (decrypted), normalized to the current shape. */
  record: EmployeeRecord;
  /** Removed by a full sync (`removed_at` set): not served until written again. */
  removed: boolean;
}

/** SQLSTATEs on which the webhook's transaction runs again: deadlock, serialization, unique violation. */
export const WEBHOOK_RETRY_SQLSTATES: readonly string[] = [...RETRYABLE_SQLSTATES, '23505'];

export interface EmployeeWriteStore {
  /** Locks the rows of `employeeIds` of `orgId` (removed ones included) until `tx` ends; keyed by employeeId. */
  lock(tx: Tx, orgId: number, employeeIds: readonly string[]): Promise<Map<string, LockedEmployee>>;
  /** Inserts new employees (served at once). Throws unique violation 23505 if one exists. */
  insert(orgId: number, records: readonly EmployeeRecord[], tx?: Tx): Promise<void>;
  /**
   * Rewrites both envelopes (record and masked form, employees/codec.ts) of existing employees, clears `removed_at` and sets `updated_at`; `last_sync_run_id` is kept.
   */
  update(orgId: number, records: readonly EmployeeRecord[], tx?: Tx): Promise<void>;
  /** Writes audit entries (in `tx`: committed or rolled back with the writes). */
  audit(entries: readonly AuditEntryInput[], tx?: Tx): Promise<void>;
}

/**
 * Locks some employee rows of an org (removed ones included) until the transaction ends: `$1` the
 * org id, `$2` the employee ids (text[]); rows `{ id, employee_id, record_enc, removed }` in
 * `employee_id` order (`collate "C"`, the order the sync writes in, so the two never deadlock).
 * A join over the ids, one index probe each, rather than `employee_id = any(…)`, which PostgreSQL
 * plans as a read of the whole org while it has no statistics for it (see the employee store's
 * `EMPLOYEE_IDS_SQL`); not that constant's lateral form, so that one sort orders the locks.
 */
export const LOCK_EMPLOYEES_SQL = `select e.id, e.employee_id, e.record_enc, e.removed_at is not null as removed
  from (select distinct k from unnest($2::text[]) as k) as k(employee_id)
  join employees e on e.org_id = $1 and e.employee_id = k.employee_id
  order by e.employee_id collate "C" for update of e`;

/** Builds the webhook's write store; `pool` serves calls made without a transaction. */
export function createEmployeeWriteStore(pool: pg.Pool, cipher: FieldCipher): EmployeeWriteStore {
  return {
    async lock(tx, orgId, employeeIds) {
      const client = await pgClientOf(tx);
      const res = await client.query(LOCK_EMPLOYEES_SQL, [orgId, [...employeeIds]]);
      const out = new Map<string, LockedEmployee>();
      for (const r of res.rows as { id: string; employee_id: string; record_enc: string; removed: boolean }[]) {
        const decoded = decodeEmployee({ id: r.id, employeeId: r.employee_id, recordEnc: r.record_enc }, orgId, cipher);
        // Normalized so a row written by an older shape merges onto every field of today's record.
        out.set(r.employee_id, { record: normalizeRecord(decoded, r.id), removed: r.removed });
      }
      return out;
    },
    async insert(orgId, records, tx) {
      if (records.length === 0) return;
      const db = await queryableOf(pool, tx);
      await db.query(
        `insert into employees (id, org_id, employee_id, record_enc, masked_enc, last_sync_run_id, removed_at, updated_at)
         select r.id, $1, r.employee_id, r.record_enc, r.masked_enc, null, null, now()
           from jsonb_to_recordset($2::jsonb) as ${EMPLOYEE_ROW_COLUMNS}`,
        [orgId, employeeRowsJson(orgId, records, cipher)],
      );
      // An org with an employee is established for good (docs/connect.md "Who may approve").
      await markEstablished(db, orgId);
    },
    async update(orgId, records, tx) {
      if (records.length === 0) return;
      await (
        await queryableOf(pool, tx)
      ).query(
        `update employees e set record_enc = r.record_enc, masked_enc = r.masked_enc,
                removed_at = null, updated_at = now(), write_seq = nextval('employee_write_seq')
           from jsonb_to_recordset($2::jsonb) as ${EMPLOYEE_ROW_COLUMNS}
          where e.org_id = $1 and e.employee_id = r.employee_id and e.id = r.id`,
        [orgId, employeeRowsJson(orgId, records, cipher)],
      );
    },
    async audit(entries, tx) {
      await insertAuditEntries(await queryableOf(pool, tx), entries);
    },
  };
}
