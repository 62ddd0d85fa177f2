/**
 * Native reference-HRMS employee (see `src/hrms/sim/data.ts`, `NativeEmployee`) -> hrx
 * `PartialEmployeeRecord`. Input is untrusted JSON: every field is read defensively, values that
 * are missing, blank or unparseable are left out (hrx's `normalizeRecord` then fills
 * `NOT AVAILABLE` / `null`), and unknown fields are ignored.
 */
import { HrmsError } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';

/** A JSON object as the HRMS sent it. */
export type Obj = Record<string, unknown>;

/** `employment_status` -> hrx `status`. */
export const STATUS_MAP: Readonly<Record<string, string>> = {
  ACTIVE: 'Active',
  NOTICE_PERIOD: 'Active',
  ON_LEAVE: 'Active',
  PROBATION: 'Active',
  RESIGNED: 'Inactive',
  TERMINATED: 'Inactive',
  RETIRED: 'Inactive',
  ABSCONDED: 'Inactive',
  DECEASED: 'Inactive',
};
/** `employment_type` -> hrx `employmentType`. */
export const EMPLOYMENT_TYPE_MAP: Readonly<Record<string, string>> = {
  FULL_TIME: 'Full Time',
  PART_TIME: 'Part Time',
  CONTRACT: 'Contract',
  INTERN: 'Intern',
  CONSULTANT: 'Consultant',
};
/** `gender` (employee and dependents) -> hrx `gender`. */
export const GENDER_MAP: Readonly<Record<string, string>> = {
  M: 'Male',
  MALE: 'Male',
  F: 'Female',
  FEMALE: 'Female',
  O: 'Other',
  OTHER: 'Other',
};
/** `marital_status` -> hrx `maritalStatus`. */
export const MARITAL_STATUS_MAP: Readonly<Record<string, string>> = {
  SINGLE: 'Single',
  UNMARRIED: 'Single',
  MARRIED: 'Married',
  DIVORCED: 'Divorced',
  WIDOWED: 'Widowed',
  SEPARATED: 'Separated',
};
/** Dependent `relationship` -> hrx `relation`. */
export const RELATION_MAP: Readonly<Record<string, string>> = {
  SPOUSE: 'Spouse',
  WIFE: 'Spouse',
  HUSBAND: 'Spouse',
  SON: 'Son',
  DAUGHTER: 'Daughter',
  FATHER: 'Father',
  MOTHER: 'Mother',
  FATHER_IN_LAW: 'Father-in-law',
  MOTHER_IN_LAW: 'Mother-in-law',
};
/** `compensation.tax_regime` -> hrx `taxRegime`. */
export const TAX_REGIME_MAP: Readonly<Record<string, string>> = { NEW: 'New', OLD: 'Old' };

/** Whether `v` is a JSON object (not an array, not null). */
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `v` when it is a JSON object, else an empty one. */
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});

/** Text that `text` returns as it is: non-blank, no edge whitespace, words joined by one space. */
const NORMAL_TEXT = /^\S+(?: \S+)*$/;

/** Trimmed text with inner whitespace collapsed; numbers become text; blank -> undefined. */
export function text(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return undefined;
  // Most values are already clean (words joined by single spaces): a test allocates nothing,
  // a replace and a trim would copy every one of them (a full sync maps every field).
  if (NORMAL_TEXT.test(v)) return v;
  const t = v.replace(/\s+/g, ' ').trim();
  return t === '' ? undefined : t;
}

/** An enum code through `map` (case and `-`/space-insensitive); unknown codes pass through as text. */
export function enumValue(map: Readonly<Record<string, string>>, v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const key = t.toUpperCase().replace(/[\s-]+/g, '_');
  return Object.hasOwn(map, key) ? map[key] : t;
}

/**
 * `DD/MM/YYYY` (also `D/M/YYYY`, `DD-MM-YYYY`, `DD.MM.YYYY`) or ISO `YYYY-MM-DD` -> `YYYY-MM-DD`;
 * anything else, or an impossible calendar date (31/02/2024), -> undefined.
 */
export function isoDate(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  let m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(t);
  let y: number, mo: number, d: number;
  if (m) [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t))) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else return undefined;
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (y < 1900 || dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return undefined;
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Indian mobile: drops spaces, dashes, `+91`/`91`/`0` prefixes -> 10 digits; other digit runs kept as is. */
export function mobileNumber(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const digits = t.replace(/[\s().-]/g, '').replace(/^\+/, '');
  if (!/^\d+$/.test(digits)) return undefined;
  if (digits.length === 12 && digits.startsWith('91')) return digits.slice(2);
  if (digits.length === 11 && digits.startsWith('0')) return digits.slice(1);
  return digits;
}

/** Money in INR: numbers as is; strings like `"1,23,456.50"` or `"₹ 2500"` parsed; else undefined. */
export function money(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  const t = text(v);
  if (t === undefined) return undefined;
  const cleaned = t.replace(/^(₹|INR|Rs\.?)\s*/i, '').replace(/,/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return undefined;
  return Number(cleaned);
}

/** Normalizes `B+ve`, `b positive`, `AB -`, `O+` to `B+`, `AB-`, `O+`; unknown text passes through. */
export function bloodGroup(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const m = /^(AB|A|B|O)\s*(\+|-|\+ ?ve|- ?ve|pos(?:itive)?|neg(?:ative)?)$/i.exec(t);
  if (!m) return t;
  return `${m[1]!.toUpperCase()}${/^(\+|pos)/i.test(m[2]!) ? '+' : '-'}`;
}

const lower = (v: unknown): string | undefined => text(v)?.toLowerCase();
const upperNoSpace = (v: unknown): string | undefined => text(v)?.replace(/\s/g, '').toUpperCase();
const int = (v: unknown, lo: number, hi: number): number | undefined => {
  const n = money(v);
  return n !== undefined && Number.isInteger(n) && n >= lo && n <= hi ? n : undefined;
};

/** Removes `undefined` fields and nested objects left empty; arrays are kept (every product's mapping ends with it). */
export function compact<T>(o: T): T {
  if (!isObj(o)) return o;
  // Object.keys and a plain loop, not Object.entries: no [key, value] pair per field (this runs
  // on every object of every employee of a sync).
  const out: Obj = {};
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let v = o[k];
    if (v === undefined) continue;
    if (isObj(v)) {
      v = compact(v);
      if (isEmptyObj(v as Obj)) continue;
    }
    out[k] = v;
  }
  return out as T;
}

/** Whether `o` has no own enumerable key (without building the key array). */
function isEmptyObj(o: Obj): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}

function address(v: unknown) {
  const a = obj(v);
  const line = [text(a.line1), text(a.line2)].filter((x) => x !== undefined).join(', ');
  return {
    addressLine: line === '' ? undefined : line,
    addressCity: text(a.city),
    addressState: text(a.state),
    addressPincode: text(a.pincode)?.replace(/\s/g, ''),
    addressCountry: text(a.country),
  };
}

function bonus(v: unknown) {
  const b = obj(v);
  return {
    joining: money(b.joining),
    referral: money(b.referral),
    retention: money(b.retention),
    performance: money(b.performance),
    relocation: money(b.relocation),
    misc: money(b.other),
  };
}

/** Pay components shared by the annual (`ctc`) and `monthly` blocks. */
function components(v: unknown) {
  const c = obj(v);
  const d = obj(c.deductions);
  return {
    basic: money(c.basic),
    dearnessAllowance: money(c.da),
    hra: money(c.hra),
    gratuity: money(c.gratuity),
    medicalAllowance: money(c.medical_allowance),
    travelAllowance: money(c.lta),
    specialAllowance: money(c.special_allowance),
    otherAllowance: money(c.other_allowance),
    flexiBasketAllowance: money(c.flexi_benefits),
    grossPay: money(c.gross_salary),
    bonus: bonus(c.bonus),
    deductions: {
      pf: money(d.pf_employee),
      esi: money(d.esic),
      professionalTax: money(d.professional_tax),
      labourWelfareFund: money(d.lwf),
      misc: money(d.other),
      nps: money(d.nps_employee),
    },
  };
}

function salary(v: unknown): PartialEmployeeRecord['salaryDetails'] {
  if (!isObj(v)) return undefined;
  const taxRegime = enumValue(TAX_REGIME_MAP, v.tax_regime);
  const annual = obj(v.annual);
  const out: NonNullable<PartialEmployeeRecord['salaryDetails']> = {
    ctc: isObj(v.annual) ? { ...components(annual), fixedPay: money(annual.fixed_ctc), taxRegime } : undefined,
  };
  if (isObj(v.monthly)) {
    const m = v.monthly,
      base = components(m),
      d = obj(m.deductions);
    out.monthly = {
      ...base,
      month: int(m.month, 1, 12),
      year: int(m.year, 1900, 9999),
      fixedPay: money(m.fixed_pay),
      taxRegime,
      deductions: {
        ...base.deductions,
        tds: money(d.tds),
        medicalClaimDeduction: money(d.mediclaim),
        groupTermInsuranceDeductions: money(d.gtli),
        earlyWageDeduction: money(d.ewa_recovery),
      },
      reimbursements: money(m.reimbursements),
      netPay: money(m.net_pay),
      paidOn: isoDate(m.paid_on),
    };
  }
  return out;
}

/**
 * One entry of the reference payroll API (`GET /api/v1/payroll/months`, docs/pay-history.md
 * "Where months come from"): `{employee_code, tax_regime, month, year, ...components, net_pay,
 * paid_on}` -> the employee's HRMS id and the `monthly` pay month, or null when it names no
 * employee or no valid month and year.
 */
export function mapPayMonth(v: unknown): { employeeId: string; month: NonNullable<NonNullable<PartialEmployeeRecord['salaryDetails']>['monthly']> } | null {
  const e = obj(v);
  const employeeId = text(e.employee_code);
  const monthly = salary({ tax_regime: e.tax_regime, monthly: e })?.monthly;
  if (!employeeId || !monthly || typeof monthly.month !== 'number' || typeof monthly.year !== 'number') return null;
  return { employeeId, month: monthly };
}

function dependent(v: unknown): NonNullable<PartialEmployeeRecord['dependentDetails']>[number] {
  const d = obj(v);
  return {
    name: text(d.full_name),
    relation: enumValue(RELATION_MAP, d.relationship),
    dob: isoDate(d.date_of_birth),
    email: lower(d.email),
    gender: enumValue(GENDER_MAP, d.gender),
    mobileNumber: mobileNumber(d.phone),
    profession: text(d.occupation),
  };
}

/**
 * Maps one native employee to a `PartialEmployeeRecord` with hrx's field names. Throws
 * `HrmsError('bad_response')` when it is not an object or has no `employee_code` (the message
 * carries no employee values).
 */
export function mapEmployee(native: unknown): PartialEmployeeRecord {
  if (!isObj(native)) throw new HrmsError('bad_response', 'HRMS returned an employee that is not an object');
  const e = native;
  const employeeId = text(e.employee_code);
  if (employeeId === undefined) throw new HrmsError('bad_response', 'HRMS returned an employee without employee_code');
  const name = [text(e.first_name), text(e.middle_name), text(e.last_name)].filter((x) => x !== undefined).join(' ');
  const mgr = obj(e.reporting_manager);
  const skips = Array.isArray(e.skip_level_managers) ? e.skip_level_managers.map(lower) : [];
  const bank = obj(e.bank),
    work = obj(e.work_location);
  const record: PartialEmployeeRecord = {
    employeeId,
    name: name === '' ? undefined : name,
    email: lower(e.official_email),
    personalEmail: lower(e.personal_email),
    doj: isoDate(e.date_of_joining),
    dob: isoDate(e.date_of_birth),
    status: enumValue(STATUS_MAP, e.employment_status),
    employmentType: enumValue(EMPLOYMENT_TYPE_MAP, e.employment_type),
    gender: enumValue(GENDER_MAP, e.gender),
    maritalStatus: enumValue(MARITAL_STATUS_MAP, e.marital_status),
    pan: upperNoSpace(e.pan_number),
    aadhar: upperNoSpace(e.aadhaar_number),
    uan: upperNoSpace(e.uan),
    mobileNumber: mobileNumber(e.mobile),
    nationality: text(e.nationality),
    fatherName: text(e.father_name),
    bloodGroup: bloodGroup(e.blood_group),
    designation: text(e.designation),
    department: text(e.department),
    grade: text(e.grade),
    groupName: text(e.business_unit),
    costCenter: text(e.cost_center),
    companyName: text(e.legal_entity),
    terminationDate: isoDate(e.exit_date),
    manager: text(mgr.name),
    managerEmail: lower(mgr.email),
    managerEmail2: skips[0],
    managerEmail3: skips[1],
    managerEmail4: skips[2],
    managerEmail5: skips[3],
    countryCode: text(e.country)?.toUpperCase(),
    bankDetails: {
      accountNumber: text(bank.account_number)?.replace(/\s/g, ''),
      ifscCode: upperNoSpace(bank.ifsc),
      bankName: text(bank.bank_name),
    },
    currentAddress: address(e.current_address),
    permanentAddress: address(e.permanent_address),
    jobLocation: { city: text(work.city), pincode: text(work.pincode)?.replace(/\s/g, '') },
    employeeMetadata: { marriageDate: isoDate(e.marriage_date) },
    dependentDetails: Array.isArray(e.dependents) ? e.dependents.filter(isObj).map((d) => compact(dependent(d))) : undefined,
    salaryDetails: salary(e.compensation),
  };
  return compact(record);
}
