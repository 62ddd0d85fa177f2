/**
 * Keka employee (`GET /api/v1/hris/employees`, `EmployeeProfile`) → hrx `PartialEmployeeRecord`
 * (src/hrms/keka/README.md "The published description").
 *
 * Source: Keka's OpenAPI description as generated into github `konfig-sdks/keka-hr-java-sdk`
 * (`api/openapi.yaml`; the rules hrx checks are hand-encoded in `openapi/rules.yaml`, "K:<line>"
 * below is that file's line). Every field read here is one `EmployeeProfile` defines (K:8884-9045).
 *
 * | Keka field | record data point | note | source |
 * |---|---|---|---|
 * | `employeeNumber` | `employeeId` | `id` (UUID) is Keka's own key | K:8889 |
 * | `displayName`, else `firstName middleName lastName` | `name` | | K:8901, K:8892-8898 |
 * | `email` / `personalEmail` | `email` / `personalEmail` | lower-cased | K:8904 / K:8975 |
 * | `mobilePhone` | `mobileNumber` | Indian prefixes dropped | K:8984 |
 * | `countryCode` | `countryCode` | | K:8910 |
 * | `dateOfBirth` / `joiningDate` / `exitDate` / `marriageDate` | `dob` / `doj` / `terminationDate` / `employeeMetadata.marriageDate` | date-time → `YYYY-MM-DD` ({@link kekaDate}) | K:8950 / K:8944 / K:8958 / K:8938 |
 * | listing filter `employmentStatus=Working` / `Relieved` | `status` `Active` / `Inactive` | the number `employmentStatus` (K:9767: 0, 1) has no names; the filter's values are documented | K:136-143 |
 * | `jobTitle.title` | `designation` | | K:8915, `LookupInfo` K:11291 |
 * | `payGradeInfo.title` | `grade` | Keka's pay grade | K:9029 |
 * | `groups[].title` by `groupType` | `department`, `groupName`, `costCenter`, `companyName` per `enumLabels.groupType` only | `groupType` is a `SystemGroupType` number (K:10345, K:11866: 0-9) without names: no group is a department by default | K:9020, K:10333 |
 * | `reportsTo.firstName lastName` / `.email` | `manager` / `managerEmail` | | K:8920, `EmployeeLookup` K:8492 |
 * | `l2Manager.email` | `managerEmail2` | Keka's second-level manager; levels 3-5 are not given | K:8922 |
 * | `city` | `jobLocation.city` | | K:8907 |
 * | `currentAddress` / `permanentAddress` `{addressLine1, addressLine2, city, state, zip, countryCode}` | `currentAddress` / `permanentAddress` | lines joined by `, `; `countryCode` as given | K:8996 / K:8998, `Address` K:7183 |
 * | `relations[]` `{displayName, relationType, gender, dateOfBirth, email, mobile, profession}` | `dependentDetails[]` | | K:9000, `Relation` K:11758 |
 * | `relations[relation = Father]` | `fatherName` | needs `enumLabels.relationType` | K:11774 |
 * | `gender`, `maritalStatus`, `bloodGroup` | `gender`, `maritalStatus`, `bloodGroup` | numbers only through `enumLabels` | `Gender` K:10269 (0-3), `MaritalStatus` K:11303 (0-2), `BloodGroup` K:7875 (0-17) |
 * | `workerType`, `timeType` | `employmentType` | numbers only through `enumLabels`; a part-time time type makes `Part Time` | `WorkerType` K:12046 (0-2), `TimeType` K:11939 (0-2) |
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

const lower = (v: unknown): string | undefined => text(v)?.toLowerCase();

function address(v: unknown): NonNullable<PartialEmployeeRecord['currentAddress']> {
  const a = obj(v);
  const line = [text(a.addressLine1), text(a.addressLine2)].filter((x) => x !== undefined).join(', ');
  return {
    addressLine: line === '' ? undefined : line,
    addressCity: text(a.city),
    addressState: text(a.state),
    addressPincode: text(a.zip)?.replace(/\s/g, ''),
    addressCountry: text(a.countryCode),
  };
}

const personName = (p: Obj): string | undefined =>
  firstText(p.displayName, [text(p.firstName), text(p.middleName), text(p.lastName)].filter(Boolean).join(' '));

function employmentType(ctx: KekaMappingContext, e: Obj): string | undefined {
  const worker = kekaEnum(ctx, 'workerType', e.workerType);
  const time = kekaEnum(ctx, 'timeType', e.timeType);
  return time === 'Part Time' && (worker === undefined || worker === 'Full Time') ? 'Part Time' : worker;
}

function groupFields(ctx: KekaMappingContext, groups: unknown): Partial<Record<GroupTarget, string>> {
  const out: Partial<Record<GroupTarget, string>> = {};
  if (!Array.isArray(groups)) return out;
  for (const g of groups.filter(isObj)) {
    const code = typeof g.groupType === 'number' || typeof g.groupType === 'string' ? String(g.groupType).trim() : undefined;
    const table = ctx.labels.groupType;
    const target = code !== undefined && table && Object.hasOwn(table, code) ? table[code] : undefined;
    // Groups of types hrx has no field for (pay groups, …) are simply not mapped.
    if (target && (GROUP_TARGETS as readonly string[]).includes(target)) out[target as GroupTarget] ??= firstText(g.title, g.name);
  }
  return out;
}

function dependents(ctx: KekaMappingContext, relations: unknown): NonNullable<PartialEmployeeRecord['dependentDetails']> | undefined {
  if (!Array.isArray(relations)) return undefined;
  return relations.filter(isObj).map((r) => ({
    name: personName(r),
    relation: kekaEnum(ctx, 'relationType', r.relationType, (t) => enumValue(RELATION_MAP, t)),
    dob: kekaDate(r.dateOfBirth),
    email: lower(r.email),
    gender: kekaEnum(ctx, 'gender', r.gender, (t) => enumValue(GENDER_MAP, t)),
    mobileNumber: mobileNumber(r.mobile),
    profession: text(r.profession),
  }));
}

/**
 * Maps one Keka employee. `status` is what the listing said (`Active` from the `Working` listing,
 * `Inactive` from `Relieved`); `undefined` when unknown. Throws `HrmsError('bad_response')` for
 * a non-object or an employee without `employeeNumber` (the message carries no values).
 */
export function mapKekaEmployee(native: unknown, ctx: KekaMappingContext, status?: 'Active' | 'Inactive'): PartialEmployeeRecord {
  if (!isObj(native)) throw new HrmsError('bad_response', 'Keka returned an employee that is not an object');
  const e = native;
  const employeeId = text(e.employeeNumber);
  if (employeeId === undefined) throw new HrmsError('bad_response', 'Keka returned an employee without employeeNumber');
  const mgr = obj(e.reportsTo);
  const deps = dependents(ctx, e.relations);
  return {
    employeeId,
    name: personName(e),
    email: lower(e.email),
    personalEmail: lower(e.personalEmail),
    mobileNumber: mobileNumber(e.mobilePhone),
    countryCode: text(e.countryCode)?.toUpperCase(),
    dob: kekaDate(e.dateOfBirth),
    doj: kekaDate(e.joiningDate),
    terminationDate: kekaDate(e.exitDate),
    employeeMetadata: { marriageDate: kekaDate(e.marriageDate) },
    status,
    employmentType: employmentType(ctx, e),
    gender: kekaEnum(ctx, 'gender', e.gender, (t) => enumValue(GENDER_MAP, t)),
    maritalStatus: kekaEnum(ctx, 'maritalStatus', e.maritalStatus, (t) => enumValue(MARITAL_STATUS_MAP, t)),
    bloodGroup: kekaEnum(ctx, 'bloodGroup', e.bloodGroup, bloodGroup),
    designation: firstText(obj(e.jobTitle).title),
    grade: firstText(obj(e.payGradeInfo).title),
    ...groupFields(ctx, e.groups),
    manager: firstText([text(mgr.firstName), text(mgr.lastName)].filter(Boolean).join(' ')),
    managerEmail: lower(mgr.email),
    managerEmail2: lower(obj(e.l2Manager).email),
    fatherName: deps?.find((d) => d.relation === 'Father')?.name,
    jobLocation: { city: text(e.city) },
    currentAddress: address(e.currentAddress),
    permanentAddress: address(e.permanentAddress),
    dependentDetails: deps,
  };
}
