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
 * | Zoho field | record data point | note | source |
 * |---|---|---|---|
 * | `EmployeeID` | `employeeId` | the record id (`Zoho_ID`, the result key) is Zoho's own key | [I], [Z] |
 * | `FirstName` `LastName` | `name` | | [I], [Z] |
 * | `EmailID` / `Other_Email` | `email` / `personalEmail` | lower-cased | `EmailID` [I], [G], [Z]; `Other_Email` [Z] |
 * | `Mobile` | `mobileNumber` | Indian prefixes dropped | [Z] |
 * | `Date_of_birth` / `Dateofjoining` / `Dateofexit` | `dob` / `doj` / `terminationDate` | `dd-MMM-yyyy` → `YYYY-MM-DD` ({@link zohoDate}); other day-first formats [none] | [Z] |
 * | `Employeestatus` | `status` | `Active` → Active; `Resigned`, `Terminated`, `Deceased`, `Inactive`, `Absconded` → Inactive | field [Z] (`Active`); the other values [none] |
 * | `Employee_type` | `employmentType` | `Permanent` → Full Time, `On Contract`/`Contract`/`Temporary` → Contract, `Trainee`/`Intern` → Intern, `Part Time` | field [Z] (`Permanent`); the other values [none] |
 * | `Gender` / `Marital_status` / `Blood_Group` | `gender` / `maritalStatus` / `bloodGroup` | text picklists | [Z]; values [none] beyond hrx's shared tables |
 * | `Nationality` | `nationality` | | [Z] |
 * | `Designation` / `Department` / `Grade` | `designation` / `department` / `grade` | | [Z] |
 * | `LocationName` | `jobLocation.city` | the location's name | [Z] |
 * | `Reporting_To` / `Reporting_To.MailID` | `manager` / `managerEmail` | levels 2-5 are not given (`Second_Reporting_To` is a second manager, not the manager's manager) | [Z], [N] |
 * | `Present_Address` / `Permanent_Address` | `currentAddress.addressLine` / `permanentAddress.addressLine` | one string each: not split into city, state, pincode (that would be guessing) | [Z] |
 * | `PAN` | `pan` | a tenant custom field, not a standard one; taken when present | [N] only (not the vendor's page) |
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
const line = (v: unknown): NonNullable<PartialEmployeeRecord['currentAddress']> => ({ addressLine: text(v) });

/**
 * Maps one record's fields. Throws `HrmsError('bad_response')` for a record without `EmployeeID`
 * (the message carries no values).
 */
export function mapZohoEmployee(f: Obj): PartialEmployeeRecord {
  const employeeId = text(f.EmployeeID);
  if (employeeId === undefined) throw new HrmsError('bad_response', 'Zoho People returned a record without EmployeeID');
  return {
    employeeId,
    name: firstText([text(f.FirstName), text(f.LastName)].filter(Boolean).join(' ')),
    email: lower(f.EmailID),
    personalEmail: lower(f.Other_Email),
    mobileNumber: mobileNumber(f.Mobile),
    dob: zohoDate(f.Date_of_birth),
    doj: zohoDate(f.Dateofjoining),
    terminationDate: zohoDate(f.Dateofexit),
    status: enumValue(ZOHO_STATUS_MAP, f.Employeestatus),
    employmentType: enumValue(ZOHO_EMPLOYMENT_TYPE_MAP, f.Employee_type),
    gender: enumValue(GENDER_MAP, f.Gender),
    maritalStatus: enumValue(MARITAL_STATUS_MAP, f.Marital_status),
    bloodGroup: bloodGroup(f.Blood_Group),
    nationality: text(f.Nationality),
    designation: text(f.Designation),
    department: text(f.Department),
    grade: text(f.Grade),
    jobLocation: { city: text(f.LocationName) },
    manager: text(f.Reporting_To),
    managerEmail: lower(f['Reporting_To.MailID']),
    currentAddress: line(f.Present_Address),
    permanentAddress: line(f.Permanent_Address),
    pan: text(f.PAN)?.replace(/\s/g, '').toUpperCase(),
  };
}
