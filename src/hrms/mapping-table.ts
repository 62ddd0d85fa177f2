/**
 * A product's mapping as data (src/hrms/README.md "The mapping as rows"): one row per hrx data
 * point names the vendor fields it reads, how it reads them and where the vendor documents them.
 * From the same rows come the mapping function (`mapByRows`), the fields a product asks for
 * (`requestedFields`) and the product README's "What is mapped" table (`mappingMarkdown`, written
 * by `npm run docs`), so the three never disagree. The simulators' ground truth (`expected()`)
 * stays hand-written: it is the independent check of the rows.
 */
import type { PartialEmployeeRecord } from '../domain/record';
import { compact, type FieldWarner } from './decode';

/** One vendor employee as the vendor answered it (field name -> value). */
export type NativeRow = Record<string, unknown>;

/**
 * One row of a mapping table.
 * - `point`: the hrx record path written (`dob`, `currentAddress.addressCity`, `salaryDetails`).
 * - `fields`: the vendor fields read, in the vendor's spelling (asked for by `requestedFields`
 *   unless listed in the table's `answeredAlways`).
 * - `read`: the value from one vendor employee (undefined: empty); `warn` hears of a value left empty.
 * - `source`: where the vendor documents the fields (a description line, a doc URL).
 * - `note`: how the value is read, for the README table (optional).
 */
export interface MappingRow {
  point: string;
  fields: readonly string[];
  read: (row: NativeRow, warn: FieldWarner) => unknown;
  source: string;
  note?: string;
}

/** A product's mapping table: its rows and the fields every answer carries unasked (an id). */
export interface MappingTable {
  rows: readonly MappingRow[];
  answeredAlways?: readonly string[];
}

/** `target` with `value` set at the dotted `path` (objects created on the way). */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    at = (typeof next === 'object' && next !== null ? next : (at[key] = {})) as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
}

/** The record the rows read from `row`: each row's value at its point, empty values dropped (`compact`). */
export function mapByRows(table: MappingTable, row: NativeRow, warn: FieldWarner = () => {}): PartialEmployeeRecord {
  const out: Record<string, unknown> = {};
  for (const r of table.rows) setPath(out, r.point, r.read(row, warn));
  return compact<PartialEmployeeRecord>(out as PartialEmployeeRecord);
}

/** Every field the rows read, once each, in the rows' order, without the ones answered unasked. */
export function requestedFields(table: MappingTable): string[] {
  const always = new Set(table.answeredAlways ?? []);
  return [...new Set(table.rows.flatMap((r) => r.fields))].filter((f) => !always.has(f));
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The README's "What is mapped" table: one line per row (data point, fields and note, source). */
export function mappingMarkdown(table: MappingTable, vendor: string): string {
  const lines = [`| hrx data point | ${vendor} field | source |`, '|---|---|---|'];
  for (const r of table.rows) {
    const fields = r.fields.map((f) => `\`${f}\``).join(', ');
    lines.push(`| ${r.point} | ${cell(r.note ? `${fields}: ${r.note}` : fields)} | ${cell(r.source)} |`);
  }
  return lines.join('\n');
}
