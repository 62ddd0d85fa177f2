/**
 * Keka employee (`GET /api/v1/hris/employees`, `EmployeeProfile`) → hrx `PartialEmployeeRecord`.
 *
 * Sources: Keka's OpenAPI as generated into the Konfig SDK (field names and types, enums as
 * int32, dates as date-time: https://github.com/konfig-sdks/keka-hr-python-sdk,
 * `keka_hr_python_sdk/model/employee_profile.py`), Airbyte's `source-keka` schema sampled from
 * real responses, Keka's API reference (https://developers.keka.com/reference). The research
 * notes are in decisions §14's research file, section 1.
 *
 * | Keka field | record data point | note | source |
 * |---|---|---|---|
 * | `employeeNumber` | `employeeId` | `id` (UUID) is Keka's own key | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | `displayName`, else `firstName middleName lastName` | `name` | | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | `email` / `personalEmail` | `email` / `personalEmail` | lower-cased | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | `mobilePhone` | `mobileNumber` | Indian prefixes dropped | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | `countryCode` | `countryCode` | | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | `dateOfBirth` / `joiningDate` / `exitDate` / `marriageDate` | `dob` / `doj` / `terminationDate` / `employeeMetadata.marriageDate` | date-time → `YYYY-MM-DD` ({@link kekaDate}) | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | listing filter `employmentStatus=Working` / `Relieved` | `status` `Active` / `Inactive` | the number `employmentStatus` has no published meaning; the documented filter does | Konfig SDK `paths/hris_employees/get.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), from Keka's OpenAPI (S) |
 * | `nationality` | `nationality` | | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | `jobTitle.title` | `designation` | | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk), Airbyte `source-keka` schema (S) |
 * | `payGradeInfo.title` | `grade` | Keka's pay grade (I) | Konfig SDK `employee_profile.py` (https://github.com/konfig-sdks/keka-hr-python-sdk); meaning inferred (I) |
 * | `groups[].title` by `groupType` | `department` (type 1), others per `enumLabels.groupType` | type 1 = department: seen in client code (S) | Airbyte `source-keka` schema (S); type 1 = department: client code (S) |
 * | `reportsTo.firstName lastName` / `.email` | `manager` / `managerEmail` | | Airbyte `source-keka` schema (S) |
 * | `l2Manager.email` | `managerEmail2` | Keka's second-level manager; levels 3-5 are not given | Airbyte `source-keka` schema (S) |
 * | `city` | `jobLocation.city` | | Airbyte `source-keka` schema (S) |
 * | `currentAddress` / `permanentAddress` `{addressLine1, addressLine2, city, state, zip, countryCode}` | `currentAddress` / `permanentAddress` | lines joined by `, `; `countryCode` as given | Airbyte `source-keka` schema (S) |
 * | `relations[]` `{displayName, relationType, gender, dateOfBirth, email, mobile, profession}` | `dependentDetails[]` | | Airbyte `source-keka` schema (S) |
 * | `relations[relation = Father]` | `fatherName` | needs `enumLabels.relationType` | Airbyte `source-keka` schema (S); `relationType` a number (research §1 `?`) |
 * | `gender`, `maritalStatus`, `bloodGroup` (numbers) | `gender`, `maritalStatus`, `bloodGroup` | only through `enumLabels` (no published meaning, research `?`) | Konfig SDK enums (https://github.com/konfig-sdks/keka-hr-python-sdk): meanings not published (research §1 `?`) |
 * | `workerType`, `timeType` (numbers) | `employmentType` | only through `enumLabels`; a part-time time type makes `Part Time` | Airbyte `source-keka` schema (S): numbers without published meaning |
 *
 * Not mapped: PAN, Aadhaar, UAN and bank details (not in Keka's employee schema; tenants may
 * keep them in `customFields`, whose titles are tenant-defined), salary (payroll endpoints,
 * research `?`), `dottedLineManager` (not a reporting-chain level), `groupName`/`costCenter`/
 * `companyName` unless `enumLabels.groupType` names their group types.
 *
 * Enumerations: Keka sends them as numbers whose labels it does not publish. A number is
 * translated only through the label tables (setup-config's `access_credentials.enum_labels`, then
 * `ConnectorOptions.enumLabels`, field by field over {@link KEKA_ENUM_LABELS}); a number with no label leaves the field empty and is reported once
 * per field through `onWarning` (decisions §14). A text value (should Keka send labels) goes
 * through the usual word tables.
 */
import { HrmsError, type ConnectorOptions, type CredentialProblem, type HrmsCredentials } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { calendarDate, firstText, type FieldWarner } from '../decode';
import { bloodGroup, enumValue, GENDER_MAP, MARITAL_STATUS_MAP, mobileNumber, RELATION_MAP, text, isObj, obj, type Obj } from '../reference/mapping';

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
 * The default label tables: only what public evidence supports. Group type 1 is the department
 * (client code that reads Keka's `groups`, S). Every other table is empty: the meaning of
 * Keka's numbers was not found (research `?`), and a wrong table would store wrong values.
 */
export const KEKA_ENUM_LABELS: Readonly<KekaEnumLabels> = { groupType: { 1: 'department' } };

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
 * {@link KEKA_ENUM_FIELDS} only, codes integers, `groupType` values of {@link GROUP_TARGETS}.
 * Problems name the field and code, never a label.
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
      if (!/^-?\d{1,9}$/.test(code)) problems.push({ field: at(field, code), message: 'codes are integers' });
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
    nationality: text(e.nationality),
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
