/**
 * Darwinbox Employee Master row -> hrx `PartialEmployeeRecord` (src/hrms/darwinbox/README.md,
 * "Requests", says which request returns the rows).
 *
 * A Darwinbox dataset's columns are configured per tenant (which fields, sometimes nested records
 * that clients flatten with dot keys), so every data point is read from the first of several
 * plausible column names that holds a value; a column the dataset lacks leaves the data point
 * empty (`NOT AVAILABLE`), never guessed. Unknown columns are ignored.
 *
 * Sources. Darwinbox's own API page (https://api-docs.darwinbox.com/view/metadata/SWDzg2Pp,
 * "Authentication" › "1. Basic Auth") documents the Employee Master request, but no column of its
 * answer could be read in the stored copy, so no row cites it; every row cites a secondary source:
 * - [M] Merge's Darwinbox setup guide, the `masterapi` fields to ask Darwinbox to enable (not the
 *   vendor's page): https://help.merge.dev/en/articles/9681620
 * - [S] public client code calling `/masterapi/employee` (not the vendor's page; no stable address
 *   recorded): date formats `YYYY-MM-DD`, `DD-MM-YYYY`, `DD/MM/YYYY`, `DD-Mon-YYYY`; `0000-00-00`,
 *   `-`, `NA` empty; nested records flattened with dot keys; `direct_manager` as `"Name (ID)"`;
 *   `direct_manager_email`, `job_level`, `band`, `group_date_of_joining`
 * - [none] no public source names the column or lists the values: hrx's own fallback or table.
 *   An enumeration value outside hrx's table is kept as Darwinbox wrote it (`enumValue`).
 *
 * | record data point | Darwinbox column (first present wins) | source |
 * |---|---|---|
 * | employeeId | employee_id; employee_no, employee_code | [M]; fallbacks [none] |
 * | name | full_name, else first_name + middle_name + last_name | [M] (`middle_name` [none]) |
 * | email | company_email_id; official_email_id, email | [M]; fallbacks [none] |
 * | personalEmail | personal_email_id; personal_email | [M]; fallback [none] |
 * | mobileNumber | personal_mobile_no; mobile_no, mobile_number | [M]; fallbacks [none] |
 * | gender | gender (Male/Female/Other) | [M]; values [none] |
 * | maritalStatus | marital_status | [M]; values [none] |
 * | dob | date_of_birth | [M], formats [S] |
 * | doj | date_of_joining; group_date_of_joining | [M]; [S] |
 * | status | employee_status (Active, Inactive, Terminated, Resigned, Notice Period...) | [M]; values [none] |
 * | employmentType | employee_type (Permanent, Full Time, Contractual, Intern...) | [M]; values [none] |
 * | terminationDate | date_of_exit; exit_date | [M]; fallback [none] |
 * | companyName | group_company | [M] |
 * | groupName | business_unit | [M] |
 * | department | department_name; department | [M]; fallback [none] |
 * | designation | designation_name; designation | [M]; fallback [none] |
 * | grade | job_level, band; grade | [S] (not in [M]'s list); `grade` [none] |
 * | costCenter | cost_center_name, cost_center_id | [M] |
 * | manager | direct_manager ("Name (ID)": the name part); direct_manager_name | [S]; fallback [none] ([M] lists only `direct_manager_employee_id`) |
 * | managerEmail | direct_manager_email | [S] (not in [M]'s list) |
 * | currentAddress / permanentAddress | current_* / permanent_*: address_line_1 (+ _2), city, state, pin_code, country (also `current_address.*`) | [M] for `address_line_1`, `city`, `pin_code`, `country`; `address_line_2`, `state` [none]; the nested form [S] |
 * | jobLocation.city | office_city, office_location | [M] |
 * | pan, aadhar, uan, bloodGroup, nationality, fatherName | pan_number/pan, aadhaar_number/aadhar_number, uan_number/uan, blood_group, nationality, father_name: only when the tenant's dataset has such columns | [none]: no public source names such columns; a dataset without them leaves these empty |
 *
 * Not mapped: managerEmail2..5 (no source names a column for managers above the direct one: [M]
 * lists `direct_manager_employee_id` only; walking it needs the whole dataset in memory, against
 * the streamed read of docs/hrms/connectors.md "A whole dataset in one answer is read as a
 * stream", and misses managers on incremental syncs: NOT AVAILABLE), bank details, dependents,
 * marriage date and countryCode (no columns seen). Salary is not on the dataset: it comes from
 * the payroll API with a key of its own (`payroll.ts`, its own mapping table).
 */
import { HrmsError } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { bloodGroup, compact, enumValue, isoDate, mobileNumber, text } from '../decode';

type Row = Record<string, unknown>;

const isObj = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `employee_status` -> hrx `status` (keys: upper case, spaces and dashes as `_`). */
export const DARWINBOX_STATUS: Readonly<Record<string, string>> = {
  ACTIVE: 'Active',
  CONFIRMED: 'Active',
  PROBATION: 'Active',
  NOTICE_PERIOD: 'Active',
  ON_NOTICE: 'Active',
  SERVING_NOTICE: 'Active',
  INACTIVE: 'Inactive',
  RESIGNED: 'Inactive',
  EXITED: 'Inactive',
  SEPARATED: 'Inactive',
  RELIEVED: 'Inactive',
  RETIRED: 'Inactive',
  TERMINATED: 'Terminated',
  ABSCONDED: 'Terminated',
  DISMISSED: 'Terminated',
};
/** `employee_type` -> hrx `employmentType`. */
export const DARWINBOX_EMPLOYEE_TYPE: Readonly<Record<string, string>> = {
  PERMANENT: 'Full Time',
  FULL_TIME: 'Full Time',
  FULLTIME: 'Full Time',
  REGULAR: 'Full Time',
  CONFIRMED: 'Full Time',
  PART_TIME: 'Part Time',
  PARTTIME: 'Part Time',
  CONTRACT: 'Contract',
  CONTRACTUAL: 'Contract',
  CONTRACTOR: 'Contract',
  TEMPORARY: 'Contract',
  CONSULTANT: 'Contract',
  FIXED_TERM: 'Contract',
  INTERN: 'Intern',
  INTERNSHIP: 'Intern',
  TRAINEE: 'Intern',
  APPRENTICE: 'Intern',
};
/** `gender` -> hrx `gender`. */
export const DARWINBOX_GENDER: Readonly<Record<string, string>> = {
  MALE: 'Male',
  M: 'Male',
  FEMALE: 'Female',
  F: 'Female',
  OTHER: 'Other',
  OTHERS: 'Other',
  O: 'Other',
  TRANSGENDER: 'Other',
  NON_BINARY: 'Other',
};
/** `marital_status` -> hrx `maritalStatus`. */
export const DARWINBOX_MARITAL: Readonly<Record<string, string>> = {
  SINGLE: 'Single',
  UNMARRIED: 'Single',
  MARRIED: 'Married',
  DIVORCED: 'Divorced',
  WIDOWED: 'Widowed',
  WIDOW: 'Widowed',
  WIDOWER: 'Widowed',
};

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** Values Darwinbox tenants use for "no date" [S]. */
const NO_DATE = new Set(['0000-00-00', '00-00-0000', '00/00/0000', '-', 'NA', 'N/A', 'NULL']);

/**
 * A Darwinbox date -> `YYYY-MM-DD`: `YYYY-MM-DD`, `DD-MM-YYYY`, `DD/MM/YYYY` (day first: Indian
 * tenants), `DD-Mon-YYYY` (`05-Mar-2021`, any case), each optionally followed by a time, which is
 * dropped. Blank, `0000-00-00`, `-`, `NA` and impossible dates -> undefined (empty).
 */
export function darwinboxDate(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined || NO_DATE.has(t.toUpperCase())) return undefined;
  const day = t.split(/[ T]/)[0]!;
  const mon = /^(\d{1,2})[-/ ]([A-Za-z]{3})[A-Za-z]*[-/ ](\d{4})$/.exec(day);
  if (mon) {
    const m = MONTHS.indexOf(mon[2]!.toUpperCase());
    return m < 0 ? undefined : isoDate(`${mon[1]}-${m + 1}-${mon[3]}`);
  }
  return isoDate(day);
}

/** The name part of a `"Name (ID)"` manager string (`"Ravi Kumar (EMP001)"` -> `Ravi Kumar`); a string without `(…)` as is. */
export function managerName(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const name = t.replace(/\s*\([^()]*\)\s*$/, '').trim();
  return name === '' ? undefined : name;
}

/**
 * The row with nested objects flattened into dot keys (`current_address.city`), as clients of
 * tenants whose datasets nest records do [S]; arrays are left as they are.
 */
export function flatten(row: Row, prefix = '', out: Row = {}): Row {
  for (const [k, v] of Object.entries(row)) {
    if (isObj(v)) flatten(v, `${prefix}${k}.`, out);
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

/** The first of `keys` whose value is non-blank text (a number counts), as trimmed text. */
function pick(row: Row, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const t = text(row[k]);
    if (t !== undefined && !NO_DATE.has(t.toUpperCase())) return t;
  }
  return undefined;
}

const lower = (v: string | undefined): string | undefined => v?.toLowerCase();
const compactId = (v: string | undefined): string | undefined => v?.replace(/\s/g, '').toUpperCase();

function address(row: Row, kind: 'current' | 'permanent') {
  const k = (...names: string[]): string[] => names.flatMap((n) => [`${kind}_${n}`, `${kind}_address.${n}`]);
  const line = [pick(row, ...k('address_line_1', 'address_line1', 'line_1')), pick(row, ...k('address_line_2', 'address_line2', 'line_2'))]
    .filter((x) => x !== undefined)
    .join(', ');
  return {
    addressLine: line === '' ? pick(row, `${kind}_address`) : line,
    addressCity: pick(row, ...k('city')),
    addressState: pick(row, ...k('state')),
    addressPincode: pick(row, ...k('pin_code', 'pincode', 'zip_code'))?.replace(/\s/g, ''),
    addressCountry: pick(row, ...k('country')),
  };
}

/**
 * Maps one Employee Master row. Throws `HrmsError('bad_response')` when it is not an object or has
 * no employee id (the message carries no employee values).
 */
export function mapDarwinboxEmployee(native: unknown): PartialEmployeeRecord {
  if (!isObj(native)) throw new HrmsError('bad_response', 'Darwinbox returned an employee that is not an object');
  const row = flatten(native);
  const employeeId = pick(row, 'employee_id', 'employee_no', 'employee_code');
  if (employeeId === undefined) throw new HrmsError('bad_response', 'Darwinbox returned an employee without employee_id');
  const parts = [pick(row, 'first_name'), pick(row, 'middle_name'), pick(row, 'last_name')].filter((x) => x !== undefined).join(' ');
  const record: PartialEmployeeRecord = {
    employeeId,
    name: pick(row, 'full_name', 'employee_name') ?? (parts === '' ? undefined : parts),
    email: lower(pick(row, 'company_email_id', 'official_email_id', 'email')),
    personalEmail: lower(pick(row, 'personal_email_id', 'personal_email')),
    mobileNumber: mobileNumber(pick(row, 'personal_mobile_no', 'mobile_no', 'mobile_number')),
    gender: enumValue(DARWINBOX_GENDER, pick(row, 'gender')),
    maritalStatus: enumValue(DARWINBOX_MARITAL, pick(row, 'marital_status')),
    dob: darwinboxDate(pick(row, 'date_of_birth')),
    doj: darwinboxDate(pick(row, 'date_of_joining', 'group_date_of_joining')),
    status: enumValue(DARWINBOX_STATUS, pick(row, 'employee_status')),
    employmentType: enumValue(DARWINBOX_EMPLOYEE_TYPE, pick(row, 'employee_type')),
    terminationDate: darwinboxDate(pick(row, 'date_of_exit', 'exit_date')),
    companyName: pick(row, 'group_company'),
    groupName: pick(row, 'business_unit'),
    department: pick(row, 'department_name', 'department'),
    designation: pick(row, 'designation_name', 'designation'),
    grade: pick(row, 'job_level', 'band', 'grade'),
    costCenter: pick(row, 'cost_center_name', 'cost_center_id'),
    manager: managerName(pick(row, 'direct_manager', 'direct_manager_name')),
    managerEmail: lower(pick(row, 'direct_manager_email')),
    pan: compactId(pick(row, 'pan_number', 'pan', 'pan_no')),
    aadhar: compactId(pick(row, 'aadhaar_number', 'aadhar_number', 'aadhaar', 'aadhaar_no')),
    uan: compactId(pick(row, 'uan_number', 'uan', 'uan_no')),
    bloodGroup: bloodGroup(pick(row, 'blood_group')),
    nationality: pick(row, 'nationality'),
    fatherName: pick(row, 'father_name', 'fathers_name'),
    currentAddress: address(row, 'current'),
    permanentAddress: address(row, 'permanent'),
    jobLocation: { city: pick(row, 'office_city', 'office_location') },
  };
  return compact(record);
}
