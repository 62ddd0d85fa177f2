/**
 * Keka employee (`GET /api/v1/hris/employees`, `EmployeeProfile`) → hrx `PartialEmployeeRecord`
 * (src/hrms/keka/README.md "The published description").
 *
 * Source: Keka's OpenAPI description as generated into github `konfig-sdks/keka-hr-java-sdk`
 * (`api/openapi.yaml`; the rules hrx checks are hand-encoded in `openapi/rules.yaml`, "K:<line>"
 * below is that file's line). Every field read here is one `EmployeeProfile` defines (K:8884-9045).
 *
 * The mapping is the rows of `KEKA_MAPPING` (src/hrms/mapping-table.ts), "K:<line>" their sources;
 * the README's "What is mapped" table is written from them by `npm run docs`.
 *
 * Not mapped: nationality (not a field of `EmployeeProfile`), PAN, Aadhaar, UAN and bank details
 * (not in Keka's employee schema; tenants may keep them in `customFields`, whose titles are
 * tenant-defined), salary (payroll endpoints), `dottedLineManager` (not a reporting-chain level).
 *
 * Enumerations: Keka's description defines each as a list of numbers and names none of them
 * (K:<lines> above). So the connector translates no number by itself: a number is translated only
 * through the label tables an operator gives (setup-config's `access_credentials.enum_labels`,
 * then `ConnectorOptions.enumLabels`, field by field over {@link KEKA_ENUM_LABELS}, which is
 * empty), whose codes must be numbers the description defines for that field
 * ({@link KEKA_DEFINED_CODES}); a number with no label leaves the field `NOT AVAILABLE` and is
 * reported once per field through `onWarning`. A text value (should Keka send labels) goes
 * through the usual word tables.
 */
import { HrmsError, type ConnectorOptions, type CredentialProblem, type HrmsCredentials } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { calendarDate, firstText, type FieldWarner } from '../decode';
import { bloodGroup, enumValue, GENDER_MAP, MARITAL_STATUS_MAP, mobileNumber, RELATION_MAP, text, isObj, obj, type Obj } from '../decode';
import { fieldRow, mapWith, type MappingRow, type MappingTable, type NativeRow } from '../mapping-table';

/** The enumeration fields a label table can be given for. */
export const KEKA_ENUM_FIELDS = ['gender', 'maritalStatus', 'bloodGroup', 'workerType', 'timeType', 'relationType', 'groupType'] as const;
/** One of {@link KEKA_ENUM_FIELDS}. */
export type KekaEnumField = (typeof KEKA_ENUM_FIELDS)[number];
/** Per field, code (as decimal text) → hrx word; for `groupType`, the record field of {@link GROUP_TARGETS}. */
export type KekaEnumLabels = Partial<Record<KekaEnumField, Readonly<Record<string, string>>>>;

/** Record fields a Keka group can fill (`enumLabels.groupType` values). */
export const GROUP_TARGETS = ['department', 'groupName', 'costCenter', 'companyName'] as const;
type GroupTarget = (typeof GROUP_TARGETS)[number];

/**
 * The numbers Keka's description defines for each enumeration (keka/openapi/rules.yaml: `Gender`
 * K:10269, `MaritalStatus` K:11303, `BloodGroup` K:7875, `WorkerType` K:12046, `TimeType` K:11939,
 * `RelationType` K:11801, `SystemGroupType` K:11866): a label table may name only these.
 */
export const KEKA_DEFINED_CODES: Readonly<Record<KekaEnumField, number>> = {
  gender: 3,
  maritalStatus: 2,
  bloodGroup: 17,
  workerType: 2,
  timeType: 2,
  relationType: 7,
  groupType: 9,
};

/**
 * The default label tables: empty. Keka's description names none of its numbers, and a guessed
 * table would store wrong values (a group type guessed to be the department would file every
 * employee under another group's name).
 */
export const KEKA_ENUM_LABELS: Readonly<KekaEnumLabels> = {};

/** The label tables in force: `overrides` (ConnectorOptions.enumLabels) replace defaults field by field. */
export function kekaLabels(overrides: ConnectorOptions['enumLabels']): KekaEnumLabels {
  const out: KekaEnumLabels = { ...KEKA_ENUM_LABELS };
  for (const field of KEKA_ENUM_FIELDS) {
    const table = overrides?.[field];
    if (table) out[field] = table;
  }
  return out;
}

/**
 * The problems of setup-config's `access_credentials.enum_labels` for Keka: fields of
 * {@link KEKA_ENUM_FIELDS} only, codes integers Keka defines for that field
 * ({@link KEKA_DEFINED_CODES}), `groupType` values of {@link GROUP_TARGETS}. Problems name the
 * field and code, never a label.
 */
export function kekaEnumLabelProblems(labels: NonNullable<HrmsCredentials['enum_labels']>): CredentialProblem[] {
  const problems: CredentialProblem[] = [];
  const at = (...path: string[]) => ['access_credentials', 'enum_labels', ...path].join('.');
  for (const [field, table] of Object.entries(labels)) {
    if (!(KEKA_ENUM_FIELDS as readonly string[]).includes(field)) {
      problems.push({ field: at(field), message: `not a keka enumeration (one of ${KEKA_ENUM_FIELDS.join(', ')})` });
      continue;
    }
    for (const [code, label] of Object.entries(table)) {
      const max = KEKA_DEFINED_CODES[field as KekaEnumField];
      if (!/^-?\d{1,9}$/.test(code)) problems.push({ field: at(field, code), message: 'codes are integers' });
      else if (Number(code) < 0 || Number(code) > max) problems.push({ field: at(field, code), message: `not a code keka defines (0 to ${max})` });
      else if (field === 'groupType' && !(GROUP_TARGETS as readonly string[]).includes(label)) {
        problems.push({ field: at(field, code), message: `must be one of ${GROUP_TARGETS.join(', ')}` });
      }
    }
  }
  return problems;
}

/**
 * A Keka date or date-time → `YYYY-MM-DD`. `YYYY-MM-DD` and a date-time without zone keep their
 * date as written; a date-time with `Z` or an offset is an instant, read in India time (+05:30:
 * an Indian midnight sent as UTC, `…T18:30:00Z`, is the next day). Blank, `null`, `0001-01-01…`
 * (.NET's empty date), `0000-00-00` and anything else → `undefined`.
 */
export function kekaDate(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(t);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return undefined;
  if (m[7] === undefined) return calendarDate(y, mo, d);
  if (calendarDate(y, mo, d) === undefined) return undefined;
  const zone =
    m[7].toUpperCase() === 'Z'
      ? 0
      : (() => {
          const z = /^([+-])(\d{2}):?(\d{2})$/.exec(m[7])!;
          return (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
        })();
  const utcMs = Date.UTC(y, mo - 1, d, Number(m[4]), Number(m[5]), Number(m[6] ?? 0)) - zone * 60_000;
  const ist = new Date(utcMs + 330 * 60_000);
  return calendarDate(ist.getUTCFullYear(), ist.getUTCMonth() + 1, ist.getUTCDate());
}

/** How a mapping reads enumerations and reports what it cannot translate. */
export interface KekaMappingContext {
  labels: KekaEnumLabels;
  warn: FieldWarner;
}

/**
 * An enumeration: a number (or numeric text) through the label table of `field` (no label: a
 * warning and `undefined`), other text through `words` (unknown text passes through as written).
 */
export function kekaEnum(ctx: KekaMappingContext, field: KekaEnumField, v: unknown, words?: (t: unknown) => string | undefined): string | undefined {
  if (v === null || v === undefined) return undefined;
  const code =
    typeof v === 'number' ? (Number.isInteger(v) ? String(v) : undefined) : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? String(Number(v)) : undefined;
  if (code !== undefined) {
    const table = ctx.labels[field];
    const label = table && Object.hasOwn(table, code) ? text(table[code]) : undefined;
    if (label === undefined) ctx.warn(field);
    return label;
  }
  return words ? words(v) : text(v);
}

/** What a row reads besides the employee: the label tables, the warner and the listing's `status`. */
export interface KekaRowContext extends KekaMappingContext {
  status?: 'Active' | 'Inactive';
}
type Row = MappingRow<KekaRowContext, NativeRow>;

const personName = (p: Obj): string | undefined =>
  firstText(p.displayName, [text(p.firstName), text(p.middleName), text(p.lastName)].filter(Boolean).join(' '));

function employmentType(ctx: KekaMappingContext, e: Obj): string | undefined {
  const worker = kekaEnum(ctx, 'workerType', e.workerType);
  const time = kekaEnum(ctx, 'timeType', e.timeType);
  return time === 'Part Time' && (worker === undefined || worker === 'Full Time') ? 'Part Time' : worker;
}

/** The title of the first group whose `groupType` the operator's table names `target` (groups of types hrx has no field for are not mapped). */
function groupOf(ctx: KekaMappingContext, groups: unknown, target: GroupTarget): string | undefined {
  if (!Array.isArray(groups)) return undefined;
  const table = ctx.labels.groupType;
  for (const g of groups.filter(isObj)) {
    const code = typeof g.groupType === 'number' || typeof g.groupType === 'string' ? String(g.groupType).trim() : undefined;
    if (code !== undefined && table && Object.hasOwn(table, code) && table[code] === target) return firstText(g.title, g.name);
  }
  return undefined;
}

const plain = fieldRow<KekaRowContext>;
const date = (point: string, field: string, source: string): Row => plain(point, field, source, kekaDate, 'date-time → `YYYY-MM-DD` in India time');
/** A row of an enumeration: a number through the operator's label table for `field`, text through `words`. */
const enumRow = (point: string, field: KekaEnumField, source: string, words?: (t: unknown) => string | undefined): Row => ({
  point,
  fields: [field],
  read: (e, ctx) => kekaEnum(ctx, field, e[field], words),
  source,
  note: `a number only through \`enum_labels.${field}\``,
});
const group = (target: GroupTarget): Row => ({
  point: target,
  fields: ['groups'],
  read: (e, ctx) => groupOf(ctx, e.groups, target),
  source: 'K:9020, K:10333',
  note: `\`title\` of the group whose \`groupType\` \`enum_labels.groupType\` names \`${target}\` (none by default)`,
});
const lower = (v: unknown): string | undefined => text(v)?.toLowerCase();
const zip = (v: unknown): string | undefined => text(v)?.replace(/\s/g, '');

const ADDRESS: readonly Row[] = [
  {
    point: 'addressLine',
    fields: ['addressLine1', 'addressLine2'],
    read: (a) => [text(a.addressLine1), text(a.addressLine2)].filter((x) => x !== undefined).join(', ') || undefined,
    source: 'K:7183',
    note: 'joined by `, `',
  },
  plain('addressCity', 'city', 'K:7183'),
  plain('addressState', 'state', 'K:7183'),
  plain('addressPincode', 'zip', 'K:7183', zip),
  plain('addressCountry', 'countryCode', 'K:7183', text, 'as given (`IN`)'),
];

const relationOf = (ctx: KekaMappingContext, r: Obj): string | undefined => kekaEnum(ctx, 'relationType', r.relationType, (t) => enumValue(RELATION_MAP, t));

const RELATION: readonly Row[] = [
  { point: 'name', fields: ['displayName'], read: (r) => personName(r), source: 'K:11758', note: 'else first, middle and last name' },
  {
    point: 'relation',
    fields: ['relationType'],
    read: (r, ctx) => relationOf(ctx, r),
    source: 'K:11801',
    note: 'a number only through `enum_labels.relationType`',
  },
  plain('dob', 'dateOfBirth', 'K:11758', kekaDate),
  plain('email', 'email', 'K:11758', lower),
  enumRow('gender', 'gender', 'K:10269', (t) => enumValue(GENDER_MAP, t)),
  plain('mobileNumber', 'mobile', 'K:11758', mobileNumber),
  plain('profession', 'profession', 'K:11758'),
];

/**
 * Keka's mapping (src/hrms/mapping-table.ts): each hrx data point, the `EmployeeProfile` fields
 * it reads and the line of keka/openapi/rules.yaml that defines them ("K:<line>").
 */
export const KEKA_MAPPING: MappingTable<KekaRowContext, NativeRow> = {
  answeredAlways: ['employeeNumber'],
  rows: [
    plain('employeeId', 'employeeNumber', 'K:8889', text, "`id` (UUID) is Keka's own key"),
    {
      point: 'name',
      fields: ['displayName', 'firstName', 'middleName', 'lastName'],
      read: (e) => personName(e),
      source: 'K:8901, K:8892-8898',
      note: 'else first, middle and last name',
    },
    plain('email', 'email', 'K:8904', lower),
    plain('personalEmail', 'personalEmail', 'K:8975', lower),
    plain('mobileNumber', 'mobilePhone', 'K:8984', mobileNumber, 'Indian prefixes dropped'),
    plain('countryCode', 'countryCode', 'K:8910', (v) => text(v)?.toUpperCase()),
    date('dob', 'dateOfBirth', 'K:8950'),
    date('doj', 'joiningDate', 'K:8944'),
    date('terminationDate', 'exitDate', 'K:8958'),
    date('employeeMetadata.marriageDate', 'marriageDate', 'K:8938'),
    {
      point: 'status',
      fields: [],
      read: (_e, ctx) => ctx.status,
      source: 'K:136-143',
      note: 'the listing it came from: `employmentStatus=Working` → Active, `Relieved` → Inactive (the number `employmentStatus`, K:9767, has no names)',
    },
    {
      point: 'employmentType',
      fields: ['workerType', 'timeType'],
      read: (e, ctx) => employmentType(ctx, e),
      source: 'K:12046, K:11939',
      note: 'numbers only through `enum_labels`; a part-time time type makes `Part Time`',
    },
    enumRow('gender', 'gender', 'K:10269', (t) => enumValue(GENDER_MAP, t)),
    enumRow('maritalStatus', 'maritalStatus', 'K:11303', (t) => enumValue(MARITAL_STATUS_MAP, t)),
    enumRow('bloodGroup', 'bloodGroup', 'K:7875', bloodGroup),
    { point: 'designation', fields: ['jobTitle.title'], read: (e) => firstText(obj(e.jobTitle).title), source: 'K:8915, `LookupInfo` K:11291' },
    { point: 'grade', fields: ['payGradeInfo.title'], read: (e) => firstText(obj(e.payGradeInfo).title), source: 'K:9029', note: "Keka's pay grade" },
    ...GROUP_TARGETS.map(group),
    {
      point: 'manager',
      fields: ['reportsTo.firstName', 'reportsTo.lastName'],
      read: (e) => firstText([text(obj(e.reportsTo).firstName), text(obj(e.reportsTo).lastName)].filter(Boolean).join(' ')),
      source: 'K:8920, `EmployeeLookup` K:8492',
    },
    { point: 'managerEmail', fields: ['reportsTo.email'], read: (e) => lower(obj(e.reportsTo).email), source: 'K:8920, `EmployeeLookup` K:8492' },
    {
      point: 'managerEmail2',
      fields: ['l2Manager.email'],
      read: (e) => lower(obj(e.l2Manager).email),
      source: 'K:8922',
      note: "Keka's second-level manager; levels 3-5 are not given",
    },
    {
      point: 'fatherName',
      fields: ['relations'],
      // Read without warning: the dependents' row warns of a relation type it cannot translate.
      read: (e, ctx) =>
        Array.isArray(e.relations)
          ? personName(e.relations.filter(isObj).find((r) => relationOf({ ...ctx, warn: () => {} }, r) === 'Father') ?? {})
          : undefined,
      source: 'K:11774',
      note: 'the name of the relation whose `relationType` is Father (needs `enum_labels.relationType`)',
    },
    plain('jobLocation.city', 'city', 'K:8907'),
    { point: 'currentAddress', fields: ['currentAddress'], read: (e) => e.currentAddress, source: 'K:8996, `Address` K:7183', rows: ADDRESS },
    { point: 'permanentAddress', fields: ['permanentAddress'], read: (e) => e.permanentAddress, source: 'K:8998, `Address` K:7183', rows: ADDRESS },
    { point: 'dependentDetails', fields: ['relations'], read: (e) => e.relations, source: 'K:9000, `Relation` K:11758', rows: RELATION, many: true },
  ],
};

/**
 * Maps one Keka employee by `KEKA_MAPPING`. `status` is what the listing said (`Active` from the `Working` listing,
 * `Inactive` from `Relieved`); `undefined` when unknown. Throws `HrmsError('bad_response')` for
 * a non-object or an employee without `employeeNumber` (the message carries no values).
 */
export function mapKekaEmployee(native: unknown, ctx: KekaMappingContext, status?: 'Active' | 'Inactive'): PartialEmployeeRecord {
  if (!isObj(native)) throw new HrmsError('bad_response', 'Keka returned an employee that is not an object');
  if (text(native.employeeNumber) === undefined) throw new HrmsError('bad_response', 'Keka returned an employee without employeeNumber');
  return mapWith(KEKA_MAPPING, native, { ...ctx, status });
}
