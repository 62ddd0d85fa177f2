/**
 * BambooHR employee -> hrx `PartialEmployeeRecord` (decisions §14; research hrms-dialects.md §5).
 *
 * Sources:
 * - [F] BambooHR field names: https://documentation.bamboohr.com/docs/list-of-field-names
 * - [L] list employees (new API: `data[]`, `_restrictedFields`, keys `jobTitleName`, `departmentName`,
 *   `reportsToId`): https://documentation.bamboohr.com/reference/list-employees
 * - [W] monitorable fields (the concepts): https://documentation.bamboohr.com/docs/webhooks-2
 * - [S] `terminationDate` `"0000-00-00"` when none (public client code, research §5)
 *
 * | record data point | BambooHR field (first present wins) | source |
 * |---|---|---|
 * | employeeId | id, employeeId (BambooHR's employee id: the id its change list and deletions name) | [F], [L] |
 * | name | displayName, else firstName + middleName + lastName | [F] |
 * | email / personalEmail | workEmail / homeEmail | [F] |
 * | mobileNumber | mobilePhone | [F] |
 * | dob / doj | dateOfBirth / hireDate (`YYYY-MM-DD`; `0000-00-00` empty) | [F], [S] |
 * | terminationDate | terminationDate (`0000-00-00` for active employees -> empty) | [F], [S] |
 * | status | status (Active, Inactive) | [F] |
 * | employmentType | employmentHistoryStatus (Full-Time, Part-Time, Contractor, Intern...) | [F] |
 * | gender / maritalStatus | gender / maritalStatus | [F] |
 * | designation | jobTitle, jobTitleName | [F], [L] |
 * | department | department, departmentName | [F], [L] |
 * | groupName | division | [F] |
 * | jobLocation.city | location | [F] |
 * | manager | supervisor (`"Last, First"` turned round) | [F] |
 * | managerEmail | supervisorEmail | [F] |
 * | currentAddress | address1 (+ address2), city, state, zipcode, country (the one home address) | [F] |
 * | salaryDetails.ctc.fixedPay / .monthly.fixedPay | payRate (`"1200000.00 INR"`; the code may also lead) by payPer (Year / Month); payType (Salary, Hourly...) is read, not needed | [F], [W] "Pay rate" |
 *
 * Salary is taken only when payRate names the currency INR and payPer is Year or Month; any other
 * currency, a rate without a currency code, or another period (Hour, Day, Week...) leaves it empty
 * and reports the field (`payRate` or `payPer`) through `onWarning`: hrx's salary is INR, and no
 * rate is converted or annualized.
 *
 * Not mapped: PAN, Aadhaar, UAN, bank details and father's name (BambooHR has no such fields; an
 * Indian employer's custom fields differ per company), managerEmail2..5 (BambooHR does not expose
 * managers above `supervisor` [F]: NOT AVAILABLE), companyName,
 * costCenter, grade, dependents, marriage date, and salary components (the compensation table is
 * one request per employee; it carries no components either).
 */
import { HrmsError } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import type { FieldWarner } from '../decode';
import { compact, enumValue, isoDate, money, mobileNumber, text } from '../reference/mapping';

type Row = Record<string, unknown>;

/** The fields hrx asks BambooHR for (`fields=`), classic names [F]; the new API's own names are read too. */
export const BAMBOOHR_FIELDS = [
  'employeeNumber',
  'firstName',
  'middleName',
  'lastName',
  'displayName',
  'workEmail',
  'homeEmail',
  'mobilePhone',
  'dateOfBirth',
  'gender',
  'maritalStatus',
  'hireDate',
  'terminationDate',
  'status',
  'employmentHistoryStatus',
  'jobTitle',
  'department',
  'division',
  'location',
  'supervisor',
  'supervisorEmail',
  'address1',
  'address2',
  'city',
  'state',
  'zipcode',
  'country',
  'payRate',
  'payType',
  'payPer',
] as const;

/** `status` -> hrx `status`. */
export const BAMBOOHR_STATUS: Readonly<Record<string, string>> = { ACTIVE: 'Active', INACTIVE: 'Inactive' };
/** `employmentHistoryStatus` -> hrx `employmentType` (keys upper case, `-` and spaces as `_`). */
export const BAMBOOHR_EMPLOYMENT: Readonly<Record<string, string>> = {
  FULL_TIME: 'Full Time',
  FULLTIME: 'Full Time',
  PART_TIME: 'Part Time',
  PARTTIME: 'Part Time',
  CONTRACTOR: 'Contract',
  CONTRACT: 'Contract',
  TEMPORARY: 'Contract',
  INTERN: 'Intern',
  INTERNSHIP: 'Intern',
};
/** `gender` -> hrx `gender`. */
export const BAMBOOHR_GENDER: Readonly<Record<string, string>> = {
  MALE: 'Male',
  FEMALE: 'Female',
  NON_BINARY: 'Other',
  NONBINARY: 'Other',
  OTHER: 'Other',
};
/** `maritalStatus` -> hrx `maritalStatus`. */
export const BAMBOOHR_MARITAL: Readonly<Record<string, string>> = {
  SINGLE: 'Single',
  MARRIED: 'Married',
  DIVORCED: 'Divorced',
  WIDOWED: 'Widowed',
  WIDOW: 'Widowed',
};

/** A BambooHR date (`YYYY-MM-DD`) -> `YYYY-MM-DD`; `0000-00-00`, blank, null and impossible dates -> undefined. */
export function bamboohrDate(v: unknown): string | undefined {
  const t = text(v);
  return t === undefined || !/^\d{4}-\d{2}-\d{2}/.test(t) ? undefined : isoDate(t.slice(0, 10));
}

/** A supervisor as BambooHR shows it: `"Last, First"` -> `First Last`; a name without a comma as is. */
export function supervisorName(v: unknown): string | undefined {
  const t = text(v);
  const m = t === undefined ? null : /^([^,]+),\s*(.+)$/.exec(t);
  return m ? `${m[2]} ${m[1]}` : t;
}

/**
 * `payRate` by `payPer` -> `salaryDetails`: a yearly rate is `ctc.fixedPay`, a monthly one
 * `monthly.fixedPay`. Only INR; another or no currency code warns `payRate`, another period
 * `payPer`, and both leave salary empty. An empty (or restricted, `null`) rate is no salary, no warning.
 */
export function bamboohrPay(payRate: unknown, payPer: unknown, warn: FieldWarner = () => {}): PartialEmployeeRecord['salaryDetails'] {
  const rate = text(payRate);
  if (rate === undefined) return undefined;
  const m = /^(?:([A-Za-z]{3})\s*)?([-\d.,]+)(?:\s*([A-Za-z]{3}))?$/.exec(rate);
  const currency = (m?.[1] ?? m?.[3])?.toUpperCase();
  const amount = m && !(m[1] && m[3]) ? money(m[2]) : undefined;
  if (currency !== 'INR' || amount === undefined) {
    warn('payRate');
    return undefined;
  }
  const per = text(payPer)?.toLowerCase();
  if (per === 'year') return { ctc: { fixedPay: amount } };
  if (per === 'month') return { monthly: { fixedPay: amount } };
  warn('payPer');
  return undefined;
}

const first = (row: Row, ...keys: string[]): string | undefined => keys.map((k) => text(row[k])).find((x) => x !== undefined);

/**
 * Maps one BambooHR employee; `warn` hears of a salary left empty (`bamboohrPay`). Throws
 * `HrmsError('bad_response')` when it is not an object or has no id (the message carries no
 * employee values).
 */
export function mapBambooHrEmployee(native: unknown, warn?: FieldWarner): PartialEmployeeRecord {
  if (typeof native !== 'object' || native === null || Array.isArray(native))
    throw new HrmsError('bad_response', 'BambooHR returned an employee that is not an object');
  const row = native as Row;
  const employeeId = first(row, 'id', 'employeeId');
  if (employeeId === undefined) throw new HrmsError('bad_response', 'BambooHR returned an employee without id');
  const parts = [first(row, 'firstName'), first(row, 'middleName'), first(row, 'lastName')].filter((x) => x !== undefined).join(' ');
  const line = [first(row, 'address1'), first(row, 'address2')].filter((x) => x !== undefined).join(', ');
  return compact<PartialEmployeeRecord>({
    employeeId,
    name: first(row, 'displayName') ?? (parts === '' ? undefined : parts),
    email: first(row, 'workEmail')?.toLowerCase(),
    personalEmail: first(row, 'homeEmail')?.toLowerCase(),
    mobileNumber: mobileNumber(row.mobilePhone),
    dob: bamboohrDate(row.dateOfBirth),
    doj: bamboohrDate(row.hireDate),
    terminationDate: bamboohrDate(row.terminationDate),
    status: enumValue(BAMBOOHR_STATUS, row.status),
    employmentType: enumValue(BAMBOOHR_EMPLOYMENT, row.employmentHistoryStatus),
    gender: enumValue(BAMBOOHR_GENDER, row.gender),
    maritalStatus: enumValue(BAMBOOHR_MARITAL, row.maritalStatus),
    designation: first(row, 'jobTitle', 'jobTitleName'),
    department: first(row, 'department', 'departmentName'),
    groupName: first(row, 'division'),
    jobLocation: { city: first(row, 'location') },
    manager: supervisorName(row.supervisor),
    managerEmail: first(row, 'supervisorEmail')?.toLowerCase(),
    currentAddress: {
      addressLine: line === '' ? undefined : line,
      addressCity: first(row, 'city'),
      addressState: first(row, 'state'),
      addressPincode: first(row, 'zipcode')?.replace(/\s/g, ''),
      addressCountry: first(row, 'country'),
    },
    salaryDetails: bamboohrPay(row.payRate, row.payPer, warn),
  });
}
