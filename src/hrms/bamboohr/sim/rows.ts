/**
 * The BambooHR simulator's data: canonical employees (`sim/data.ts`) as BambooHR employees
 * (employee `i` has BambooHR id `i`), under the field names BambooHR's own description documents
 * (`bamboohr/openapi/public.yaml`, "Y:<line>"), and the ground truth hrx must store for them,
 * computed from the canonical values (not by decoding the rendering).
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { NativeEmployee } from '../../sim/data';
import { addressLine, GENDER_WORD, isoOf, MARITAL_WORD, orNone as orUndefined, tenDigits, TYPE_WORD } from '../../sim/kit';

/** Switches of the rendering (research `?`s). */
export interface BambooRowVariants {
  /** `reportsToName` as `First Last` (default) or `Last, First`. */
  supervisorFormat: 'first-last' | 'last-first';
  /** Fields the API key may not read: omitted from both answers, as the description says (Y:7809, Y:8518). */
  restrictedFields: string[];
  /** `payPeriod` of every salaried employee: `Year` (default, `payRate` the fixed CTC) or `Month` (a twelfth of it). */
  payPer: 'Year' | 'Month';
  /** The currency code `payRate` names (default INR; another one: hrx leaves salary empty). */
  payCurrency: string;
  /** `payRate` as `1200000.00 INR` (default) or `INR 1200000.00` (research: the order is not documented). */
  payRateCodeFirst: boolean;
}

const GENDER: Record<string, string> = { M: 'Male', F: 'Female', O: 'Non-binary' };
const MARITAL: Record<string, string> = { SINGLE: 'Single', MARRIED: 'Married', DIVORCED: 'Divorced', WIDOWED: 'Widowed' };
const TYPE: Record<string, string> = { FULL_TIME: 'Full-Time', PART_TIME: 'Part-Time', CONTRACT: 'Contractor', INTERN: 'Intern' };

/** Whether the canonical employee is Inactive in BambooHR (exited). */
export const bambooInactive = (e: NativeEmployee): boolean => e.employment_status === 'RESIGNED' || e.employment_status === 'TERMINATED';

const iso = (dmy: string | null): string => isoOf(dmy) ?? '0000-00-00';

/** The pay rate employee `e` has per `payPer` (2 decimals), or undefined without compensation. */
const payAmount = (e: NativeEmployee, v: BambooRowVariants): number | undefined => {
  const yearly = e.compensation?.annual.fixed_ctc;
  return yearly === undefined ? undefined : v.payPer === 'Year' ? yearly : Math.round((yearly / 12) * 100) / 100;
};

/** `payRate`, `payType`, `payPeriod` of employee `e` (all null without compensation). */
function payFields(e: NativeEmployee, v: BambooRowVariants): Record<string, string | null> {
  const amount = payAmount(e, v);
  if (amount === undefined) return { payRate: null, payType: null, payPeriod: null };
  const rate = v.payRateCodeFirst ? `${v.payCurrency} ${amount.toFixed(2)}` : `${amount.toFixed(2)} ${v.payCurrency}`;
  return { payRate: rate, payType: 'Salary', payPeriod: v.payPer };
}

/**
 * Every field employee `i` has, by the names BambooHR's description documents
 * (`GetEmployeeResponse`, Y:13858-14100); an exited employee's employment status is `Terminated`.
 */
export function bambooFields(e: NativeEmployee, i: number, v: BambooRowVariants): Record<string, string | null> {
  const mgr = e.reporting_manager;
  const mgrParts = mgr?.name.split(' ') ?? [];
  const a = e.current_address;
  return {
    id: String(i),
    firstName: e.first_name,
    middleName: e.middle_name || null,
    lastName: e.last_name,
    workEmail: e.official_email,
    homeEmail: e.personal_email ?? null,
    mobilePhone: e.mobile,
    birthDate: iso(e.date_of_birth),
    gender: GENDER[e.gender]!,
    marital: MARITAL[e.marital_status]!,
    hireDate: iso(e.date_of_joining),
    terminationDate: iso(e.exit_date),
    status: bambooInactive(e) ? 'Inactive' : 'Active',
    employmentStatus: bambooInactive(e) ? 'Terminated' : TYPE[e.employment_type]!,
    jobTitleName: e.designation || null,
    department: e.department,
    division: e.business_unit,
    location: e.work_location.city,
    reportsToName: !mgr ? null : v.supervisorFormat === 'last-first' ? `${mgrParts.at(-1)}, ${mgrParts.slice(0, -1).join(' ')}` : mgr.name,
    address1: addressLine(a) || null,
    city: a.city,
    state: a.state,
    country: a.country,
    ...payFields(e, v),
  };
}

/**
 * Get Employee's answer (Y:7772-7830) for `fields` (absent: `firstName,lastName`, Y:7793): `id`
 * and each field asked, `null` when empty; restricted fields omitted.
 */
export function bambooEmployee(all: Record<string, string | null>, fields: string[], v: BambooRowVariants): Record<string, unknown> {
  const out: Record<string, unknown> = { id: all.id };
  for (const f of fields) if (!v.restrictedFields.includes(f) && f in all) out[f] = all[f];
  return out;
}

/**
 * The field aliases the custom report takes (Y:8562: "`id` is the BambooHR field alias"), by the
 * Get Employee name of the same field where the two differ: the date of birth and the marital
 * status (the aliases the description's notes name, Y:4955, Y:2619).
 */
export const REPORT_ALIASES: Readonly<Record<string, string>> = { birthDate: 'dateOfBirth', marital: 'maritalStatus' };
/** A report field id -> the Get Employee name of its value; undefined for an id the report does not know. */
export const reportSource = (id: string): string | undefined => {
  const named = Object.entries(REPORT_ALIASES).find(([, alias]) => alias === id)?.[0];
  return named ?? (Object.hasOwn(REPORT_ALIASES, id) ? undefined : id);
};

/**
 * One custom report row (Y:8574): `id` and each field asked that has a value, under the alias
 * asked, every value a string; restricted fields and ids the report does not know (the Get
 * Employee names `birthDate`, `marital`) silently omitted (Y:8518).
 */
export function bambooReportRow(all: Record<string, string | null>, fields: string[], v: BambooRowVariants): Record<string, string> {
  const out: Record<string, string> = { id: all.id! };
  for (const f of fields) {
    const source = reportSource(f);
    const value = source === undefined ? undefined : all[source];
    if (source !== undefined && !v.restrictedFields.includes(source) && typeof value === 'string') out[f] = value;
  }
  return out;
}

/** What hrx must store for employee `i` read from BambooHR (the mapping table of bamboohr/mapping.ts). */
export function bambooExpected(e: NativeEmployee, i: number, v: BambooRowVariants): PartialEmployeeRecord {
  const r = (field: string, value: string | undefined): string | undefined => (v.restrictedFields.includes(field) ? undefined : value);
  const a = e.current_address;
  const out = bambooInactive(e);
  return {
    employeeId: String(i),
    name: [r('firstName', e.first_name), r('middleName', e.middle_name), r('lastName', e.last_name)].filter(Boolean).join(' ') || undefined,
    email: r('workEmail', e.official_email),
    personalEmail: r('homeEmail', orUndefined(e.personal_email)),
    mobileNumber: r('mobilePhone', tenDigits(e.mobile)),
    dob: r('birthDate', isoOf(e.date_of_birth)),
    doj: r('hireDate', isoOf(e.date_of_joining)),
    terminationDate: r('terminationDate', isoOf(e.exit_date)),
    // An exited employee's employment status is `Terminated`: a status, never an employment type.
    status: out && !v.restrictedFields.includes('employmentStatus') ? 'Terminated' : r('status', out ? 'Inactive' : 'Active'),
    employmentType: out ? undefined : r('employmentStatus', TYPE_WORD[e.employment_type]),
    gender: r('gender', GENDER_WORD[e.gender]),
    maritalStatus: r('marital', MARITAL_WORD[e.marital_status]),
    designation: r('jobTitleName', orUndefined(e.designation)),
    department: r('department', e.department),
    groupName: r('division', e.business_unit),
    jobLocation: { city: r('location', e.work_location.city) },
    manager: r('reportsToName', e.reporting_manager?.name),
    currentAddress: {
      addressLine: r('address1', orUndefined(addressLine(a))),
      addressCity: r('city', a.city),
      addressState: r('state', a.state),
      addressCountry: r('country', a.country),
    },
    salaryDetails: salaryOf(payAmount(e, v), v),
  };
}

/** The salary hrx stores for a pay rate: INR only, by `payPeriod`; a restricted `payRate` or `payPeriod` is none. */
function salaryOf(amount: number | undefined, v: BambooRowVariants): PartialEmployeeRecord['salaryDetails'] {
  if (amount === undefined || v.payCurrency !== 'INR' || v.restrictedFields.includes('payRate') || v.restrictedFields.includes('payPeriod')) return undefined;
  return v.payPer === 'Year' ? { ctc: { fixedPay: amount } } : { monthly: { fixedPay: amount } };
}
