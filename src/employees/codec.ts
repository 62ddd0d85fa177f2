/**
 * How an employee record is kept at rest (docs/data-points.md, docs/at-rest.md): nothing of it in clear.
 * `id` and `employeeId` (ids) live in columns; every value sits in one of two AES-256-GCM
 * envelopes (crypto/field-cipher), each bound to its row by its associated data:
 *
 * - `record_enc`: the whole record but `id` and `employeeId`, as JSON, bound to
 *   `employee-record:<orgId>:<employeeId>`. The full record of V2 reads, consent answers, the
 *   update webhook's merge.
 * - `masked_enc`: the record as the plain endpoint serves it (masked, every data point),
 *   serialized, bound to `employee-masked:<orgId>:<employeeId>`. Reads of connections that share
 *   every data point send it as it is, with no parse and no re-serialization (the hottest path of
 *   the service, see bench/).
 *
 * Distinct associated data, so the two envelopes of a row cannot be swapped, nor either be
 * copied onto another employee's row. Rows written before Migration20261123190000 kept the
 * non-sensitive fields as plain JSONB; that migration moved them into `record_enc`.
 */
import type { FieldCipher } from '../crypto/field-cipher';
import { maskRecord } from '../domain/masking';
import { emptyRecord, type EmployeeRecord } from '../domain/record';

/** The stored form of a record (both envelopes). */
export interface StoredEmployee {
  /** Envelope of the record without `id` and `employeeId`, as JSON. */
  recordEnc: string;
  /** Envelope of `JSON.stringify(maskRecord(record))`. */
  maskedEnc: string;
}

/** Associated data of the masked envelope (distinct, so the two envelopes cannot be swapped). */
export function maskedAad(orgId: number, employeeId: string): string {
  return `employee-masked:${orgId}:${employeeId}`;
}

/** Associated data binding the record envelope to its row. */
export function recordAad(orgId: number, employeeId: string): string {
  return `employee-record:${orgId}:${employeeId}`;
}

/** The record's keys in the order of `emptyRecord()` (the order responses carry). */
const RECORD_KEYS = Object.keys(emptyRecord()) as (keyof EmployeeRecord)[];

/** Encrypts a record for storage (both envelopes). */
export function encodeEmployee(rec: EmployeeRecord, orgId: number, cipher: FieldCipher): StoredEmployee {
  const { id: _id, employeeId: _employeeId, ...values } = rec;
  return {
    recordEnc: cipher.encrypt(JSON.stringify(values), recordAad(orgId, rec.employeeId)),
    maskedEnc: cipher.encrypt(JSON.stringify(maskRecord(rec)), maskedAad(orgId, rec.employeeId)),
  };
}

/**
 * Rebuilds the full record from its row, in the key order of `emptyRecord()` whatever the order
 * in the envelope (rows moved by Migration20261123190000 came from JSONB, which orders keys its
 * own way). A field missing from an older shape stays undefined (the webhook normalizes).
 * Throws `DecryptionError` when the envelope does not open (wrong key, tampering, moved row).
 */
export function decodeEmployee(row: { id: string; employeeId: string; recordEnc: string }, orgId: number, cipher: FieldCipher): EmployeeRecord {
  const values = JSON.parse(cipher.decrypt(row.recordEnc, recordAad(orgId, row.employeeId))) as Record<string, unknown>;
  values.id = row.id;
  values.employeeId = row.employeeId;
  const out: Record<string, unknown> = {};
  for (const k of RECORD_KEYS) out[k] = values[k];
  return out as EmployeeRecord;
}

/**
 * Orders employee ids as PostgreSQL's `collate "C"` does (for ids without characters outside the
 * Basic Multilingual Plane): the order in which writers lock employee rows, so they never deadlock.
 */
export function byEmployeeId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The row encoder of the update webhook's writes: `records` of `orgId` encoded (`encodeEmployee`) in
 * `byEmployeeId` order, as the JSON array that `jsonb_to_recordset($n::jsonb) as
 * ${EMPLOYEE_ROW_COLUMNS}` reads. One parameter for a whole batch (see db/tx.ts for why it goes
 * to `pg` directly). The sync's pages use `employeeRowArrays`.
 */
export function employeeRowsJson(orgId: number, records: readonly EmployeeRecord[], cipher: FieldCipher): string {
  return JSON.stringify(
    [...records]
      .sort((a, b) => byEmployeeId(a.employeeId, b.employeeId))
      .map((r) => {
        const stored = encodeEmployee(r, orgId, cipher);
        return { id: r.id, employee_id: r.employeeId, record_enc: stored.recordEnc, masked_enc: stored.maskedEnc };
      }),
  );
}

/** One employee row as the sync writes it: store id, employee id and both envelopes. */
export interface EncodedEmployeeRow {
  id: string;
  employeeId: string;
  recordEnc: string;
  maskedEnc: string;
}

/**
 * The sync's row encoder: `records` of `orgId` encoded (`encodeEmployee`) in `byEmployeeId` order
 * (the order the update webhook locks rows in, so the two queue instead of deadlocking).
 */
export function encodeEmployeeRows(orgId: number, records: readonly EmployeeRecord[], cipher: FieldCipher): EncodedEmployeeRow[] {
  return [...records]
    .sort((a, b) => byEmployeeId(a.employeeId, b.employeeId))
    .map((r) => {
      const stored = encodeEmployee(r, orgId, cipher);
      return { id: r.id, employeeId: r.employeeId, recordEnc: stored.recordEnc, maskedEnc: stored.maskedEnc };
    });
}

/**
 * Most rows one upsert statement carries: four bind parameters each, well under the 65,535 a
 * statement may have (PostgreSQL's protocol counts them in 16 bits). A larger page (an HRMS that
 * lists everyone at once) is written in several statements of one transaction.
 */
export const MAX_ROWS_PER_STATEMENT = 4096;

/**
 * `rows` as the body of a `VALUES` list of bind parameters, `(id, employee_id, record_enc,
 * masked_enc)` per row in order, numbered from `$first`: `sql` goes between `(values ` and `)`,
 * `values` are the parameters. Each envelope is a parameter of its own: PostgreSQL takes a text
 * parameter as it is, where an array literal of envelopes is scanned character by character,
 * twice (docs/sync.md "Memory and throughput"). Throws RangeError past
 * {@link MAX_ROWS_PER_STATEMENT} rows.
 */
export function employeeRowsValues(rows: readonly EncodedEmployeeRow[], first: number): { sql: string; values: string[] } {
  if (rows.length > MAX_ROWS_PER_STATEMENT) throw new RangeError(`at most ${MAX_ROWS_PER_STATEMENT} rows per statement`);
  const tuples: string[] = [];
  const values: string[] = [];
  for (const r of rows) {
    const n = first + values.length;
    tuples.push(`($${n}::uuid,$${n + 1}::text,$${n + 2}::text,$${n + 3}::text)`);
    values.push(r.id, r.employeeId, r.recordEnc, r.maskedEnc);
  }
  return { sql: tuples.join(','), values };
}

/** The column list matching `employeeRowsJson` in `jsonb_to_recordset(...) as r(...)`. */
export const EMPLOYEE_ROW_COLUMNS = 'r(id uuid, employee_id text, record_enc text, masked_enc text)';
