/**
 * HiBob employee -> hrx `PartialEmployeeRecord`, as rows (src/hrms/mapping-table.ts): the
 * README's "What is mapped" table is written from them by `npm run docs`.
 *
 * Source: the machine-format employee of `POST /v1/people/search` in HiBob's published
 * description (`openapi/rules.yaml` and its `SOURCE.md`; "H:<line>" below): root fields at the top
 * of each employee (`id`, `fullName`, `email`), the Work category under `work`. A request names
 * them as field paths: `root.<field>` for a root field, `work.<field>` for a Work one
 * (`HIBOB_FIELDS`, H:7711-7727 "root.id", "root.firstName").
 *
 * Status: the description names no lifecycle field in the answer, but the search lists inactive
 * employees only with `showInactive` (H:7756-7761): an employee the search without it lists is
 * `Active`, one only `showInactive` adds is `Inactive` (`HibobContext.active`, connector.ts).
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { isObj, isoDate, mobileNumber, text, type FieldWarner } from '../decode';
import { mapWith, requestedFields, type MappingTable, type NativeRow } from '../mapping-table';

/** What a row reads besides the employee: whether the search without `showInactive` listed it. */
export interface HibobContext {
  warn: FieldWarner;
  active: boolean;
}

/** The value at dotted `path` of `row` (`work.reportsTo.email`). */
function at(row: NativeRow, path: string): unknown {
  let v: unknown = row;
  for (const key of path.split('.')) v = isObj(v) ? v[key] : undefined;
  return v;
}

/** A row reading one answer field (a dotted path for a category's field) through `decode`. */
const field = (point: string, path: string, source: string, decode: (v: unknown) => unknown = text, note?: string) => ({
  point,
  fields: [path],
  read: (row: NativeRow) => decode(at(row, path)),
  source,
  ...(note ? { note } : {}),
});

/** HiBob's mapping rows. */
export const HIBOB_MAPPING: MappingTable<HibobContext> = {
  answeredAlways: [],
  rows: [
    field('employeeId', 'id', 'H:8320-8322'),
    field('name', 'fullName', 'H:7915-7917', text, 'first name and surname'),
    field('email', 'email', 'H:8230-8233'),
    {
      point: 'status',
      fields: [],
      read: (_row, ctx) => (ctx.active ? 'Active' : 'Inactive'),
      source: 'H:7756-7761',
      note: 'Active when the search without `showInactive` lists the employee, Inactive when only `showInactive: true` does',
    },
    field('doj', 'work.startDate', 'H:8017-8020', isoDate, 'YYYY-MM-DD'),
    field('designation', 'work.title', 'H:8093-8095'),
    field('department', 'work.department', 'H:8084-8086'),
    field('manager', 'work.reportsTo.displayName', 'H:8055-8068'),
    field('managerEmail', 'work.reportsTo.email', 'H:8055-8068'),
    field('mobileNumber', 'work.workMobile', 'H:8069-8071', mobileNumber, 'the work mobile, 10 digits'),
  ],
};

/**
 * The field paths a search asks for (H:7711-7727): a root field as `root.<field>`, a category's
 * as `<category>.<field>` (a nested value such as the manager's e-mail is asked as its whole field,
 * `work.reportsTo`).
 */
export const HIBOB_FIELDS: readonly string[] = [
  ...new Set(
    requestedFields(HIBOB_MAPPING).map((f) => {
      const [head, second] = f.split('.');
      return second === undefined ? `root.${head}` : `${head}.${second}`;
    }),
  ),
];

/** One HiBob employee (machine format) as a record; `active`: listed by the search without `showInactive`. */
export const mapHibobEmployee = (row: NativeRow, active: boolean, warn: FieldWarner = () => {}): PartialEmployeeRecord =>
  mapWith(HIBOB_MAPPING, row, { warn, active });
