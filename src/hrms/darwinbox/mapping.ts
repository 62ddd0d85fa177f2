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
 * The mapping is the rows of `DARWINBOX_MAPPING` (src/hrms/mapping-table.ts): each row's fields are
 * the columns it reads, the first present wins; its source one of the above. The README's "What
 * is mapped" table is written from them by `npm run docs`.
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
import { bloodGroup, enumValue, isoDate, mobileNumber, text } from '../decode';
import { mapByRows, type MappingRow, type MappingTable } from '../mapping-table';

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

/** A row reading the first of `columns` holding a value, through `decode`. */
const col = (point: string, columns: readonly string[], source: string, decode: (v: string | undefined) => unknown = (v) => v, note?: string): MappingRow => ({
  point,
  fields: columns,
  read: (row) => decode(pick(row, ...columns)),
  source,
  ...(note ? { note } : {}),
});

/** The columns of an address part: `current_city` and the nested `current_address.city`, per name. */
const addressColumns = (kind: 'current' | 'permanent', ...names: string[]): string[] => names.flatMap((n) => [`${kind}_${n}`, `${kind}_address.${n}`]);

function addressRows(kind: 'current' | 'permanent'): MappingRow[] {
  const line1 = addressColumns(kind, 'address_line_1', 'address_line1', 'line_1'),
    line2 = addressColumns(kind, 'address_line_2', 'address_line2', 'line_2');
  const src = '[M] for `address_line_1`, `city`, `pin_code`, `country`; `address_line_2`, `state` [none]; the nested form [S]';
  return [
    {
      point: `${kind}Address.addressLine`,
      fields: [...line1, ...line2, `${kind}_address`],
      read: (row) => [pick(row, ...line1), pick(row, ...line2)].filter((x) => x !== undefined).join(', ') || pick(row, `${kind}_address`),
      source: src,
      note: 'line 1 and line 2 joined by `, `; else the one text column',
    },
    col(`${kind}Address.addressCity`, addressColumns(kind, 'city'), src),
    col(`${kind}Address.addressState`, addressColumns(kind, 'state'), src),
    col(`${kind}Address.addressPincode`, addressColumns(kind, 'pin_code', 'pincode', 'zip_code'), src, (v) => v?.replace(/\s/g, '')),
    col(`${kind}Address.addressCountry`, addressColumns(kind, 'country'), src),
  ];
}

/**
 * Darwinbox's mapping (src/hrms/mapping-table.ts): each data point from the first of its columns
 * holding a value, read from the row with nested records flattened into dot keys (`flatten`).
 */
export const DARWINBOX_MAPPING: MappingTable = {
  rows: [
    col('employeeId', ['employee_id', 'employee_no', 'employee_code'], '[M]; fallbacks [none]'),
    {
      point: 'name',
      fields: ['full_name', 'employee_name', 'first_name', 'middle_name', 'last_name'],
      read: (row) =>
        pick(row, 'full_name', 'employee_name') ??
        ([pick(row, 'first_name'), pick(row, 'middle_name'), pick(row, 'last_name')].filter((x) => x !== undefined).join(' ') || undefined),
      source: '[M] (`middle_name`, `employee_name` [none])',
      note: 'else first, middle and last name',
    },
    col('email', ['company_email_id', 'official_email_id', 'email'], '[M]; fallbacks [none]', lower),
    col('personalEmail', ['personal_email_id', 'personal_email'], '[M]; fallback [none]', lower),
    col('mobileNumber', ['personal_mobile_no', 'mobile_no', 'mobile_number'], '[M]; fallbacks [none]', mobileNumber, '10 digits, `+91`/`0` dropped'),
    col('gender', ['gender'], '[M]; values [none]', (v) => enumValue(DARWINBOX_GENDER, v), 'Male/Female/Other'),
    col('maritalStatus', ['marital_status'], '[M]; values [none]', (v) => enumValue(DARWINBOX_MARITAL, v), 'Single/Married/Divorced/Widowed'),
    col('dob', ['date_of_birth'], '[M], formats [S]', darwinboxDate),
    col('doj', ['date_of_joining', 'group_date_of_joining'], '[M]; [S]', darwinboxDate),
    col(
      'status',
      ['employee_status'],
      '[M]; values [none]',
      (v) => enumValue(DARWINBOX_STATUS, v),
      'Active, Confirmed, Probation, Notice Period → Active; Inactive, Resigned, Exited, Relieved → Inactive; Terminated → Terminated',
    ),
    col(
      'employmentType',
      ['employee_type'],
      '[M]; values [none]',
      (v) => enumValue(DARWINBOX_EMPLOYEE_TYPE, v),
      'Permanent/Full Time → Full Time, Part Time, Contractual/Contract → Contract, Intern/Trainee → Intern',
    ),
    col('terminationDate', ['date_of_exit', 'exit_date'], '[M]; fallback [none]', darwinboxDate),
    col('companyName', ['group_company'], '[M]'),
    col('groupName', ['business_unit'], '[M]'),
    col('department', ['department_name', 'department'], '[M]; fallback [none]'),
    col('designation', ['designation_name', 'designation'], '[M]; fallback [none]'),
    col('grade', ['job_level', 'band', 'grade'], "[S] (not in [M]'s list); `grade` [none]"),
    col('costCenter', ['cost_center_name', 'cost_center_id'], '[M]'),
    col(
      'manager',
      ['direct_manager', 'direct_manager_name'],
      '[S]; fallback [none] ([M] lists only `direct_manager_employee_id`)',
      managerName,
      '`"Name (ID)"`: the name',
    ),
    col('managerEmail', ['direct_manager_email'], "[S] (not in [M]'s list)", lower),
    col('pan', ['pan_number', 'pan', 'pan_no'], '[none]: only when the dataset has such a column', compactId),
    col('aadhar', ['aadhaar_number', 'aadhar_number', 'aadhaar', 'aadhaar_no'], '[none]: only when the dataset has such a column', compactId),
    col('uan', ['uan_number', 'uan', 'uan_no'], '[none]: only when the dataset has such a column', compactId),
    col('bloodGroup', ['blood_group'], '[none]: only when the dataset has such a column', bloodGroup),
    col('nationality', ['nationality'], '[none]: only when the dataset has such a column'),
    col('fatherName', ['father_name', 'fathers_name'], '[none]: only when the dataset has such a column'),
    ...addressRows('current'),
    ...addressRows('permanent'),
    col('jobLocation.city', ['office_city', 'office_location'], '[M]'),
  ],
};

/**
 * Maps one Employee Master row by `DARWINBOX_MAPPING`. Throws `HrmsError('bad_response')` when it is not an object or has
 * no employee id (the message carries no employee values).
 */
export function mapDarwinboxEmployee(native: unknown): PartialEmployeeRecord {
  if (!isObj(native)) throw new HrmsError('bad_response', 'Darwinbox returned an employee that is not an object');
  const row = flatten(native);
  if (pick(row, 'employee_id', 'employee_no', 'employee_code') === undefined)
    throw new HrmsError('bad_response', 'Darwinbox returned an employee without employee_id');
  return mapByRows(DARWINBOX_MAPPING, row);
}
