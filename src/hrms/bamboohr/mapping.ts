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
 * The mapping is the rows of `BAMBOOHR_MAPPING` ("Y:<line>" their sources); the README's "What is
 * mapped" table is written from them by `npm run docs`.
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
import { enumValue, isoDate, money, mobileNumber, text } from '../decode';
import { mapByRows, requestedFields, type MappingRow, type MappingTable } from '../mapping-table';

type Row = Record<string, unknown>;

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
const terminated = (row: Row): boolean => first(row, 'employmentStatus')?.toLowerCase() === 'terminated';
/** A row reading one text field as is. */
const plain = (point: string, field: string, source: string): MappingRow => ({ point, fields: [field], read: (row) => first(row, field), source });

/**
 * BambooHR's mapping (src/hrms/mapping-table.ts): each hrx data point, the fields it reads and
 * where public.yaml documents them. The date of birth and the marital status are read under both
 * spellings (`BAMBOOHR_FIELDS`).
 */
export const BAMBOOHR_MAPPING: MappingTable = {
  answeredAlways: ['id'],
  rows: [
    {
      point: 'employeeId',
      fields: ['id'],
      read: (row) => first(row, 'id'),
      source: 'Y:13863, Y:8574',
      note: "BambooHR's employee id: the one its change list names",
    },
    {
      point: 'name',
      fields: ['firstName', 'middleName', 'lastName'],
      read: (row) => [first(row, 'firstName'), first(row, 'middleName'), first(row, 'lastName')].filter((x) => x !== undefined).join(' ') || undefined,
      source: 'Y:13866, Y:13881, Y:13871',
    },
    { point: 'email', fields: ['workEmail'], read: (row) => first(row, 'workEmail')?.toLowerCase(), source: 'Y:13909' },
    { point: 'personalEmail', fields: ['homeEmail'], read: (row) => first(row, 'homeEmail')?.toLowerCase(), source: 'Y:13914' },
    { point: 'mobileNumber', fields: ['mobilePhone'], read: (row) => mobileNumber(row.mobilePhone), source: 'Y:13934' },
    {
      point: 'dob',
      fields: ['birthDate', 'dateOfBirth'],
      read: (row) => bamboohrDate(row.birthDate) ?? bamboohrDate(row.dateOfBirth),
      source: 'Y:13974; alias Y:2619, Y:4955',
      note: 'the live read answers `birthDate`, the custom report the alias `dateOfBirth`; `0000-00-00` is empty',
    },
    { point: 'doj', fields: ['hireDate'], read: (row) => bamboohrDate(row.hireDate), source: 'Y:13979', note: '`0000-00-00` is empty' },
    {
      point: 'terminationDate',
      fields: ['terminationDate'],
      read: (row) => bamboohrDate(row.terminationDate),
      source: 'Y:13989',
      note: '`0000-00-00` is empty',
    },
    {
      point: 'status',
      fields: ['status', 'employmentStatus'],
      read: (row) => (terminated(row) ? 'Terminated' : enumValue(BAMBOOHR_STATUS, row.status)),
      source: 'Y:13901-13908, Y:14079',
      note: 'Active, Inactive (its enum); `Terminated` when `employmentStatus` is Terminated',
    },
    {
      point: 'employmentType',
      fields: ['employmentStatus'],
      read: (row, warn) => (terminated(row) ? undefined : listValue(BAMBOOHR_EMPLOYMENT, first(row, 'employmentStatus'), 'employmentStatus', warn)),
      source: 'Y:14079',
      note: 'Full-Time, Part-Time, Contractor → Contract, Intern; `Terminated` is a status, never a type; a status hrx has no word for stays empty and is logged',
    },
    { point: 'gender', fields: ['gender'], read: (row) => enumValue(BAMBOOHR_GENDER, row.gender), source: 'Y:14014', note: 'Non-binary → Other' },
    {
      point: 'maritalStatus',
      fields: ['marital', 'maritalStatus'],
      read: (row) => enumValue(BAMBOOHR_MARITAL, first(row, 'marital', 'maritalStatus')),
      source: 'Y:14019; alias Y:4955',
      note: 'the live read answers `marital`, the custom report the alias `maritalStatus`',
    },
    plain('designation', 'jobTitleName', 'Y:13891'),
    plain('department', 'department', 'Y:14059'),
    plain('groupName', 'division', 'Y:14049'),
    plain('jobLocation.city', 'location', 'Y:14069'),
    { point: 'manager', fields: ['reportsToName'], read: (row) => supervisorName(row.reportsToName), source: 'Y:14089', note: '"Last, First" turned round' },
    plain('currentAddress.addressLine', 'address1', 'Y:13994'),
    plain('currentAddress.addressCity', 'city', 'Y:13999'),
    plain('currentAddress.addressState', 'state', 'Y:14004'),
    plain('currentAddress.addressCountry', 'country', 'Y:14009'),
    {
      point: 'salaryDetails',
      fields: ['payRate', 'payType', 'payPeriod'],
      read: (row, warn) => bamboohrPay(row.payRate, row.payPeriod, warn),
      source: 'Y:14024, Y:14029, Y:14034',
      note: '`ctc.fixedPay` when `payPeriod` is Year, `monthly.fixedPay` when Month (`payRate` e.g. `1200000.00 INR`; INR only); `payType` read, not needed',
    },
  ],
};

/**
 * The fields hrx asks BambooHR for, in the custom report and in a live read: documented names only.
 * Get Employee answers the names of `GetEmployeeResponse` (Y:13858-14100); the custom report takes
 * field *aliases* (Y:8562: "`id` is the BambooHR field alias", aliases from list-fields, Y:7696),
 * which for the date of birth and the marital status are `dateOfBirth` and `maritalStatus` (the
 * aliases the description's own notes name, Y:4955, Y:2619). Either request silently omits an id
 * it does not know (Y:8518), so both spellings are asked and whichever answers is read
 * (src/hrms/bamboohr/README.md "What is mapped").
 */
export const BAMBOOHR_FIELDS: readonly string[] = requestedFields(BAMBOOHR_MAPPING);

/**
 * Maps one BambooHR employee by `BAMBOOHR_MAPPING`; `warn` hears of a salary left empty
 * (`bamboohrPay`) and of an employment status hrx has no word for. Throws
 * `HrmsError('bad_response')` when it is not an object or has no id (the message carries no
 * employee values).
 */
export function mapBambooHrEmployee(native: unknown, warn: FieldWarner = () => {}): PartialEmployeeRecord {
  if (typeof native !== 'object' || native === null || Array.isArray(native))
    throw new HrmsError('bad_response', 'BambooHR returned an employee that is not an object');
  const row = native as Row;
  if (first(row, 'id') === undefined) throw new HrmsError('bad_response', 'BambooHR returned an employee without id');
  return mapByRows(BAMBOOHR_MAPPING, row, warn);
}
