/**
 * The Keka simulator's employees: the canonical employee (`data.ts`) as Keka's `EmployeeProfile`
 * (numeric enumerations through the simulated tenant's label table, date-times, groups by type,
 * `reportsTo`/`l2Manager`, structured addresses, `relations`), and the ground truth hrx must
 * store for it, written from the canonical employee and Keka's documented mapping table (not
 * through the connector's decoders).
 */
import { createHash } from 'node:crypto';
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { NativeAddress, NativeEmployee } from '../../sim/data';
import { bloodOf, dmy, fullNameOf, hasNoBirthDate, isoOf, isWorking, orNone, tenDigits } from '../../sim/kit';
import { KEKA_DEFINED_CODES } from '../mapping';

/**
 * The simulated tenant's enumeration codes (Keka publishes none, research `?`): which number the
 * tenant's Keka sends for each canonical value. Switch with the `labels` variant (JSON, merged
 * table by table).
 */
export interface KekaSimLabels {
  gender: Record<'M' | 'F' | 'O', number>;
  maritalStatus: Record<'SINGLE' | 'MARRIED' | 'DIVORCED' | 'WIDOWED', number>;
  bloodGroup: Record<'A+' | 'A-' | 'B+' | 'B-' | 'AB+' | 'AB-' | 'O+' | 'O-', number>;
  workerType: Record<'permanent' | 'contingent' | 'intern', number>;
  timeType: Record<'full' | 'part', number>;
  relationType: Record<'SPOUSE' | 'SON' | 'DAUGHTER' | 'FATHER' | 'MOTHER', number>;
  groupType: Record<'department' | 'businessUnit' | 'costCenter' | 'legalEntity' | 'location', number>;
  employmentStatus: Record<'working' | 'relieved', number>;
}

/**
 * Default codes of the simulated tenant, each within the numbers Keka's description defines for
 * that enumeration (keka/openapi/rules.yaml): marital status has three (0, 1, 2), so this tenant
 * writes widowed and divorced both as 2; invitation status is 0 or 1.
 */
export const DEFAULT_KEKA_SIM_LABELS: KekaSimLabels = {
  gender: { M: 1, F: 2, O: 3 },
  maritalStatus: { SINGLE: 0, MARRIED: 1, WIDOWED: 2, DIVORCED: 2 },
  bloodGroup: { 'A+': 1, 'A-': 2, 'B+': 3, 'B-': 4, 'AB+': 5, 'AB-': 6, 'O+': 7, 'O-': 8 },
  workerType: { permanent: 0, contingent: 1, intern: 2 },
  timeType: { full: 0, part: 1 },
  relationType: { FATHER: 0, MOTHER: 1, SPOUSE: 2, SON: 3, DAUGHTER: 4 },
  groupType: { department: 1, businessUnit: 2, costCenter: 3, legalEntity: 4, location: 5 },
  employmentStatus: { working: 0, relieved: 1 },
};

/** The largest code Keka's description defines per table (keka/openapi/rules.yaml; `EmploymentStatus` K:9767: 0, 1). */
const MAX_CODE: Readonly<Record<keyof KekaSimLabels, number>> = { ...KEKA_DEFINED_CODES, employmentStatus: 1 };

/**
 * `DEFAULT_KEKA_SIM_LABELS` with `json`'s tables merged in; a malformed value, or a code Keka's
 * description does not define for that table (the simulator answers only what it describes), is
 * a `RangeError`.
 */
export function simLabels(json: string | undefined): KekaSimLabels {
  if (json === undefined) return DEFAULT_KEKA_SIM_LABELS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new RangeError('variant labels must be JSON');
  }
  const out: KekaSimLabels = structuredClone(DEFAULT_KEKA_SIM_LABELS);
  if (typeof parsed !== 'object' || parsed === null) throw new RangeError('variant labels must be a JSON object');
  for (const [table, codes] of Object.entries(parsed as Record<string, unknown>)) {
    if (!Object.hasOwn(out, table) || typeof codes !== 'object' || codes === null) throw new RangeError(`variant labels: unknown table ${table}`);
    const target: Record<string, number> = out[table as keyof KekaSimLabels];
    for (const [k, v] of Object.entries(codes)) {
      if (!Object.hasOwn(target, k) || typeof v !== 'number' || !Number.isInteger(v))
        throw new RangeError(`variant labels: ${table}.${k} must be a known key with an integer`);
      if (v < 0 || v > MAX_CODE[table as keyof KekaSimLabels]) throw new RangeError(`variant labels: ${table}.${k} is not a code Keka defines`);
      target[k] = v;
    }
  }
  return out;
}

/** The connector's `enumLabels` that match `l`: what an operator configures after checking the tenant. */
export function hrxLabelsFor(l: KekaSimLabels): Record<string, Record<string, string>> {
  const inv = <K extends string>(codes: Record<K, number>, words: Record<K, string>) =>
    Object.fromEntries(Object.entries(codes).map(([k, code]) => [String(code), words[k as K]]));
  return {
    gender: inv(l.gender, { M: 'Male', F: 'Female', O: 'Other' }),
    maritalStatus: inv(l.maritalStatus, { SINGLE: 'Single', MARRIED: 'Married', DIVORCED: 'Divorced', WIDOWED: 'Widowed' }),
    bloodGroup: inv(l.bloodGroup, { 'A+': 'A+', 'A-': 'A-', 'B+': 'B+', 'B-': 'B-', 'AB+': 'AB+', 'AB-': 'AB-', 'O+': 'O+', 'O-': 'O-' }),
    workerType: inv(l.workerType, { permanent: 'Full Time', contingent: 'Contract', intern: 'Intern' }),
    timeType: inv(l.timeType, { full: 'Full Time', part: 'Part Time' }),
    relationType: inv(l.relationType, { SPOUSE: 'Spouse', SON: 'Son', DAUGHTER: 'Daughter', FATHER: 'Father', MOTHER: 'Mother' }),
    groupType: Object.fromEntries(
      Object.entries({ department: 'department', businessUnit: 'groupName', costCenter: 'costCenter', legalEntity: 'companyName' }).map(([k, field]) => [
        String(l.groupType[k as keyof KekaSimLabels['groupType']]),
        field,
      ]),
    ),
  };
}

/** How dates are written: `…T00:00:00`, `…T00:00:00Z`, the Indian midnight as a UTC instant (`…T18:30:00Z` the day before), or `YYYY-MM-DD`. */
export type KekaDateFormat = 'iso' | 'isoZ' | 'istInstant' | 'date';
export const KEKA_DATE_FORMATS: readonly KekaDateFormat[] = ['iso', 'isoZ', 'istInstant', 'date'];

/** How the simulator renders (the switches of render). */
export interface KekaRenderOptions {
  seed: string | number;
  labels: KekaSimLabels;
  dateFormat: KekaDateFormat;
  /** Empty dates as .NET's `0001-01-01T00:00:00` rather than `null` (for the awkward cases). */
  zeroDates: boolean;
}

/** A stable UUID for `key` under `seed`. */
export function uuidOf(seed: string | number, key: string): string {
  const h = createHash('sha256').update(`${seed}|keka|${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function date(v: string | null | undefined, o: KekaRenderOptions): string | null {
  const p = dmy(v);
  if (!p) return o.zeroDates ? '0001-01-01T00:00:00' : null;
  const iso = `${p.y}-${String(p.m).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
  if (o.dateFormat === 'date') return iso;
  if (o.dateFormat === 'iso') return `${iso}T00:00:00`;
  if (o.dateFormat === 'isoZ') return `${iso}T00:00:00Z`;
  return new Date(Date.UTC(p.y, p.m - 1, p.d) - 330 * 60_000).toISOString().replace('.000Z', 'Z');
}

/** Splits a full name into Keka's first and last name (the last word is the last name). */
function split(name: string): { firstName: string; lastName: string } {
  const k = name.lastIndexOf(' ');
  return k < 0 ? { firstName: name, lastName: '' } : { firstName: name.slice(0, k), lastName: name.slice(k + 1) };
}

const address = (a: NativeAddress | null | undefined) =>
  a
    ? {
        addressLine1: a.line1,
        addressLine2: a.line2 || null,
        city: a.city,
        state: a.state,
        countryCode: 'IN',
        zip: a.pincode,
      }
    : null;

const workerOf = (e: NativeEmployee) => (e.employment_type === 'CONTRACT' ? 'contingent' : e.employment_type === 'INTERN' ? 'intern' : 'permanent');

/** `v` when it is neither null nor undefined, else nothing: a property Keka's description does not let be null is left out. */
const present = <K extends string>(key: K, v: unknown): Partial<Record<K, unknown>> =>
  v === null || v === undefined ? {} : ({ [key]: v } as Record<K, unknown>);

/**
 * Employee `i` as Keka's `EmployeeProfile`, as its description defines it (keka/openapi/rules.yaml):
 * enumerations within their defined numbers, date-times with an offset, and the object and
 * enumeration properties the description does not let be null left out rather than null.
 */
export function renderKekaEmployee(i: number, e: NativeEmployee, o: KekaRenderOptions): Record<string, unknown> {
  const l = o.labels;
  const blood = bloodOf(e.blood_group) as keyof KekaSimLabels['bloodGroup'] | undefined;
  const mgr = e.reporting_manager;
  const group = (type: keyof KekaSimLabels['groupType'], title: string) =>
    title ? [{ id: uuidOf(o.seed, `g|${type}|${title}`), title, groupType: l.groupType[type] }] : [];
  return {
    id: uuidOf(o.seed, e.employee_code),
    employeeNumber: e.employee_code,
    displayName: fullNameOf(e),
    firstName: e.first_name,
    middleName: e.middle_name || null,
    lastName: e.last_name,
    email: e.official_email,
    personalEmail: e.personal_email || null,
    mobilePhone: e.mobile,
    workPhone: null,
    homePhone: null,
    countryCode: e.country,
    dateOfBirth: hasNoBirthDate(i) ? date(null, o) : date(e.date_of_birth, o),
    joiningDate: date(e.date_of_joining, o),
    marriageDate: date(e.marriage_date, { ...o, zeroDates: o.zeroDates && e.marital_status !== 'SINGLE' }),
    exitDate: e.exit_date ? date(e.exit_date, o) : null,
    resignationSubmittedDate: null,
    exitReason: null,
    probationEndDate: null,
    gender: l.gender[e.gender as 'M'],
    maritalStatus: l.maritalStatus[e.marital_status as 'SINGLE'],
    ...present('bloodGroup', blood ? l.bloodGroup[blood] : null),
    employmentStatus: isWorking(e) ? l.employmentStatus.working : l.employmentStatus.relieved,
    accountStatus: 1,
    invitationStatus: 1,
    workerType: l.workerType[workerOf(e)],
    timeType: e.employment_type === 'PART_TIME' ? l.timeType.part : l.timeType.full,
    ...present('jobTitle', e.designation ? { identifier: uuidOf(o.seed, `t|${e.designation}`), title: e.designation } : null),
    payGradeInfo: { identifier: uuidOf(o.seed, `pg|${e.grade}`), title: e.grade },
    groups: [
      ...group('department', e.department),
      ...group('businessUnit', e.business_unit),
      ...group('costCenter', e.cost_center),
      ...group('legalEntity', e.legal_entity),
      ...group('location', e.work_location.city),
    ],
    city: e.work_location.city,
    ...present('reportsTo', mgr ? { id: uuidOf(o.seed, mgr.email), email: mgr.email, ...split(mgr.name) } : null),
    ...present(
      'l2Manager',
      e.skip_level_managers[0] ? { id: uuidOf(o.seed, e.skip_level_managers[0]), email: e.skip_level_managers[0], firstName: null, lastName: null } : null,
    ),
    ...present('currentAddress', address(e.current_address)),
    ...present('permanentAddress', address(e.permanent_address)),
    relations: e.dependents.map((d) => ({
      id: uuidOf(o.seed, `r|${e.employee_code}|${d.full_name}`),
      relationType: l.relationType[d.relationship as 'SPOUSE'],
      gender: l.gender[d.gender as 'M'],
      displayName: d.full_name,
      ...split(d.full_name),
      dateOfBirth: d.date_of_birth ? date(d.date_of_birth, o) : null,
      email: d.email,
      mobile: d.phone,
      profession: d.occupation,
    })),
    customFields: [],
    educationDetails: [],
    experienceDetails: [],
  };
}

const addressTruth = (a: NativeAddress | null | undefined) =>
  a
    ? {
        addressLine: [a.line1, a.line2].filter(Boolean).join(', '),
        addressCity: a.city,
        addressState: a.state,
        addressPincode: a.pincode,
        addressCountry: 'IN',
      }
    : undefined;

/**
 * What hrx must store for employee `i` (Keka's mapping table, src/hrms/keka/README.md): the
 * enumerations and group types only where `known` (hrx's label tables for this tenant) has the
 * code the tenant sends.
 */
export function kekaTruth(i: number, e: NativeEmployee, o: KekaRenderOptions, known: Record<string, Record<string, string>>): PartialEmployeeRecord {
  const l = o.labels;
  const word = (table: string, code: number | undefined) => (code === undefined ? undefined : known[table]?.[String(code)]);
  const blood = bloodOf(e.blood_group) as keyof KekaSimLabels['bloodGroup'] | undefined;
  const worker = word('workerType', l.workerType[workerOf(e)]);
  const time = word('timeType', e.employment_type === 'PART_TIME' ? l.timeType.part : l.timeType.full);
  const groups: Record<string, string> = {};
  for (const [type, title] of [
    ['department', e.department],
    ['businessUnit', e.business_unit],
    ['costCenter', e.cost_center],
    ['legalEntity', e.legal_entity],
    ['location', e.work_location.city],
  ] as const) {
    const field = word('groupType', l.groupType[type]);
    if (field && title && !(field in groups)) groups[field] = title;
  }
  const dependents = e.dependents.map((d) => ({
    name: d.full_name,
    relation: word('relationType', l.relationType[d.relationship as 'SPOUSE']),
    dob: isoOf(d.date_of_birth),
    email: orNone(d.email),
    gender: word('gender', l.gender[d.gender as 'M']),
    mobileNumber: tenDigits(d.phone),
    profession: orNone(d.occupation),
  }));
  return {
    employeeId: e.employee_code,
    name: fullNameOf(e),
    email: e.official_email,
    personalEmail: orNone(e.personal_email),
    mobileNumber: tenDigits(e.mobile),
    countryCode: e.country,
    dob: hasNoBirthDate(i) ? undefined : isoOf(e.date_of_birth),
    doj: isoOf(e.date_of_joining),
    terminationDate: isoOf(e.exit_date),
    employeeMetadata: { marriageDate: isoOf(e.marriage_date) },
    status: isWorking(e) ? 'Active' : 'Inactive',
    employmentType: time === 'Part Time' && (worker === undefined || worker === 'Full Time') ? 'Part Time' : worker,
    gender: word('gender', l.gender[e.gender as 'M']),
    maritalStatus: word('maritalStatus', l.maritalStatus[e.marital_status as 'SINGLE']),
    bloodGroup: blood ? word('bloodGroup', l.bloodGroup[blood]) : undefined,
    designation: orNone(e.designation),
    grade: e.grade,
    ...groups,
    manager: e.reporting_manager?.name,
    managerEmail: e.reporting_manager?.email,
    managerEmail2: e.skip_level_managers[0],
    fatherName: dependents.find((d) => d.relation === 'Father')?.name,
    jobLocation: { city: e.work_location.city },
    currentAddress: addressTruth(e.current_address),
    permanentAddress: addressTruth(e.permanent_address),
    dependentDetails: dependents,
  };
}
