/**
 * The employee record: the one shape hrx stores and serves (docs/data-points.md;
 * docs/data-points.md). Every response carries the full shape: text without a value is
 * `NOT AVAILABLE`, `terminationDate` is `""` when none, money is `null`, arrays are `[]`.
 *
 * The shapes are type aliases, not interfaces, so a record is assignable to `Json` (interfaces
 * carry no implicit index signature) and the walkers below need no casts.
 */
import { isJsonObject, type Json } from './json';
import { canonicalEmployeeId } from './ids';

/** Literal carried by text fields that have no value (docs/data-points.md). */
export const NOT_AVAILABLE = 'NOT AVAILABLE';

/** A money amount in INR (rupees, may carry paise as decimals), or null when unknown. */
export type Money = number | null;

export type BonusBreakdown = {
  joining: Money;
  referral: Money;
  retention: Money;
  performance: Money;
  relocation: Money;
  misc: Money;
};

export type CtcDeductions = {
  pf: Money;
  esi: Money;
  professionalTax: Money;
  labourWelfareFund: Money;
  misc: Money;
  nps: Money;
};

export type MonthlyDeductions = CtcDeductions & {
  tds: Money;
  medicalClaimDeduction: Money;
  groupTermInsuranceDeductions: Money;
  earlyWageDeduction: Money;
};

/** Annual cost-to-company breakdown, INR per year. */
export type CtcDetails = {
  basic: Money;
  dearnessAllowance: Money;
  hra: Money;
  gratuity: Money;
  medicalAllowance: Money;
  travelAllowance: Money;
  specialAllowance: Money;
  otherAllowance: Money;
  flexiBasketAllowance: Money;
  grossPay: Money;
  fixedPay: Money;
  taxRegime: string | null;
  bonus: BonusBreakdown;
  deductions: CtcDeductions;
};

/** One month's pay breakdown, INR for that month. */
export type MonthlyDetails = {
  month: number | null;
  year: number | null;
  basic: Money;
  dearnessAllowance: Money;
  hra: Money;
  medicalAllowance: Money;
  travelAllowance: Money;
  specialAllowance: Money;
  flexiBasketAllowance: Money;
  gratuity: Money;
  otherAllowance: Money;
  fixedPay: Money;
  grossPay: Money;
  taxRegime: string | null;
  bonus: BonusBreakdown;
  deductions: MonthlyDeductions;
  reimbursements: Money;
  /** The net pay the HRMS reports for the month (hrx never computes one); null when unknown (docs/data-points.md "Pay history"). */
  netPay: Money;
  /** The day the month's pay was paid, `YYYY-MM-DD`; null when unknown. */
  paidOn: string | null;
};

/** One pay month as stored and served (docs/pay-history.md "What is kept"): the `monthly` shape with `month` and `year` set. */
export type PayMonth = MonthlyDetails & { month: number; year: number };

export type Address = {
  addressPincode: string;
  addressCity: string;
  addressCountry: string;
  addressState: string;
  addressLine: string;
};

export type Dependent = {
  name: string;
  relation: string;
  dob: string;
  email: string;
  gender: string;
  mobileNumber: string;
  profession: string;
};

/** The full employee record of docs/data-points.md, field for field. */
export type EmployeeRecord = {
  id: string;
  employeeId: string;
  name: string;
  email: string;
  personalEmail: string;
  doj: string;
  dob: string;
  status: string;
  employmentType: string;
  gender: string;
  maritalStatus: string;
  pan: string;
  aadhar: string;
  uan: string;
  mobileNumber: string;
  nationality: string;
  fatherName: string;
  bloodGroup: string;
  designation: string;
  department: string;
  grade: string;
  groupName: string;
  costCenter: string;
  companyName: string;
  terminationDate: string;
  manager: string;
  managerEmail: string;
  managerEmail2: string;
  managerEmail3: string;
  managerEmail4: string;
  managerEmail5: string;
  countryCode: string;
  bankDetails: { accountNumber: string; ifscCode: string; bankName: string };
  currentAddress: Address;
  permanentAddress: Address;
  jobLocation: { pincode: string; city: string };
  employeeMetadata: { marriageDate: string };
  dependentDetails: Dependent[];
  salaryDetails: { ctc: CtcDetails; monthly: MonthlyDetails };
};

/** Recursively optional: what a connector or the update webhook may supply. */
export type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> | null } : T;

/** A record as a connector produces it before defaults are applied. */
export type PartialEmployeeRecord = DeepPartial<EmployeeRecord> & { employeeId: string };

const NA = NOT_AVAILABLE;
const bonus = (): BonusBreakdown => ({
  joining: null,
  referral: null,
  retention: null,
  performance: null,
  relocation: null,
  misc: null,
});
const ctcDeductions = (): CtcDeductions => ({
  pf: null,
  esi: null,
  professionalTax: null,
  labourWelfareFund: null,
  misc: null,
  nps: null,
});
const address = (): Address => ({
  addressPincode: NA,
  addressCity: NA,
  addressCountry: NA,
  addressState: NA,
  addressLine: NA,
});

/** A dependent with every field empty (`NOT AVAILABLE`). */
export function emptyDependent(): Dependent {
  return { name: NA, relation: NA, dob: NA, email: NA, gender: NA, mobileNumber: NA, profession: NA };
}

/**
 * A record with every field at its empty value (docs/data-points.md): text `NOT AVAILABLE`,
 * `terminationDate` `""`, numbers `null`, arrays `[]`. A fresh object on every call.
 */
export function emptyRecord(): EmployeeRecord {
  return {
    id: NA,
    employeeId: NA,
    name: NA,
    email: NA,
    personalEmail: NA,
    doj: NA,
    dob: NA,
    status: NA,
    employmentType: NA,
    gender: NA,
    maritalStatus: NA,
    pan: NA,
    aadhar: NA,
    uan: NA,
    mobileNumber: NA,
    nationality: NA,
    fatherName: NA,
    bloodGroup: NA,
    designation: NA,
    department: NA,
    grade: NA,
    groupName: NA,
    costCenter: NA,
    companyName: NA,
    terminationDate: '',
    manager: NA,
    managerEmail: NA,
    managerEmail2: NA,
    managerEmail3: NA,
    managerEmail4: NA,
    managerEmail5: NA,
    countryCode: NA,
    bankDetails: { accountNumber: NA, ifscCode: NA, bankName: NA },
    currentAddress: address(),
    permanentAddress: address(),
    jobLocation: { pincode: NA, city: NA },
    employeeMetadata: { marriageDate: NA },
    dependentDetails: [],
    salaryDetails: {
      ctc: {
        basic: null,
        dearnessAllowance: null,
        hra: null,
        gratuity: null,
        medicalAllowance: null,
        travelAllowance: null,
        specialAllowance: null,
        otherAllowance: null,
        flexiBasketAllowance: null,
        grossPay: null,
        fixedPay: null,
        taxRegime: null,
        bonus: bonus(),
        deductions: ctcDeductions(),
      },
      monthly: {
        month: null,
        year: null,
        basic: null,
        dearnessAllowance: null,
        hra: null,
        medicalAllowance: null,
        travelAllowance: null,
        specialAllowance: null,
        flexiBasketAllowance: null,
        gratuity: null,
        otherAllowance: null,
        fixedPay: null,
        grossPay: null,
        taxRegime: null,
        bonus: bonus(),
        deductions: {
          ...ctcDeductions(),
          tds: null,
          medicalClaimDeduction: null,
          groupTermInsuranceDeductions: null,
          earlyWageDeduction: null,
        },
        reimbursements: null,
        netPay: null,
        paidOn: null,
      },
    },
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Fills `template` from `input`, field by field, keeping the template's shape: unknown keys are
 * dropped, `null`/`undefined`/blank text keep the empty value, numbers stay numbers. Used to
 * normalize connector output (template = empty record) and the dependents of webhook updates.
 * The result has the template's shape (the overload says so; every branch returns the template
 * or a value of the template's kind).
 */
function fill<T extends Json>(template: T, input: unknown): T;
function fill(template: Json, input: unknown): Json {
  if (input === undefined || input === null) return template;
  if (Array.isArray(template)) {
    return Array.isArray(input) ? input.map((item) => fill(emptyDependent(), item)) : template;
  }
  if (isJsonObject(template)) {
    if (!isPlainObject(input)) return template;
    // A copy of the template, then overwritten field by field: the result keeps the template's
    // fast shape (an empty object given 40-odd fields by key falls into dictionary mode in V8,
    // which makes every later read, spread and JSON.stringify of the record slower: a full sync
    // does all three per employee). Object.keys and a plain loop: no [key, value] pair per field.
    const out: Record<string, Json> = { ...template };
    const keys = Object.keys(template);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      out[k] = fill(template[k]!, input[k]);
    }
    return out;
  }
  if (typeof template === 'string' || template === null) {
    if (typeof input === 'string') {
      const t = input.trim();
      return t === '' ? template : t;
    }
    if (typeof input === 'number' && typeof template !== 'string') {
      return Number.isFinite(input) ? input : template;
    }
    if (typeof input === 'number') return String(input);
    return template;
  }
  return template;
}

/**
 * Normalizes a connector's partial record into the full shape of docs/data-points.md with the defaults
 * of docs/data-points.md. `id` is the store's id for the employee and is supplied by the caller.
 */
export function normalizeRecord(partial: PartialEmployeeRecord, id: string): EmployeeRecord {
  const rec = fill(emptyRecord(), partial);
  rec.id = id;
  rec.employeeId = canonicalEmployeeId(partial.employeeId);
  // `terminationDate` is the one text field whose empty value is "" rather than NOT AVAILABLE.
  if (rec.terminationDate === NOT_AVAILABLE) rec.terminationDate = '';
  return rec;
}

/**
 * Merges `update` onto `current`, walking `empty` (the record's empty values) alongside: present
 * text and numbers overwrite; absent, `null` and blank text leave the stored value unchanged, so
 * a sender that serializes unset fields as null or "" cannot erase data; the literal
 * `NOT AVAILABLE` clears a text field to its empty value (`""` for `terminationDate`); nested
 * objects merge field by field; arrays (dependents) are replaced whole, each item filled onto an
 * empty dependent. Unknown keys are ignored (the webhook's schema refuses them first).
 * The result has `current`'s shape (the overload says so).
 */
function merge<T extends Json>(current: T, update: unknown, empty: Json): T;
function merge(current: Json, update: unknown, empty: Json): Json {
  if (update === undefined || update === null) return current;
  if (Array.isArray(current)) {
    return Array.isArray(update) ? update.map((item) => fill(emptyDependent(), item)) : current;
  }
  if (isJsonObject(current)) {
    if (!isPlainObject(update)) return current;
    const emptyObj = isJsonObject(empty) ? empty : {};
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(current)) out[k] = merge(v, update[k], emptyObj[k] ?? null);
    return out;
  }
  if (typeof update === 'string') {
    const t = update.trim();
    if (t === '') return current;
    return t === NOT_AVAILABLE ? empty : t;
  }
  if (typeof update === 'number') return Number.isFinite(update) ? update : current;
  return current;
}

/**
 * Merges a partial update into an existing record (docs/api.md "Employee update webhook"; rules at `merge` above, also in
 * README "Employee update webhook"). `id` and `employeeId` are kept from `current`.
 */
export function mergeRecord(current: EmployeeRecord, update: DeepPartial<EmployeeRecord>): EmployeeRecord {
  const merged = merge(current, update, emptyRecord());
  merged.id = current.id;
  merged.employeeId = current.employeeId;
  return merged;
}
