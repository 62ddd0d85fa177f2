/**
 * The BambooHR simulator's data: canonical employees (`sim/data.ts`) as BambooHR employees
 * (employee `i` has BambooHR id `i`, `employeeNumber` `EMP0000i`), and the ground truth hrx must
 * store for them, computed from the canonical values (not by decoding the rendering).
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { NativeEmployee } from '../../sim/data';
import { addressLine, GENDER_WORD, isoOf, MARITAL_WORD, orNone as orUndefined, tenDigits, TYPE_WORD } from '../../sim/kit';

/** Switches of the rendering (research `?`s). */
export interface BambooRowVariants {
  /** `supervisor` as `First Last` (default) or `Last, First`. */
  supervisorFormat: 'first-last' | 'last-first';
  /** Field names of the new API (`jobTitleName`, `departmentName`) instead of the classic ones (default). */
  newFieldNames: boolean;
  /** Fields the API key may not read: answered `null` and listed in `_restrictedFields`. */
  restrictedFields: string[];
  /** `payPer` of every salaried employee: `Year` (default, `payRate` the fixed CTC) or `Month` (a twelfth of it). */
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

/** `payRate`, `payType`, `payPer` of employee `e` (all null without compensation). */
function payFields(e: NativeEmployee, v: BambooRowVariants): Record<string, string | null> {
  const amount = payAmount(e, v);
  if (amount === undefined) return { payRate: null, payType: null, payPer: null };
  const rate = v.payRateCodeFirst ? `${v.payCurrency} ${amount.toFixed(2)}` : `${amount.toFixed(2)} ${v.payCurrency}`;
  return { payRate: rate, payType: 'Salary', payPer: v.payPer };
}

/** Every field employee `i` has, by BambooHR name. */
export function bambooFields(e: NativeEmployee, i: number, v: BambooRowVariants): Record<string, string | null> {
  const mgr = e.reporting_manager;
  const mgrParts = mgr?.name.split(' ') ?? [];
  const a = e.current_address;
  return {
    id: String(i),
    employeeId: String(i),
    employeeNumber: e.employee_code,
    firstName: e.first_name,
    middleName: e.middle_name,
    lastName: e.last_name,
    displayName: [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' '),
    workEmail: e.official_email,
    homeEmail: e.personal_email ?? null,
    mobilePhone: e.mobile,
    dateOfBirth: iso(e.date_of_birth),
    gender: GENDER[e.gender]!,
    maritalStatus: MARITAL[e.marital_status]!,
    hireDate: iso(e.date_of_joining),
    terminationDate: iso(e.exit_date),
    status: bambooInactive(e) ? 'Inactive' : 'Active',
    employmentHistoryStatus: TYPE[e.employment_type]!,
    [v.newFieldNames ? 'jobTitleName' : 'jobTitle']: e.designation,
    [v.newFieldNames ? 'departmentName' : 'department']: e.department,
    division: e.business_unit,
    location: e.work_location.city,
    supervisor: !mgr ? null : v.supervisorFormat === 'last-first' ? `${mgrParts.at(-1)}, ${mgrParts.slice(0, -1).join(' ')}` : mgr.name,
    supervisorEmail: mgr?.email ?? null,
    address1: a.line1,
    address2: a.line2,
    city: a.city,
    state: a.state,
    zipcode: a.pincode,
    country: a.country,
    ...payFields(e, v),
  };
}

/** The answer object for `fields` (absent: the new API's defaults), restricted fields `null`. */
export function bambooEmployee(all: Record<string, string | null>, fields: string[] | null, v: BambooRowVariants): Record<string, unknown> {
  const names = fields ?? ['firstName', 'lastName', 'preferredName', 'jobTitleName', 'status'];
  const out: Record<string, unknown> = { id: all.id, employeeId: all.employeeId };
  const restricted: string[] = [];
  for (const f of names) {
    if (v.restrictedFields.includes(f)) {
      out[f] = null;
      restricted.push(f);
    } else {
      out[f] = all[f] ?? null;
    }
  }
  if (v.newFieldNames) for (const f of ['jobTitleName', 'departmentName']) if (!(f in out) && all[f] !== undefined) out[f] = all[f];
  if (restricted.length) out._restrictedFields = restricted;
  return out;
}

/** What hrx must store for employee `i` read from BambooHR (the mapping table of bamboohr/mapping.ts). */
export function bambooExpected(e: NativeEmployee, i: number, v: BambooRowVariants): PartialEmployeeRecord {
  const r = (field: string, value: string | undefined): string | undefined => (v.restrictedFields.includes(field) ? undefined : value);
  const a = e.current_address;
  return {
    employeeId: String(i),
    name: r('displayName', [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' ')),
    email: r('workEmail', e.official_email),
    personalEmail: r('homeEmail', orUndefined(e.personal_email)),
    mobileNumber: r('mobilePhone', tenDigits(e.mobile)),
    dob: r('dateOfBirth', isoOf(e.date_of_birth)),
    doj: r('hireDate', isoOf(e.date_of_joining)),
    terminationDate: r('terminationDate', isoOf(e.exit_date)),
    status: r('status', bambooInactive(e) ? 'Inactive' : 'Active'),
    employmentType: r('employmentHistoryStatus', TYPE_WORD[e.employment_type]),
    gender: r('gender', GENDER_WORD[e.gender]),
    maritalStatus: r('maritalStatus', MARITAL_WORD[e.marital_status]),
    designation: orUndefined(e.designation),
    department: e.department,
    groupName: r('division', e.business_unit),
    jobLocation: { city: r('location', e.work_location.city) },
    manager: r('supervisor', e.reporting_manager?.name),
    managerEmail: r('supervisorEmail', e.reporting_manager?.email),
    currentAddress: {
      addressLine: r('address1', orUndefined(addressLine(a))),
      addressCity: r('city', a.city),
      addressState: r('state', a.state),
      addressPincode: r('zipcode', a.pincode),
      addressCountry: r('country', a.country),
    },
    salaryDetails: salaryOf(payAmount(e, v), v),
  };
}

/** The salary hrx stores for a pay rate: INR only, by `payPer`; a restricted `payRate` or `payPer` is none. */
function salaryOf(amount: number | undefined, v: BambooRowVariants): PartialEmployeeRecord['salaryDetails'] {
  if (amount === undefined || v.payCurrency !== 'INR' || v.restrictedFields.includes('payRate') || v.restrictedFields.includes('payPer')) return undefined;
  return v.payPer === 'Year' ? { ctc: { fixedPay: amount } } : { monthly: { fixedPay: amount } };
}
