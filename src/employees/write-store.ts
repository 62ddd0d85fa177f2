/**
 * Employee writes of the update webhook (decisions §6): one PostgreSQL transaction per request on
 * the `pg` pool, in which the request's employee rows are locked (`select … for update`), merged
 * by the service, and written back, with the audit entries of the writes in the same transaction.
 * Each step is one statement for the whole batch, never one round trip per record.
 *
 * Rows are locked in `employee_id` order (and the sync upserts its pages in the same order), so
 * two writers of overlapping batches queue on each other instead of deadlocking. A deadlock,
 * serialization failure or a concurrent create of the same employee (unique violation) rolls the
 * transaction back and runs it again, where the lock then finds the committed row.
 */
import type pg from 'pg';
import { insertAuditEntries, type AuditEntryInput } from '../audit/writer';
import type { FieldCipher } from '../crypto/field-cipher';
import { decodeEmployee, encodeEmployee } from './codec';
import { normalizeRecord, type EmployeeRecord } from './record';
import { byEmployeeId } from './store';

/** An employee row as the webhook's transaction holds it (locked until commit). */
export interface LockedEmployee {
  /** The full record (decrypted), normalized to the current shape. */
  record: EmployeeRecord;
  /** Removed by a full sync (`removed_at` set): not served until written again. */
  removed: boolean;
}

/** What one transaction may do; valid only inside `EmployeeWriteStore.transaction`. */
export interface EmployeeWriteTx {
  /** Locks the rows of `employeeIds` of `orgId` (removed ones included); keyed by employeeId. */
  lock(orgId: number, employeeIds: readonly string[]): Promise<Map<string, LockedEmployee>>;
  /** Inserts new employees (served at once). Throws unique violation 23505 if one exists. */
  insert(orgId: number, records: readonly EmployeeRecord[]): Promise<void>;
  /**
   * Rewrites the three stored parts (plain record, sensitive envelope, masked envelope) of
   * existing employees, clears `removed_at` and sets `updated_at`; `last_sync_run_id` is kept.
   */
  update(orgId: number, records: readonly EmployeeRecord[]): Promise<void>;
  /** Writes audit entries, committed or rolled back with the writes. */
  audit(entries: readonly AuditEntryInput[]): Promise<void>;
}

export interface EmployeeWriteStore {
  /**
   * Runs `work` in one transaction and commits; rolls back and rethrows on error. Retried (up to
   * 5 runs) on deadlock, serialization failure and unique violation, so `work` must do nothing
   * but database work through `tx` (it may run more than once).
   */
  transaction<T>(work: (tx: EmployeeWriteTx) => Promise<T>): Promise<T>;
}

const RETRYABLE = new Set(['40P01', '40001', '23505']);
const MAX_RUNS = 5;

function rowsJson(orgId: number, records: readonly EmployeeRecord[], cipher: FieldCipher): string {
  return JSON.stringify([...records].sort((a, b) => byEmployeeId(a.employeeId, b.employeeId)).map((r) => {
    const stored = encodeEmployee(r, orgId, cipher);
    return { id: r.id, employee_id: r.employeeId, record: stored.record, sensitive_enc: stored.sensitiveEnc, masked_enc: stored.maskedEnc };
  }));
}

function txOver(client: pg.PoolClient, cipher: FieldCipher): EmployeeWriteTx {
  return {
    async lock(orgId, employeeIds) {
      const res = await client.query(
        `select id, employee_id, record, sensitive_enc, removed_at is not null as removed from employees
          where org_id = $1 and employee_id = any($2::text[]) order by employee_id collate "C" for update`,
        [orgId, [...employeeIds]],
      );
      const out = new Map<string, LockedEmployee>();
      for (const r of res.rows as { id: string; employee_id: string; record: Record<string, unknown>; sensitive_enc: string; removed: boolean }[]) {
        const decoded = decodeEmployee({ id: r.id, employeeId: r.employee_id, record: r.record, sensitiveEnc: r.sensitive_enc }, orgId, cipher);
        // Normalized so a row written by an older shape merges onto every field of today's record.
        out.set(r.employee_id, { record: normalizeRecord(decoded, r.id), removed: r.removed });
      }
      return out;
    },
    async insert(orgId, records) {
      if (records.length === 0) return;
      await client.query(
        `insert into employees (id, org_id, employee_id, record, sensitive_enc, masked_enc, last_sync_run_id, removed_at, updated_at)
         select r.id, $1, r.employee_id, r.record, r.sensitive_enc, r.masked_enc, null, null, now()
           from jsonb_to_recordset($2::jsonb) as r(id uuid, employee_id text, record jsonb, sensitive_enc text, masked_enc text)`,
        [orgId, rowsJson(orgId, records, cipher)],
      );
    },
    async update(orgId, records) {
      if (records.length === 0) return;
      await client.query(
        `update employees e set record = r.record, sensitive_enc = r.sensitive_enc, masked_enc = r.masked_enc,
                removed_at = null, updated_at = now(), write_seq = nextval('employee_write_seq')
           from jsonb_to_recordset($2::jsonb) as r(id uuid, employee_id text, record jsonb, sensitive_enc text, masked_enc text)
          where e.org_id = $1 and e.employee_id = r.employee_id and e.id = r.id`,
        [orgId, rowsJson(orgId, records, cipher)],
      );
    },
    audit: (entries) => insertAuditEntries(client, entries),
  };
}

/** Builds the webhook's write store over `pool` (same database and schema as the read path). */
export function createEmployeeWriteStore(pool: pg.Pool, cipher: FieldCipher): EmployeeWriteStore {
  return {
    async transaction(work) {
      for (let run = 1; ; run++) {
        const client = await pool.connect();
        let broken = false;
        try {
          await client.query('begin');
          const result = await work(txOver(client, cipher));
          await client.query('commit');
          return result;
        } catch (err) {
          await client.query('rollback').catch(() => { broken = true; });
          const code = (err as { code?: unknown }).code;
          if (run >= MAX_RUNS || typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
        } finally {
          client.release(broken);
        }
      }
    },
  };
}
