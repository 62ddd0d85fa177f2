/**
 * The served form of an employee's pay history, kept whole (docs/pay-history.md "What is kept",
 * "Read"): one AES-256-GCM envelope per employee row holding every kept pay month, newest first,
 * each as the pay history read serves it to a connection that shares every `monthly_*` point.
 * The read of such a connection is then one row fetched with the employee lookup, one decrypt and
 * a slice of text, never a decrypt, parse and re-serialization per month (docs/benchmarks.md
 * "pay_history").
 *
 * The envelope is derived data: the rows of `pay_months` stay the record. Every write of pay
 * months (`PayMonthStore.record`) locks the envelopes of the employees it changes before it
 * writes their months, then merges what it wrote into them in the same transaction, so
 * concurrent writers queue on the lock and each merges into the other's committed result. An
 * employee without an envelope (months written before it existed) is read from `pay_months`, and
 * the envelope is built from those rows at its next write. Envelopes go with their employee row
 * (`on delete cascade`), as the months do.
 *
 * Plain text inside the envelope: the end offset of each month in the array text, comma
 * separated, a newline, then the JSON array itself; `months=n` is the array cut after the n-th
 * month. The offsets stay inside the envelope: outside it they would tell each month's length.
 * The text is compressed (raw DEFLATE, RFC 1951) before it is encrypted: the months repeat their
 * keys, so 24 of them shrink from some 15 KB to under 1 KB, and the envelope fits in its table
 * row instead of PostgreSQL's out-of-line storage; inflating costs less than the bytes it saves
 * (docs/benchmarks.md "pay_history").
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FieldCipher } from '../crypto/field-cipher';
import type { Queryable } from '../db/tx';
import { ALL_DATA_POINTS } from '../domain/data-points';
import type { PayMonth } from '../domain/record';

/** Associated data binding a pay envelope to its employee row. */
export function payEnvelopeAad(orgId: number, employeeRowId: string): string {
  return `pay-envelope:${orgId}:${employeeRowId}`;
}

/** A `monthly_*` data point (other than `monthly_month`, `monthly_year`) and the path it names in a pay month. */
export interface PayPoint {
  point: string;
  path: string[];
}

/** Every `monthly_*` data point served in a pay month, in the order a pay month's keys are served. */
export const PAY_POINTS: readonly PayPoint[] = ALL_DATA_POINTS.filter((p) => p.startsWith('monthly_') && p !== 'monthly_month' && p !== 'monthly_year').map(
  (point) => ({ point, path: point.slice('monthly_'.length).split('_') }),
);

/** A pay month cut down to `month`, `year` and `fields`, nested as in the record's `monthly` (absent values `null`). */
export function projectPayMonth(m: PayMonth | Record<string, unknown>, fields: readonly PayPoint[]): Record<string, unknown> {
  const out: Record<string, unknown> = { month: m.month, year: m.year };
  for (const { path } of fields) {
    let src: unknown = m;
    let dst = out;
    for (let i = 0; i < path.length - 1; i++) {
      src = (src as Record<string, unknown> | undefined)?.[path[i]!];
      dst = (dst[path[i]!] ??= {}) as Record<string, unknown>;
    }
    const leaf = path[path.length - 1]!;
    dst[leaf] = (src as Record<string, unknown> | undefined)?.[leaf] ?? null;
  }
  return out;
}

/** One month held in an envelope: its place on the calendar and its served JSON text. */
interface HeldMonth {
  year: number;
  month: number;
  json: string;
}

/**
 * The plain text of employee row `employeeRowId`'s pay envelope `enc` (of org `orgId`). Throws
 * `DecryptionError` when it does not open.
 */
export function openPayEnvelope(cipher: FieldCipher, enc: string, orgId: number, employeeRowId: string): string {
  return inflateRawSync(Buffer.from(cipher.decrypt(enc, payEnvelopeAad(orgId, employeeRowId)), 'base64')).toString('utf8');
}

/** The envelope of plain text `text` for employee row `employeeRowId` of org `orgId`. */
function sealPayEnvelope(cipher: FieldCipher, text: string, orgId: number, employeeRowId: string): string {
  return cipher.encrypt(deflateRawSync(Buffer.from(text, 'utf8')).toString('base64'), payEnvelopeAad(orgId, employeeRowId));
}

/** The plain text of an envelope holding `months` (any order; served newest first). */
function envelopeText(months: readonly HeldMonth[]): string {
  const sorted = [...months].sort((a, b) => b.year - a.year || b.month - a.month);
  const ends: number[] = [];
  let array = '[';
  sorted.forEach((m, i) => {
    array += (i === 0 ? '' : ',') + m.json;
    ends.push(array.length);
  });
  return `${ends.join(',')}\n${array}]`;
}

/**
 * The JSON array of the `n` newest months held in an opened envelope's plain text `text`
 * (fewer when it holds fewer), newest first, each month as served with every point shared.
 */
export function newestMonthsJson(text: string, n: number): string {
  const nl = text.indexOf('\n');
  if (nl <= 0) return '[]';
  const ends = text.slice(0, nl).split(',');
  const array = text.slice(nl + 1);
  if (n >= ends.length) return array;
  return `${array.slice(0, Number(ends[n - 1]))}]`;
}

/** The months an opened envelope's plain text holds, keyed `year-month`. */
function heldMonths(text: string): Map<string, HeldMonth> {
  const out = new Map<string, HeldMonth>();
  const nl = text.indexOf('\n');
  if (nl <= 0) return out;
  const ends = text
    .slice(0, nl)
    .split(',')
    .map((e) => Number(e));
  const array = text.slice(nl + 1);
  let start = 1;
  for (const end of ends) {
    const json = array.slice(start, end);
    const { year, month } = JSON.parse(json) as { year: number; month: number };
    out.set(`${year}-${month}`, { year, month, json });
    start = end + 1;
  }
  return out;
}

/** What one employee's write changed: months written (new or corrected values) and months trimmed. */
export interface EnvelopeChange {
  employeeRowId: string;
  written: PayMonth[];
  trimmed: { year: number; month: number }[];
}

/**
 * Takes the envelopes of `employeeRowIds` for writing: creates the missing ones (empty, not yet
 * built) and locks all of them, in row id order (every writer locks in that order, so two
 * writers never wait on each other crosswise). Returns the envelope of each, null where not built.
 * Must run in the transaction that then writes the months.
 */
export async function lockPayEnvelopes(db: Queryable, orgId: number, employeeRowIds: readonly string[]): Promise<Map<string, string | null>> {
  const ids = [...new Set(employeeRowIds)].sort();
  await db.query(
    `insert into pay_envelopes (employee_row_id, org_id) select id, $1 from unnest($2::uuid[]) as u(id) order by id
      on conflict (employee_row_id) do nothing`,
    [orgId, ids],
  );
  const res = await db.query(
    `select employee_row_id, value_enc from pay_envelopes where employee_row_id = any($1::uuid[]) order by employee_row_id for update`,
    [ids],
  );
  return new Map((res.rows as { employee_row_id: string; value_enc: string | null }[]).map((r) => [r.employee_row_id, r.value_enc]));
}

/**
 * Writes the envelopes of `changes` (locked by `lockPayEnvelopes` in the same transaction, `locked`
 * its answer): a built envelope takes the written months (replacing the same month) and loses the
 * trimmed ones; one not built yet is built from the employee's rows in `pay_months` as they stand
 * in this transaction. One read of rows for the employees without an envelope, one write for all.
 * Throws `DecryptionError` when a stored envelope or month does not open.
 */
export async function writePayEnvelopes(
  db: Queryable,
  cipher: FieldCipher,
  orgId: number,
  changes: readonly EnvelopeChange[],
  locked: ReadonlyMap<string, string | null>,
  monthAad: (employeeRowId: string, year: number, month: number) => string,
): Promise<void> {
  if (changes.length === 0) return;
  const held = new Map<string, Map<string, HeldMonth>>();
  const unbuilt = new Set<string>();
  for (const c of changes) {
    const enc = locked.get(c.employeeRowId);
    if (enc) held.set(c.employeeRowId, heldMonths(openPayEnvelope(cipher, enc, orgId, c.employeeRowId)));
    else unbuilt.add(c.employeeRowId);
  }
  if (unbuilt.size > 0) {
    for (const id of unbuilt) held.set(id, new Map());
    const rows = await db.query(`select employee_row_id, year, month, value_enc from pay_months where employee_row_id = any($1::uuid[])`, [[...unbuilt]]);
    for (const r of rows.rows as { employee_row_id: string; year: number; month: number; value_enc: string }[]) {
      const value = JSON.parse(cipher.decrypt(r.value_enc, monthAad(r.employee_row_id, r.year, r.month))) as PayMonth;
      held.get(r.employee_row_id)!.set(`${r.year}-${r.month}`, { year: r.year, month: r.month, json: JSON.stringify(projectPayMonth(value, PAY_POINTS)) });
    }
  }
  const ids: string[] = [];
  const encs: string[] = [];
  for (const c of changes) {
    const months = held.get(c.employeeRowId)!;
    // Rows just built from `pay_months` already hold this write's months and trims.
    if (!unbuilt.has(c.employeeRowId)) {
      for (const m of c.written) months.set(`${m.year}-${m.month}`, { year: m.year, month: m.month, json: JSON.stringify(projectPayMonth(m, PAY_POINTS)) });
      for (const t of c.trimmed) months.delete(`${t.year}-${t.month}`);
    }
    ids.push(c.employeeRowId);
    encs.push(sealPayEnvelope(cipher, envelopeText([...months.values()]), orgId, c.employeeRowId));
  }
  await db.query(
    `update pay_envelopes p set value_enc = u.enc, built_at = now()
      from unnest($1::uuid[], $2::text[]) as u(id, enc) where p.employee_row_id = u.id`,
    [ids, encs],
  );
}
