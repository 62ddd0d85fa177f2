/**
 * BambooHR employee -> hrx `PartialEmployeeRecord` (src/hrms/bamboohr/README.md "The published
 * description"; docs/hrms/connectors.md "The vendor's published API is the authority").
 *
 * Source: BambooHR's own OpenAPI 3.1 description, committed as `openapi/public.yaml` (its
 * `SOURCE.md` names the commit): the field names are the documented properties of
 * `GetEmployeeResponse` (public.yaml lines 13858-14100, "Y:<line>" below), the names both the
 * custom report (`POST /api/v1/reports/custom`) and Get Employee (`GET /api/v1/employees/{id}`)
 * answer (the report knows two of them only by their aliases: `BAMBOOHR_FIELDS`), so a synced
 * record and a live read hold the same fields. A custom report's values are
 * all strings (Y:8574); Get Employee's are strings or null.
 *
 * | record data point | BambooHR field | source |
 * |---|---|---|
 * | employeeId | id (BambooHR's employee id: the id its change list and deletions name) | Y:13863, Y:8574 |
 * | name | firstName + middleName + lastName | Y:13866, Y:13881, Y:13871 |
 * | email / personalEmail | workEmail / homeEmail | Y:13909 / Y:13914 |
 * | mobileNumber | mobilePhone | Y:13934 |
 * | dob / doj / terminationDate | birthDate (report: dateOfBirth) / hireDate / terminationDate (`YYYY-MM-DD`; `0000-00-00` empty) | Y:13974 / Y:13979 / Y:13989 |
 * | status | status (`Active`, `Inactive`: the enum of Y:13901-13908); `Terminated` when employmentStatus is `Terminated` | Y:13901, Y:14079 |
 * | employmentType | employmentStatus (Full-Time, Part-Time, Contractor, Intern...; `Terminated` is a status, never a type) | Y:14079 |
 * | gender / maritalStatus | gender / marital (report: maritalStatus) | Y:14014 / Y:14019 |
 * | designation | jobTitleName | Y:13891 |
 * | department / groupName | department / division | Y:14059 / Y:14049 |
 * | jobLocation.city | location | Y:14069 |
 * | manager | reportsToName (`"Last, First"` turned round) | Y:14089 |
 * | currentAddress | address1, city, state, country (the one home address) | Y:13994, Y:13999, Y:14004, Y:14009 |
 * | salaryDetails.ctc.fixedPay / .monthly.fixedPay | payRate (`"1200000.00 INR"`; the code may also lead) by payPeriod (Year / Month); payType read, not needed | Y:14024, Y:14034, Y:14029 |
 *
 * Salary is taken only when payRate names the currency INR and payPeriod is Year or Month; any
 * other currency leaves it empty and warns `payRate` naming the currency (never the amount); a
 * rate without a currency code warns `payRate`, another period (Hour, Day, Week...) `payPeriod`:
 * hrx's salary is INR, and no rate is converted or annualized.
 *
 * Not mapped: managerEmail (no documented field gives the manager's e-mail; `reportsToId` would
 * need one more read per employee), the address's second line and postal code (no documented
 * field), PAN, Aadhaar, UAN, bank details and father's name (BambooHR has no such fields; an
 * Indian employer's custom fields differ per company), managerEmail2..5 (BambooHR exposes no
 * manager above `reportsTo`: NOT AVAILABLE), companyName, costCenter, grade, dependents,
 * marriage date, and salary components.
 */
import { HrmsError } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import type { FieldWarner } from '../decode';
import { compact, enumValue, isoDate, money, mobileNumber, text } from '../decode';

type Row = Record<string, unknown>;

/**
 * The fields hrx asks BambooHR for, in the custom report and in a live read: documented names only.
 * Get Employee answers the names of `GetEmployeeResponse` (Y:13858-14100); the custom report takes
 * field *aliases* (Y:8562: "`id` is the BambooHR field alias", aliases from list-fields, Y:7696),
 * which for the date of birth and the marital status are `dateOfBirth` and `maritalStatus` (the
 * aliases the description's own notes name, Y:4955, Y:2619). Either request silently omits an id
 * it does not know (Y:8518), so both spellings are asked and whichever answers is read
 * (src/hrms/bamboohr/README.md "What is mapped").
 */
export const BAMBOOHR_FIELDS = [
  'firstName',
  'middleName',
  'lastName',
  'workEmail',
  'homeEmail',
  'mobilePhone',
  'birthDate',
  'dateOfBirth',
  'gender',
  'marital',
  'maritalStatus',
  'hireDate',
  'terminationDate',
  'status',
  'employmentStatus',
  'jobTitleName',
  'department',
  'division',
  'location',
  'reportsToName',
  'address1',
  'city',
  'state',
  'country',
  'payRate',
  'payType',
  'payPeriod',
] as const;

/** `status` -> hrx `status`. */
export const BAMBOOHR_STATUS: Readonly<Record<string, string>> = { ACTIVE: 'Active', INACTIVE: 'Inactive' };
/** `employmentStatus` -> hrx `employmentType` (keys upper case, `-` and spaces as `_`); `Terminated` is no type (a status). */
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
 * `payRate` by `payPeriod` -> `salaryDetails`: a yearly rate is `ctc.fixedPay`, a monthly one
 * `monthly.fixedPay`. Only INR; another currency warns `payRate` naming the currency (never the
 * amount), no currency code warns `payRate`, another period `payPeriod`, and each leaves salary
 * empty. An empty (or omitted) rate is no salary, no warning.
 */
export function bamboohrPay(payRate: unknown, payPer: unknown, warn: FieldWarner = () => {}): PartialEmployeeRecord['salaryDetails'] {
  const rate = text(payRate);
  if (rate === undefined) return undefined;
  const m = /^(?:([A-Za-z]{3})\s*)?([-\d.,]+)(?:\s*([A-Za-z]{3}))?$/.exec(rate);
  const currency = (m?.[1] ?? m?.[3])?.toUpperCase();
  const amount = m && !(m[1] && m[3]) ? money(m[2]) : undefined;
  if (currency !== undefined && /^[A-Z]{3}$/.test(currency) && currency !== 'INR') {
    warn('payRate', `salary left empty: payRate is in ${currency}, not INR`);
    return undefined;
  }
  if (currency !== 'INR' || amount === undefined) {
    warn('payRate');
    return undefined;
  }
  const per = text(payPer)?.toLowerCase();
  if (per === 'year') return { ctc: { fixedPay: amount } };
  if (per === 'month') return { monthly: { fixedPay: amount } };
  warn('payPeriod');
  return undefined;
}

/**
 * A BambooHR list value (employment statuses are the company's own list) through `map` only: a
 * value the table does not name is no hrx word, so it is left empty and `field` is warned (a
 * value never passes through as if it were one of hrx's words).
 */
function listValue(map: Readonly<Record<string, string>>, v: unknown, field: string, warn: FieldWarner): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const key = t.toUpperCase().replace(/[\s-]+/g, '_');
  if (Object.hasOwn(map, key)) return map[key];
  warn(field, 'value the connector cannot translate');
  return undefined;
}

const first = (row: Row, ...keys: string[]): string | undefined => keys.map((k) => text(row[k])).find((x) => x !== undefined);

/**
 * Maps one BambooHR employee; `warn` hears of a salary left empty (`bamboohrPay`) and of an
 * employment status hrx has no word for. Throws
 * `HrmsError('bad_response')` when it is not an object or has no id (the message carries no
 * employee values).
 */
export function mapBambooHrEmployee(native: unknown, warn: FieldWarner = () => {}): PartialEmployeeRecord {
  if (typeof native !== 'object' || native === null || Array.isArray(native))
    throw new HrmsError('bad_response', 'BambooHR returned an employee that is not an object');
  const row = native as Row;
  const employeeId = first(row, 'id');
  if (employeeId === undefined) throw new HrmsError('bad_response', 'BambooHR returned an employee without id');
  const parts = [first(row, 'firstName'), first(row, 'middleName'), first(row, 'lastName')].filter((x) => x !== undefined).join(' ');
  const employment = first(row, 'employmentStatus');
  const terminated = employment?.toLowerCase() === 'terminated';
  return compact<PartialEmployeeRecord>({
    employeeId,
    name: parts === '' ? undefined : parts,
    email: first(row, 'workEmail')?.toLowerCase(),
    personalEmail: first(row, 'homeEmail')?.toLowerCase(),
    mobileNumber: mobileNumber(row.mobilePhone),
    dob: bamboohrDate(row.birthDate) ?? bamboohrDate(row.dateOfBirth),
    doj: bamboohrDate(row.hireDate),
    terminationDate: bamboohrDate(row.terminationDate),
    status: terminated ? 'Terminated' : enumValue(BAMBOOHR_STATUS, row.status),
    employmentType: terminated ? undefined : listValue(BAMBOOHR_EMPLOYMENT, employment, 'employmentStatus', warn),
    gender: enumValue(BAMBOOHR_GENDER, row.gender),
    maritalStatus: enumValue(BAMBOOHR_MARITAL, first(row, 'marital', 'maritalStatus')),
    designation: first(row, 'jobTitleName'),
    department: first(row, 'department'),
    groupName: first(row, 'division'),
    jobLocation: { city: first(row, 'location') },
    manager: supervisorName(row.reportsToName),
    currentAddress: {
      addressLine: first(row, 'address1'),
      addressCity: first(row, 'city'),
      addressState: first(row, 'state'),
      addressCountry: first(row, 'country'),
    },
    salaryDetails: bamboohrPay(row.payRate, row.payPeriod, warn),
  });
}
