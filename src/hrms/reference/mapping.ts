/**
 * Native reference-HRMS employee (see `src/hrms/sim/data.ts`, `NativeEmployee`) -> hrx
 * `PartialEmployeeRecord`. Input is untrusted JSON: every field is read defensively, values that
 * are missing, blank or unparseable are left out (hrx's `normalizeRecord` then fills
 * `NOT AVAILABLE` / `null`), and unknown fields are ignored.
 *
 * The mapping is the rows of `REFERENCE_MAPPING` (src/hrms/mapping-table.ts); every field is one
 * of `NativeEmployee` (src/hrms/sim/data.ts), hrx's own HRMS API, which the rows cite as "N".
 */
import { HrmsError } from '../connector';
import { bloodGroup, enumValue, GENDER_MAP, isObj, isoDate, MARITAL_STATUS_MAP, mobileNumber, money, obj, RELATION_MAP, text } from '../decode';
import { mapWith, type MappingRow, type MappingTable, type NativeRow } from '../mapping-table';
import type { PartialEmployeeRecord } from '../../domain/record';

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
/** `compensation.tax_regime` -> hrx `taxRegime`. */
export const TAX_REGIME_MAP: Readonly<Record<string, string>> = { NEW: 'New', OLD: 'Old' };

const lower = (v: unknown): string | undefined => text(v)?.toLowerCase();
const upperNoSpace = (v: unknown): string | undefined => text(v)?.replace(/\s/g, '').toUpperCase();
const noSpace = (v: unknown): string | undefined => text(v)?.replace(/\s/g, '');
const int = (v: unknown, lo: number, hi: number): number | undefined => {
  const n = money(v);
  return n !== undefined && Number.isInteger(n) && n >= lo && n <= hi ? n : undefined;
};

type Row = MappingRow<undefined, NativeRow>;
/** hrx's own API: every field is one of `NativeEmployee` (src/hrms/sim/data.ts). */
const N = 'N (`NativeEmployee`, src/hrms/sim/data.ts)';
/** A row reading `field` of the (nested) object through `decode`. */
const at =
  (decode: (v: unknown) => unknown) =>
  (point: string, field: string, note?: string): Row => ({ point, fields: [field], read: (r) => decode(r[field]), source: N, ...(note ? { note } : {}) });
const txt = at(text),
  amount = at(money),
  day = at(isoDate);
/** A row whose value is the nested record `field`, read by `rows` (`many`: a list of them). */
const nested = (point: string, field: string, rows: readonly Row[], many = false): Row => ({
  point,
  fields: [field],
  read: (r) => r[field],
  source: N,
  rows,
  many,
});

const ADDRESS: readonly Row[] = [
  {
    point: 'addressLine',
    fields: ['line1', 'line2'],
    read: (a) => [text(a.line1), text(a.line2)].filter((x) => x !== undefined).join(', ') || undefined,
    source: N,
    note: 'joined by `, `',
  },
  txt('addressCity', 'city'),
  txt('addressState', 'state'),
  at(noSpace)('addressPincode', 'pincode'),
  txt('addressCountry', 'country'),
];

const BONUS: readonly Row[] = [
  amount('joining', 'joining'),
  amount('referral', 'referral'),
  amount('retention', 'retention'),
  amount('performance', 'performance'),
  amount('relocation', 'relocation'),
  amount('misc', 'other'),
];
const DEDUCTIONS: readonly Row[] = [
  amount('pf', 'pf_employee'),
  amount('esi', 'esic'),
  amount('professionalTax', 'professional_tax'),
  amount('labourWelfareFund', 'lwf'),
  amount('misc', 'other'),
  amount('nps', 'nps_employee'),
];

/** Pay components shared by the annual (`ctc`) and `monthly` blocks. */
const COMPONENTS: readonly Row[] = [
  amount('basic', 'basic'),
  amount('dearnessAllowance', 'da'),
  amount('hra', 'hra'),
  amount('gratuity', 'gratuity'),
  amount('medicalAllowance', 'medical_allowance'),
  amount('travelAllowance', 'lta'),
  amount('specialAllowance', 'special_allowance'),
  amount('otherAllowance', 'other_allowance'),
  amount('flexiBasketAllowance', 'flexi_benefits'),
  amount('grossPay', 'gross_salary'),
  nested('bonus', 'bonus', BONUS),
];
/** `tax_regime` is the compensation's, handed down into each block read (`block`). */
const taxRegime: Row = { point: 'taxRegime', fields: ['tax_regime'], read: (b) => enumValue(TAX_REGIME_MAP, b.tax_regime), source: N, note: 'NEW, OLD' };
const CTC: readonly Row[] = [...COMPONENTS, nested('deductions', 'deductions', DEDUCTIONS), amount('fixedPay', 'fixed_ctc'), taxRegime];
const MONTHLY: readonly Row[] = [
  ...COMPONENTS,
  nested('deductions', 'deductions', [
    ...DEDUCTIONS,
    amount('tds', 'tds'),
    amount('medicalClaimDeduction', 'mediclaim'),
    amount('groupTermInsuranceDeductions', 'gtli'),
    amount('earlyWageDeduction', 'ewa_recovery'),
  ]),
  { point: 'month', fields: ['month'], read: (m) => int(m.month, 1, 12), source: N, note: '1 to 12' },
  { point: 'year', fields: ['year'], read: (m) => int(m.year, 1900, 9999), source: N },
  amount('fixedPay', 'fixed_pay'),
  taxRegime,
  amount('reimbursements', 'reimbursements'),
  amount('netPay', 'net_pay'),
  day('paidOn', 'paid_on'),
];
/** A pay block (`annual`, `monthly`) of `compensation` with the compensation's `tax_regime`. */
const block = (c: NativeRow, key: string): NativeRow | undefined => (isObj(c[key]) ? { ...c[key], tax_regime: c.tax_regime } : undefined);

const DEPENDENT: readonly Row[] = [
  txt('name', 'full_name'),
  { point: 'relation', fields: ['relationship'], read: (d) => enumValue(RELATION_MAP, d.relationship), source: N },
  day('dob', 'date_of_birth'),
  at(lower)('email', 'email'),
  { point: 'gender', fields: ['gender'], read: (d) => enumValue(GENDER_MAP, d.gender), source: N },
  at(mobileNumber)('mobileNumber', 'phone'),
  txt('profession', 'occupation'),
];

const skip = (n: number): Row => ({
  point: `managerEmail${n + 2}`,
  fields: ['skip_level_managers'],
  read: (e) => (Array.isArray(e.skip_level_managers) ? lower(e.skip_level_managers[n]) : undefined),
  source: N,
  note: `item ${n + 1}, lower-cased`,
});

/** `compensation` → `salaryDetails`: the annual block is `ctc`, the monthly one `monthly`. */
const SALARY: Row = {
  point: 'salaryDetails',
  fields: ['compensation'],
  read: (e) => (isObj(e.compensation) ? { ctc: block(e.compensation, 'annual'), monthly: block(e.compensation, 'monthly') } : undefined),
  source: N,
  rows: [
    { point: 'ctc', fields: ['annual'], read: (c) => c.ctc, source: N, rows: CTC },
    { point: 'monthly', fields: ['monthly'], read: (c) => c.monthly, source: N, rows: MONTHLY },
  ],
};

/** The reference HRMS's mapping (src/hrms/mapping-table.ts): `NativeEmployee` field → record data point. */
export const REFERENCE_MAPPING: MappingTable<undefined, NativeRow> = {
  answeredAlways: ['employee_code'],
  rows: [
    txt('employeeId', 'employee_code'),
    {
      point: 'name',
      fields: ['first_name', 'middle_name', 'last_name'],
      read: (e) => [text(e.first_name), text(e.middle_name), text(e.last_name)].filter((x) => x !== undefined).join(' ') || undefined,
      source: N,
    },
    at(lower)('email', 'official_email'),
    at(lower)('personalEmail', 'personal_email'),
    day('doj', 'date_of_joining'),
    day('dob', 'date_of_birth'),
    { point: 'status', fields: ['employment_status'], read: (e) => enumValue(STATUS_MAP, e.employment_status), source: N, note: '`STATUS_MAP`' },
    { point: 'employmentType', fields: ['employment_type'], read: (e) => enumValue(EMPLOYMENT_TYPE_MAP, e.employment_type), source: N },
    { point: 'gender', fields: ['gender'], read: (e) => enumValue(GENDER_MAP, e.gender), source: N },
    { point: 'maritalStatus', fields: ['marital_status'], read: (e) => enumValue(MARITAL_STATUS_MAP, e.marital_status), source: N },
    at(upperNoSpace)('pan', 'pan_number'),
    at(upperNoSpace)('aadhar', 'aadhaar_number'),
    at(upperNoSpace)('uan', 'uan'),
    at(mobileNumber)('mobileNumber', 'mobile'),
    txt('nationality', 'nationality'),
    txt('fatherName', 'father_name'),
    at(bloodGroup)('bloodGroup', 'blood_group'),
    txt('designation', 'designation'),
    txt('department', 'department'),
    txt('grade', 'grade'),
    txt('groupName', 'business_unit'),
    txt('costCenter', 'cost_center'),
    txt('companyName', 'legal_entity'),
    day('terminationDate', 'exit_date'),
    { point: 'manager', fields: ['reporting_manager.name'], read: (e) => text(obj(e.reporting_manager).name), source: N },
    { point: 'managerEmail', fields: ['reporting_manager.email'], read: (e) => lower(obj(e.reporting_manager).email), source: N },
    skip(0),
    skip(1),
    skip(2),
    skip(3),
    { point: 'countryCode', fields: ['country'], read: (e) => text(e.country)?.toUpperCase(), source: N },
    nested('bankDetails', 'bank', [at(noSpace)('accountNumber', 'account_number'), at(upperNoSpace)('ifscCode', 'ifsc'), txt('bankName', 'bank_name')]),
    nested('currentAddress', 'current_address', ADDRESS),
    nested('permanentAddress', 'permanent_address', ADDRESS),
    nested('jobLocation', 'work_location', [txt('city', 'city'), at(noSpace)('pincode', 'pincode')]),
    day('employeeMetadata.marriageDate', 'marriage_date'),
    nested('dependentDetails', 'dependents', DEPENDENT, true),
    SALARY,
  ],
};

type MonthlyPay = NonNullable<NonNullable<PartialEmployeeRecord['salaryDetails']>['monthly']>;

/**
 * One entry of the reference payroll API (`GET /api/v1/payroll/months`, docs/pay-history.md
 * "Where months come from"): `{employee_code, tax_regime, month, year, ...components, net_pay,
 * paid_on}` -> the employee's HRMS id and the `monthly` pay month (the `monthly` rows of
 * `REFERENCE_MAPPING`), or null when it names no employee or no valid month and year.
 */
export function mapPayMonth(v: unknown): { employeeId: string; month: MonthlyPay } | null {
  const e = obj(v);
  const employeeId = text(e.employee_code);
  const monthly = mapWith({ rows: [SALARY] }, { compensation: { tax_regime: e.tax_regime, monthly: e } }, undefined).salaryDetails?.monthly;
  if (!employeeId || !monthly || typeof monthly.month !== 'number' || typeof monthly.year !== 'number') return null;
  return { employeeId, month: monthly };
}

/**
 * Maps one native employee to a `PartialEmployeeRecord` with hrx's field names, by
 * `REFERENCE_MAPPING`. Throws `HrmsError('bad_response')` when it is not an object or has no
 * `employee_code` (the message carries no employee values).
 */
export function mapEmployee(native: unknown): PartialEmployeeRecord {
  if (!isObj(native)) throw new HrmsError('bad_response', 'HRMS returned an employee that is not an object');
  if (text(native.employee_code) === undefined) throw new HrmsError('bad_response', 'HRMS returned an employee without employee_code');
  return mapWith(REFERENCE_MAPPING, native, undefined);
}
