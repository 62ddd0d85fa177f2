/**
 * A product's mapping as data (src/hrms/README.md "The mapping as rows"): one row per hrx data
 * point names the vendor fields it reads, how it reads them and where the vendor documents them.
 * From the same rows come the mapping function (`mapByRows`), the fields a product asks for
 * (`requestedFields`) and the product README's "What is mapped" table (`mappingMarkdown`, written
 * by `npm run docs`), so the three never disagree. The simulators' ground truth (`expected()`)
 * stays hand-written: it is the independent check of the rows.
 */
import type { PartialEmployeeRecord } from '../domain/record';
import { compact, text, type FieldWarner } from './decode';

/** One vendor employee as the vendor answered it (field name -> value). */
export type NativeRow = Record<string, unknown>;

/**
 * One row of a mapping table, read from `R` (one vendor employee, or what the product assembled
 * of it) with `C` (what the reads need besides: a warner, lookups, label tables).
 * - `point`: the hrx record path written (`dob`, `currentAddress.addressCity`, `salaryDetails`).
 * - `fields`: the vendor fields read, in the vendor's spelling (asked for by `requestedFields`
 *   unless listed in the table's `answeredAlways`); a nested field as a dotted path.
 * - `read`: the value from one vendor employee (undefined: empty); `ctx` carries the warner.
 * - `source`: where the vendor documents the fields (a description line, a doc URL).
 * - `note`: how the value is read, for the README table (optional).
 * - `rows`: the value read is a nested vendor record (`many`: a list of them, each mapped on its
 *   own) whose values these rows read; the README lists them under the row's point and field.
 */
export interface MappingRow<C = FieldWarner, R = NativeRow> {
  point: string;
  fields: readonly string[];
  read: (row: R, ctx: C) => unknown;
  source: string;
  note?: string;
  rows?: readonly MappingRow<C, NativeRow>[];
  many?: boolean;
}

/** A row reading one vendor field `field` through `decode` (default: trimmed text), whatever the table's context. */
export function fieldRow<C = FieldWarner>(point: string, field: string, source: string, decode: (v: unknown) => unknown = text, note?: string): MappingRow<C> {
  return { point, fields: [field], read: (row) => decode(row[field]), source, ...(note ? { note } : {}) };
}

/** A product's mapping table: its rows and the fields every answer carries unasked (an id). */
export interface MappingTable<C = FieldWarner, R = NativeRow> {
  rows: readonly MappingRow<C, R>[];
  answeredAlways?: readonly string[];
}

/** Any product's table, whatever its reads take: what the README table needs (`mappingMarkdown`). */
export type AnyMappingTable = MappingTable<never, never>;

/** A product with one table per API version: each with the title its README section shows. */
export type MappingVersions = readonly { title: string; table: AnyMappingTable }[];

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

const isRecord = (v: unknown): v is NativeRow => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object `rows` write from `row` (not compacted: nested rows are compacted with their parent). */
function writeRows<C, R>(rows: readonly MappingRow<C, R>[], row: R, ctx: C): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    let value = r.read(row, ctx);
    if (r.rows) {
      const nested = r.rows;
      // Each item of a list is one record of its own: compacted alone, kept even when empty.
      if (r.many) value = Array.isArray(value) ? value.filter(isRecord).map((item) => compact(writeRows(nested, item, ctx))) : undefined;
      else value = isRecord(value) ? writeRows(nested, value, ctx) : undefined;
    }
    setPath(out, r.point, value);
  }
  return out;
}

/** The record `table`'s rows read from `row` with `ctx`: each row's value at its point, empty values dropped (`compact`). */
export function mapWith<C, R>(table: MappingTable<C, R>, row: R, ctx: C): PartialEmployeeRecord {
  return compact<PartialEmployeeRecord>(writeRows(table.rows, row, ctx) as PartialEmployeeRecord);
}

/** The record the rows read from `row`: each row's value at its point, empty values dropped (`compact`). */
export function mapByRows(table: MappingTable, row: NativeRow, warn: FieldWarner = () => {}): PartialEmployeeRecord {
  return mapWith(table, row, warn);
}

/** Every field the rows read, once each, in the rows' order, without the ones answered unasked. */
export function requestedFields<C, R>(table: MappingTable<C, R>): string[] {
  const always = new Set(table.answeredAlways ?? []);
  return [...new Set(table.rows.flatMap((r) => r.fields))].filter((f) => !always.has(f));
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The table's lines, nested rows under their parent's point and first field (`dependents[].name`). */
function lines(rows: readonly MappingRow<never, never>[], point = '', field = ''): string[] {
  return rows.flatMap((r) => {
    const fields = r.fields.map((f) => `\`${field}${f}\``).join(', ');
    const what = fields && r.note ? `${fields}: ${r.note}` : fields || (r.note ?? '');
    const own = `| ${point}${r.point} | ${cell(what)} | ${cell(r.source)} |`;
    if (!r.rows) return [own];
    const mark = r.many ? '[].' : '.';
    return [...(r.note ? [own] : []), ...lines(r.rows, `${point}${r.point}${mark}`, `${field}${r.fields[0] ?? ''}${mark}`)];
  });
}

/** The README's "What is mapped" table: one line per row (data point, fields and note, source); per version for a product with several. */
export function mappingMarkdown(mapping: AnyMappingTable | MappingVersions, vendor: string): string {
  const table = (t: AnyMappingTable) => [`| hrx data point | ${vendor} field | source |`, '|---|---|---|', ...lines(t.rows)].join('\n');
  if ('rows' in mapping) return table(mapping);
  return mapping.map((v) => `**${v.title}**\n\n${table(v.table)}`).join('\n\n');
}
