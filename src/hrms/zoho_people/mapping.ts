/**
 * Zoho People employee form record (`GET /people/api/forms/employee/getRecords`) → hrx
 * `PartialEmployeeRecord` (src/hrms/zoho_people/README.md, "Requests", cites the request). Form
 * fields are the tenant's: these are the standard ones of the employee form.
 *
 * Sources (Zoho's own pages first; a secondary source is marked so):
 * - [Z] Zoho People "Get Bulk Records API", https://www.zoho.com/people/api/bulk-records.html:
 *   the field names of the employee form in its "Sample Response" and dates as `dd-MMM-yyyy`, as
 *   read when the connector was built (the stored copy re-read for this table ends before the
 *   sample, so these rows are not re-checked name by name).
 * - [I] Zoho People "Insert Record API for Adding Employees",
 *   https://www.zoho.com/people/api/adding-employees.html: "EmployeeID", "FirstName", "LastName",
 *   "EmailID" are the employee form's mandatory fields.
 * - [G] Zoho Deluge "Get Record By ID from Zoho People" (form `P_Employee`),
 *   https://www.zoho.com/deluge/help/people/fetch-record-by-id.html, "Response Format" ("EmailID").
 * - [N] client code that reads the form (Nango `integrations/zoho-people`; not the vendor's page).
 * - [none] no public source lists the values: hrx's own table; a value outside it is kept as Zoho
 *   wrote it (`enumValue`).
 *
 * The mapping is the rows of `ZOHO_MAPPING` (src/hrms/mapping-table.ts), their sources the above;
 * the README's "What is mapped" table is written from them by `npm run docs`.
 *
 * Not mapped: Aadhaar, UAN, bank details, father's name, marriage date, country code (not
 * standard form fields), dependents (`tabularSections`: [Z] says bulk records carry tabular
 * sections, whose keys are each form's own: [none] for the employee form's), salary (a separate
 * Compensation API whose salary read was not found).
 */
import { HrmsError } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { calendarDate, firstText, MONTHS } from '../decode';
import { bloodGroup, enumValue, GENDER_MAP, MARITAL_STATUS_MAP, mobileNumber, text } from '../decode';
import { fieldRow, mapByRows, type MappingTable } from '../mapping-table';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `Employeestatus` → hrx `status` (keys upper-cased, spaces and dashes as `_`). */
export const ZOHO_STATUS_MAP: Readonly<Record<string, string>> = {
  ACTIVE: 'Active',
  RESIGNED: 'Inactive',
  TERMINATED: 'Inactive',
  DECEASED: 'Inactive',
  INACTIVE: 'Inactive',
  ABSCONDED: 'Inactive',
};
/** `Employee_type` → hrx `employmentType`. */
export const ZOHO_EMPLOYMENT_TYPE_MAP: Readonly<Record<string, string>> = {
  PERMANENT: 'Full Time',
  FULL_TIME: 'Full Time',
  PART_TIME: 'Part Time',
  ON_CONTRACT: 'Contract',
  CONTRACT: 'Contract',
  TEMPORARY: 'Contract',
  TRAINEE: 'Intern',
  INTERN: 'Intern',
};

/**
 * A Zoho date → `YYYY-MM-DD`. Zoho writes dates in the organisation's format, `dd-MMM-yyyy` by
 * default (`05-Jun-2020`); also taken: `yyyy-MM-dd`, and `dd-MM-yyyy` / `dd/MM/yyyy` (day first,
 * as Indian organisations write them), each optionally followed by a time (`AddedTime` style).
 * Blank, `-`, `0000-00-00`, impossible dates and anything else → `undefined`.
 */
export function zohoDate(v: unknown): string | undefined {
  const t = text(v)?.replace(/\s+\d{1,2}:\d{2}(:\d{2})?(\s*[AP]M)?$/i, '');
  if (t === undefined) return undefined;
  let m = /^(\d{1,2})[-/ ]([A-Za-z]{3})[-/ ](\d{4})$/.exec(t);
  if (m) {
    const month = MONTHS[m[2]!.toLowerCase()];
    return month === undefined ? undefined : calendarDate(Number(m[3]), month, Number(m[1]));
  }
  if ((m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t))) return calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  if ((m = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$/.exec(t))) return calendarDate(Number(m[3]), Number(m[2]), Number(m[1]));
  return undefined;
}

/**
 * The field objects of a `getRecords` `result`: each element is `{"<record id>": [ {fields} ]}`
 * (the documented shape), `{"<record id>": {fields}}`, or the fields themselves (every shape
 * client code copes with). Elements that are none of these are skipped.
 */
export function zohoRecords(result: unknown): Obj[] {
  if (!Array.isArray(result)) return [];
  const out: Obj[] = [];
  for (const entry of result) {
    if (!isObj(entry)) continue;
    const keys = Object.keys(entry);
    const inner = keys.length === 1 ? entry[keys[0]!] : undefined;
    if (Array.isArray(inner)) out.push(...inner.filter(isObj));
    else if (isObj(inner) && keys.length === 1 && !('EmployeeID' in entry)) out.push(inner);
    else out.push(entry);
  }
  return out;
}

const lower = (v: unknown): string | undefined => text(v)?.toLowerCase();
const field = fieldRow;
const DATE = '`dd-MMM-yyyy` → `YYYY-MM-DD`; other day-first formats [none]';
const ADDRESS = 'one string: not split into city, state, pincode (that would be guessing)';

/** Zoho People's mapping (src/hrms/mapping-table.ts): the employee form's standard fields. */
export const ZOHO_MAPPING: MappingTable = {
  rows: [
    field('employeeId', 'EmployeeID', '[I], [Z]', text, "the record id (`Zoho_ID`, the result key) is Zoho's own key"),
    {
      point: 'name',
      fields: ['FirstName', 'LastName'],
      read: (f) => firstText([text(f.FirstName), text(f.LastName)].filter(Boolean).join(' ')),
      source: '[I], [Z]',
    },
    field('email', 'EmailID', '[I], [G], [Z]', lower),
    field('personalEmail', 'Other_Email', '[Z]', lower),
    field('mobileNumber', 'Mobile', '[Z]', mobileNumber, 'Indian prefixes dropped'),
    field('dob', 'Date_of_birth', '[Z]', zohoDate, DATE),
    field('doj', 'Dateofjoining', '[Z]', zohoDate, DATE),
    field('terminationDate', 'Dateofexit', '[Z]', zohoDate, DATE),
    field(
      'status',
      'Employeestatus',
      'field [Z] (`Active`); the other values [none]',
      (v) => enumValue(ZOHO_STATUS_MAP, v),
      '`Active` → Active; `Resigned`, `Terminated`, `Deceased`, `Inactive`, `Absconded` → Inactive',
    ),
    field(
      'employmentType',
      'Employee_type',
      'field [Z] (`Permanent`); the other values [none]',
      (v) => enumValue(ZOHO_EMPLOYMENT_TYPE_MAP, v),
      '`Permanent` → Full Time, `On Contract`/`Contract`/`Temporary` → Contract, `Trainee`/`Intern` → Intern, `Part Time`',
    ),
    field('gender', 'Gender', "[Z]; values [none] beyond hrx's shared tables", (v) => enumValue(GENDER_MAP, v), 'a text picklist'),
    field('maritalStatus', 'Marital_status', "[Z]; values [none] beyond hrx's shared tables", (v) => enumValue(MARITAL_STATUS_MAP, v), 'a text picklist'),
    field('bloodGroup', 'Blood_Group', "[Z]; values [none] beyond hrx's shared tables", bloodGroup, 'a text picklist'),
    field('nationality', 'Nationality', '[Z]'),
    field('designation', 'Designation', '[Z]'),
    field('department', 'Department', '[Z]'),
    field('grade', 'Grade', '[Z]'),
    field('jobLocation.city', 'LocationName', '[Z]', text, "the location's name"),
    field('manager', 'Reporting_To', '[Z], [N]', text, "levels 2-5 are not given (`Second_Reporting_To` is a second manager, not the manager's manager)"),
    field('managerEmail', 'Reporting_To.MailID', '[Z], [N]', lower),
    field('currentAddress.addressLine', 'Present_Address', '[Z]', text, ADDRESS),
    field('permanentAddress.addressLine', 'Permanent_Address', '[Z]', text, ADDRESS),
    field(
      'pan',
      'PAN',
      "[N] only (not the vendor's page)",
      (v) => text(v)?.replace(/\s/g, '').toUpperCase(),
      'a tenant custom field, not a standard one; taken when present',
    ),
  ],
};

/**
 * Maps one record's fields by `ZOHO_MAPPING`. Throws `HrmsError('bad_response')` for a record without `EmployeeID`
 * (the message carries no values).
 */
export function mapZohoEmployee(f: Obj): PartialEmployeeRecord {
  if (text(f.EmployeeID) === undefined) throw new HrmsError('bad_response', 'Zoho People returned a record without EmployeeID');
  return mapByRows(ZOHO_MAPPING, f);
}
