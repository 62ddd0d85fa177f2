/**
 * greytHR → hrx mapping table (src/hrms/greythr/README.md, "Requests", says which request reads
 * each list). greytHR splits an employee across list endpoints joined on the numeric `employeeId`;
 * many values are numeric ids into lists of values (`POST /hr/v2/lov`) or category values
 * (`/hr/v2/categories`).
 *
 * Sources (greytHR publishes its API as a Postman collection at https://api-docs.greythr.com/;
 * that page is rendered in the browser and no stored copy of its content was readable, so no row
 * quotes it yet, and every row below cites a secondary source, marked so):
 * - [A] Airbyte's greytHR connector, whose schemas were sampled live from greytHR (not the
 *   vendor's page): https://github.com/airbytehq/airbyte/blob/master/airbyte-integrations/connectors/source-greythr/manifest.yaml,
 *   by stream name (`Employees`, `Employee Statutory Details`, …).
 * - [K] Knit's greytHR use cases (not the vendor's page): https://developers.getknit.dev/docs/greythr-usecases
 * - [none] no public source seen: the connector reads every plausible key and the simulator
 *   switches between them (README "Simulator").
 *
 * | hrx | greytHR | source |
 * |---|---|---|
 * | employeeId | employees.employeeNo | [A] `Employees` |
 * | name | employees.name, else firstName middleName lastName | [A] `Employees` |
 * | email, personalEmail | employees.email, employees.personalEmail | [A] `Employees` |
 * | mobileNumber | employees.mobile | [A] `Employees` |
 * | gender | employees.gender (text) | [A] `Employees` (a string); its values: [none], `GENDERS` is hrx's table |
 * | dob, doj | employees.dateOfBirth, employees.dateOfJoin | [A] `Employees` (strings; the date format: [none], every format of README "What is mapped" is read) |
 * | terminationDate | separation.leavingDate, else employees.leavingDate; one before dateOfJoin is an earlier stint and ignored | [A] `Employee Separation Details`, `Employees` |
 * | status | employees.leftorg / separation.leftOrg: `Active`; left: `Terminated` when separation.leavingReason (list `LeavingReason`) says termination or dismissal, else `Inactive` | [A] `Employees` (`leftorg`), `Employee Separation Details` (`leftOrg`, `leavingReason` a number); the list's name and texts: [none]. greytHR's own `employees.status` is a number into a list of employment types, not a state, and is not read |
 * | maritalStatus, bloodGroup | personal.maritalStatus, personal.bloodGroup (lists `MaritalStatus`, `BloodGroup`) | [A] `Employees Personal Details` (numbers); the list names: [none] |
 * | nationality, fatherName | statutory.nationality (list `Nationality`), statutory.fatherName | [A] `Employee Statutory Details` |
 * | pan, aadhar | statutory.panNumber / pan / panNo / PAN, statutory.aadhaarNumber / aadhaar / aadharNumber / aadhar / aadhaarNo | [none]: [A]'s live-sampled `Employee Statutory Details` has no PAN or Aadhaar key; a tenant without one of these keys leaves the field empty |
 * | uan | pf.uan | [A] `Employee PF & ESI details` |
 * | bankDetails | bank.bankAccountNumber, bank.bankName (list `Bank`), bank.ifscCode / ifsc / IFSC, else bank.branchCode when it has an IFSC's shape | [A] `Employee Bank Details` (`bankAccountNumber`, `bankName` a number, `branchCode` a string); an IFSC key: [none] |
 * | department, designation, grade, costCenter, companyName, groupName, employmentType, jobLocation.city | categories.categoryList entry effective today whose category is Department, Designation, Grade, Cost Center, Company, Business Unit, Employee Type, Location | [A] `Employees Categories` (`descRequired=true`: `category`, `categoryDesc`, `value`, `valueDesc`, `effectiveFrom`, `effectiveTo`); category names are the tenant's; employee-type values: [none], `EMPLOYMENT_TYPES` is hrx's table |
 * | currentAddress, permanentAddress | addresses.addresses[] by addressType (Present/Current, Permanent) | [K] lists address details by type (so the data exists); the list endpoint and its keys: [none]; absent (404/403) → empty |
 *
 * Not mapped (no source gives them): manager and managerEmail..5, countryCode, marriage date,
 * dependents, salary (`/payroll/v2/salary/repository` has no known shape).
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { dayOf } from '../decode';
import { bloodGroup, enumValue, mobileNumber, text, isObj, obj, type Obj } from '../decode';

/** One employee's records, one per section (absent when the section has none for it). */
export interface GreythrParts {
  employees: Obj;
  personal?: Obj;
  statutory?: Obj;
  pf?: Obj;
  bank?: Obj;
  separation?: Obj;
  categories?: Obj;
  addresses?: Obj;
}

/** A name as greytHR's lists and categories spell it, reduced to lower-case letters (`Cost Centre` → `costcentre`). */
export const norm = (s: string): string => s.toLowerCase().replace(/[^a-z]/g, '');

/**
 * The lookups a connector instance loaded: lists of values by normalised name (id → text), and
 * categories by id (name, and value id → text).
 */
export interface GreythrLookups {
  lovs: Map<string, Map<string, string>>;
  categories: Map<string, { name: string; values: Map<string, string> }>;
}

/** The lists of values each numeric field needs, by the normalised names greytHR may give them. */
const LOV_NAMES: Readonly<Record<string, readonly string[]>> = {
  maritalStatus: ['maritalstatus'],
  bloodGroup: ['bloodgroup'],
  nationality: ['nationality'],
  bankName: ['bank', 'bankname'],
  leavingReason: ['leavingreason', 'separationreason', 'reasonforleaving'],
};
/**
 * The LOV names the connector asks `POST /hr/v2/lov` for (any of `LOV_NAMES` is read back).
 * No vendor page for this request was readable; public client code (not the vendor's page) posts a
 * bare JSON array of keys such as `lov::status` or `cat::Department` and reads
 * `{"lov::status": [[id, text], …]}`, which is neither what this sends nor what `parseLovs` reads
 * (src/hrms/greythr/README.md, "Requests").
 */
export const LOV_REQUEST = ['MaritalStatus', 'BloodGroup', 'Nationality', 'Bank', 'LeavingReason'];

/** Category names (normalised) → the record field they fill. */
const CATEGORY_FIELDS: Readonly<Record<string, string>> = {
  department: 'department',
  designation: 'designation',
  grade: 'grade',
  band: 'grade',
  costcenter: 'costCenter',
  costcentre: 'costCenter',
  company: 'companyName',
  legalentity: 'companyName',
  entity: 'companyName',
  businessunit: 'groupName',
  division: 'groupName',
  employeetype: 'employmentType',
  employmenttype: 'employmentType',
  location: 'location',
  worklocation: 'location',
  branch: 'location',
};

/** greytHR's employee types → hrx's words (docs/hrms/connectors.md, "Values keep their meaning"). */
export const EMPLOYMENT_TYPES: Readonly<Record<string, string>> = {
  PERMANENT: 'Full Time',
  FULL_TIME: 'Full Time',
  REGULAR: 'Full Time',
  CONFIRMED: 'Full Time',
  PART_TIME: 'Part Time',
  CONTRACT: 'Contract',
  CONTRACTUAL: 'Contract',
  TEMPORARY: 'Contract',
  CONSULTANT: 'Contract',
  TRAINEE: 'Intern',
  INTERN: 'Intern',
  APPRENTICE: 'Intern',
};
/** greytHR's `gender` text → hrx's words. */
export const GENDERS: Readonly<Record<string, string>> = {
  M: 'Male',
  MALE: 'Male',
  F: 'Female',
  FEMALE: 'Female',
  O: 'Other',
  OTHER: 'Other',
  TRANSGENDER: 'Other',
};
/** The marital statuses of greytHR's list → hrx's words. */
export const MARITAL: Readonly<Record<string, string>> = {
  SINGLE: 'Single',
  UNMARRIED: 'Single',
  MARRIED: 'Married',
  DIVORCED: 'Divorced',
  WIDOWED: 'Widowed',
  WIDOW: 'Widowed',
  WIDOWER: 'Widowed',
  SEPARATED: 'Separated',
};

/** Reports a field left empty because its value could not be translated (the field's name only). */
export type Warn = (field: string) => void;

/**
 * A lookup-backed value: a number (or numeric text) through list `field`'s values, text as it is.
 * An id the list does not know is left empty with a warning naming `where`.
 */
function listed(v: unknown, field: string, where: string, lk: GreythrLookups, warn: Warn): string | undefined {
  if (typeof v === 'string' && !/^\d+$/.test(v.trim())) return text(v);
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  const id = String(v).trim();
  for (const name of LOV_NAMES[field] ?? []) {
    const hit = lk.lovs.get(name)?.get(id);
    if (hit !== undefined) return text(hit);
  }
  warn(where);
  return undefined;
}

/** The category entries effective today (else the latest), by the record field they fill, resolved to text. */
function categoryValues(c: Obj | undefined, lk: GreythrLookups, warn: Warn, today: string): Record<string, string> {
  const list = Array.isArray(c?.categoryList) ? c.categoryList.filter(isObj) : [];
  const chosen = new Map<string, { from: string; to: string; value: string | undefined }>();
  for (const entry of list) {
    const cat = lk.categories.get(String(entry.category));
    const name = text(entry.categoryDesc) ?? cat?.name;
    const field = name ? CATEGORY_FIELDS[norm(name)] : undefined;
    if (!field) continue;
    const from = dayOf(entry.effectiveFrom) ?? '0000-00-00',
      to = dayOf(entry.effectiveTo) ?? '9999-12-31';
    const current = from <= today && today <= to;
    const prev = chosen.get(field);
    const prevCurrent = prev !== undefined && prev.from <= today && today <= prev.to;
    if (prev && ((prevCurrent && !current) || (prevCurrent === current && prev.from > from))) continue;
    const value = text(entry.valueDesc) ?? cat?.values.get(String(entry.value));
    if (value === undefined && entry.value !== undefined && entry.value !== null) warn(`categories.${norm(name!)}`);
    chosen.set(field, { from, to, value });
  }
  return Object.fromEntries([...chosen].flatMap(([k, v]) => (v.value === undefined ? [] : [[k, v.value]])));
}

const pick = (o: Obj | undefined, ...keys: string[]): unknown => keys.map((k) => o?.[k]).find((v) => v !== undefined && v !== null && v !== '');
const IFSC = /^[A-Z]{4}0[A-Z0-9]{6}$/;
const compactUpper = (v: unknown): string | undefined => text(v)?.replace(/\s/g, '').toUpperCase();

function address(a: Obj) {
  const line = [text(a.address1), text(a.address2), text(a.address3)].filter((x) => x !== undefined).join(', ');
  return {
    addressLine: line || undefined,
    addressCity: text(a.city),
    addressState: text(a.state),
    addressCountry: text(a.country),
    addressPincode: text(pick(a, 'pin', 'pincode', 'zip'))?.replace(/\s/g, ''),
  };
}

function addresses(a: Obj | undefined): Pick<PartialEmployeeRecord, 'currentAddress' | 'permanentAddress'> {
  const list = Array.isArray(a?.addresses) ? a.addresses.filter(isObj) : [];
  const of = (re: RegExp) => {
    const hit = list.find((x) => re.test(text(x.addressType) ?? ''));
    return hit && address(hit);
  };
  return { currentAddress: of(/present|current|communication|residential/i), permanentAddress: of(/permanent/i) };
}

/**
 * One employee assembled from its section records (`parts`), with `lookups` resolving ids and
 * `today` (`YYYY-MM-DD`) choosing effective-dated categories. `undefined` when the core record has
 * no `employeeNo` (nothing to key it by).
 */
export function mapGreythrEmployee(parts: GreythrParts, lookups: GreythrLookups, warn: Warn, today: string): PartialEmployeeRecord | undefined {
  const { employees: e, personal: p, statutory: s, pf, bank: b, separation: sep } = parts;
  const employeeId = text(e.employeeNo);
  if (employeeId === undefined) return undefined;
  const cat = categoryValues(parts.categories, lookups, warn, today);
  const doj = dayOf(e.dateOfJoin);
  const leaving = dayOf(sep?.leavingDate) ?? dayOf(e.leavingDate);
  const left = e.leftorg === true || sep?.leftOrg === true;
  const reason = sep && listed(sep.leavingReason, 'leavingReason', 'separation.leavingReason', lookups, warn);
  const ifsc = compactUpper(pick(b, 'ifscCode', 'ifsc', 'IFSC')) ?? [compactUpper(b?.branchCode)].find((x) => x !== undefined && IFSC.test(x));
  const names = [text(e.firstName), text(e.middleName), text(e.lastName)].filter((x) => x !== undefined).join(' ');
  return {
    employeeId,
    name: text(e.name) ?? (names || undefined),
    email: text(e.email)?.toLowerCase(),
    personalEmail: text(e.personalEmail)?.toLowerCase(),
    mobileNumber: mobileNumber(e.mobile),
    gender: enumValue(GENDERS, e.gender),
    dob: dayOf(e.dateOfBirth),
    doj,
    terminationDate: leaving !== undefined && (doj === undefined || leaving >= doj) ? leaving : undefined,
    status: !left ? 'Active' : /terminat|dismiss/i.test(reason ?? '') ? 'Terminated' : 'Inactive',
    maritalStatus: enumValue(MARITAL, p && listed(p.maritalStatus, 'maritalStatus', 'personal.maritalStatus', lookups, warn)),
    bloodGroup: bloodGroup(p && listed(p.bloodGroup, 'bloodGroup', 'personal.bloodGroup', lookups, warn)),
    nationality: s && listed(s.nationality, 'nationality', 'statutory.nationality', lookups, warn),
    fatherName: text(s?.fatherName),
    pan: compactUpper(pick(s, 'panNumber', 'pan', 'panNo', 'PAN')),
    aadhar: compactUpper(pick(s, 'aadhaarNumber', 'aadhaar', 'aadharNumber', 'aadhar', 'aadhaarNo')),
    uan: compactUpper(pf?.uan),
    bankDetails: {
      accountNumber: text(b?.bankAccountNumber)?.replace(/\s/g, ''),
      ifscCode: ifsc,
      bankName: b && listed(b.bankName, 'bankName', 'bank.bankName', lookups, warn),
    },
    department: cat.department,
    designation: cat.designation,
    grade: cat.grade,
    costCenter: cat.costCenter,
    companyName: cat.companyName,
    groupName: cat.groupName,
    employmentType: enumValue(EMPLOYMENT_TYPES, cat.employmentType),
    jobLocation: { city: cat.location },
    ...addresses(parts.addresses),
  };
}

/** Parses `POST /hr/v2/lov`'s answer: `{data: [{name, values: [{id, description}]}]}` or `{Name: {id: text}}` (shape `?`). */
export function parseLovs(body: unknown): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const b = obj(body);
  const lists = Array.isArray(b.data) ? b.data : Array.isArray(body) ? body : undefined;
  if (lists) {
    for (const l of lists.filter(isObj)) {
      const name = text(l.name ?? l.lovName ?? l.type);
      const values = Array.isArray(l.values) ? l.values.filter(isObj) : [];
      if (name) out.set(norm(name), new Map(values.flatMap((v) => idText(v))));
    }
    return out;
  }
  for (const [name, values] of Object.entries(b)) {
    if (isObj(values)) out.set(norm(name), new Map(Object.entries(values).flatMap(([id, t]) => (text(t) ? [[id, text(t)!]] : []))));
  }
  return out;
}

/** `[id, text]` of one lookup entry, whichever keys carry them (`id`/`value`, `description`/`name`/`valueDesc`). */
function idText(v: Obj): [string, string][] {
  const id = v.id ?? v.value ?? v.valueId,
    t = text(v.description ?? v.name ?? v.valueDesc ?? v.label);
  return (typeof id === 'number' || typeof id === 'string') && t ? [[String(id), t]] : [];
}

/** Parses `GET /hr/v2/categories`: `[{id, description, values: [{id, description}]}]` in `data` (key spellings `?`). */
export function parseCategories(body: unknown): GreythrLookups['categories'] {
  const out: GreythrLookups['categories'] = new Map();
  const b = obj(body);
  const list = Array.isArray(b.data) ? b.data : Array.isArray(body) ? body : [];
  for (const c of list.filter(isObj)) {
    const [entry] = idText({ id: c.id ?? c.category, description: c.description ?? c.categoryDesc ?? c.name });
    if (!entry) continue;
    const values = Array.isArray(c.values) ? c.values.filter(isObj) : [];
    out.set(entry[0], { name: entry[1], values: new Map(values.flatMap((v) => idText(v))) });
  }
  return out;
}
