/**
 * Native reference-HRMS employee (see `src/hrms/sim/data.ts`, `NativeEmployee`) -> hrx
 * `PartialEmployeeRecord`. Input is untrusted JSON: every field is read defensively, values that
 * are missing, blank or unparseable are left out (hrx's `normalizeRecord` then fills
 * `NOT AVAILABLE` / `null`), and unknown fields are ignored.
 */
import { HrmsError } from '../connector';
import { bloodGroup, compact, enumValue, GENDER_MAP, isObj, isoDate, MARITAL_STATUS_MAP, mobileNumber, money, obj, RELATION_MAP, text } from '../decode';
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
const int = (v: unknown, lo: number, hi: number): number | undefined => {
  const n = money(v);
  return n !== undefined && Number.isInteger(n) && n >= lo && n <= hi ? n : undefined;
};

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
