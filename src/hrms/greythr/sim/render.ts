/**
 * The greytHR simulator's data: the canonical employees of `data.ts` as greytHR's list endpoints
 * show them (one record per employee and section, joined by the numeric `employeeId`; numbers into
 * lists of values; categories with their descriptions), and the ground truth hrx must store for
 * each, computed from the canonical employee with the mapping table of src/hrms/greythr/README.md.
 * Field names follow Airbyte's live-sampled greytHR schema (the sources in src/hrms/greythr/README.md); what the research marks
 * `?` is a switch (`GreythrShape`).
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import { BANKS, employeeCode, type NativeAddress, type NativeEmployee } from '../../sim/data';
import { dmy, hasLeft } from '../../sim/kit';
import {
  bloodOf as bloodGroupOf,
  fullNameOf,
  isoOf as isoDay,
  MARITAL_WORD as MARITAL_WORDS,
  orNone as orAbsent,
  tenDigits as lastTenDigits,
} from '../../sim/kit';

/** The sections (list endpoints under `/employee/v2/employees`) the simulator serves. */
export const SECTIONS = ['employees', 'personal', 'statutory', 'pf', 'bank', 'separation', 'categories', 'addresses'] as const;
export type Section = (typeof SECTIONS)[number];
/** The path of each section under `/employee/v2/employees` (`''` is the list itself). */
export const SECTION_PATHS: Readonly<Record<Section, string>> = {
  employees: '',
  personal: '/personal',
  statutory: '/statutory/india',
  pf: '/pf',
  bank: '/bank',
  separation: '/separation',
  categories: '/categories',
  addresses: '/addresses',
};

/** The switches that change what records look like (the research's `?`s). */
export interface GreythrShape {
  /** How dates are written: ISO `2024-03-01`, `01-03-2024`, or `01 Mar 2024`. */
  dateFormat: 'iso' | 'dmy' | 'dmon';
  /** `gender` as `Male` or `M`. */
  gender: 'word' | 'letter';
  /** Where PAN and Aadhaar sit in the statutory record: `panNumber`/`aadhaarNumber`, `pan`/`aadhaar`, or not at all. */
  idKeys: 'long' | 'short' | 'none';
  /** The key of the IFSC in the bank record (the research infers `branchCode`). */
  ifscKey: 'branchCode' | 'ifscCode';
  /** Lookup-backed fields as numeric ids into the lists of values (true) or as their text. */
  lovIds: boolean;
  /** Categories carry `categoryDesc`/`valueDesc` (what `descRequired=true` asks for). */
  categoryDescs: boolean;
  /** A section omits employees it holds nothing for (true), or lists them with empty fields. */
  sparse: boolean;
}

/** The lists of values (`POST /hr/v2/lov`): name → id → text. */
export const LOVS: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  MaritalStatus: { 1: 'Single', 2: 'Married', 3: 'Divorced', 4: 'Widowed' },
  BloodGroup: { 1: 'A+ve', 2: 'A-ve', 3: 'B+ve', 4: 'B-ve', 5: 'O+ve', 6: 'O-ve', 7: 'AB+ve', 8: 'AB-ve' },
  Nationality: { 1: 'Indian', 2: 'Nepalese' },
  Bank: Object.fromEntries(BANKS.map(([name], k) => [k + 1, name])),
  LeavingReason: { 1: 'Resignation', 2: 'Termination', 3: 'Retirement' },
};
const MARITAL_IDS: Readonly<Record<string, number>> = { SINGLE: 1, MARRIED: 2, DIVORCED: 3, WIDOWED: 4 };
const BLOOD_IDS: Readonly<Record<string, number>> = { 'A+': 1, 'A-': 2, 'B+': 3, 'B-': 4, 'O+': 5, 'O-': 6, 'AB+': 7, 'AB-': 8 };
/** The id no list of values knows: every 89th employee's marital status (an untranslatable number). */
export const UNKNOWN_LOV_ID = 99;

/** The categories (`/hr/v2/categories`): id and description. */
export const CATEGORIES = [
  [1, 'Department'],
  [2, 'Designation'],
  [3, 'Location'],
  [4, 'Grade'],
  [5, 'Cost Center'],
  [6, 'Company'],
  [7, 'Business Unit'],
  [8, 'Employee Type'],
] as const;
/** greytHR's employee types for the canonical `employment_type`, and hrx's word for each. */
const EMPLOYEE_TYPES: Readonly<Record<string, [string, string]>> = {
  FULL_TIME: ['Permanent', 'Full Time'],
  PART_TIME: ['Part Time', 'Part Time'],
  CONTRACT: ['Contract', 'Contract'],
  INTERN: ['Trainee', 'Intern'],
};

/** greytHR's numeric `employeeId` of canonical index `i` (ascending with `i`, never equal to it). */
export const greythrId = (i: number): number => 100_000 + i * 7;
/** The canonical index of a greytHR `employeeId`, or `undefined`. */
export const indexOfGreythrId = (id: number): number | undefined =>
  Number.isSafeInteger(id) && id > 100_000 && (id - 100_000) % 7 === 0 ? (id - 100_000) / 7 : undefined;

/** The id of a category value: a stable FNV-1a hash of its text (no table to keep). */
export function valueId(text: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < text.length; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
  return 1000 + ((h >>> 0) % 9_000_000);
}

const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');
/** A canonical `DD/MM/YYYY` date in greytHR's `dateFormat`. */
function day(v: string | null | undefined, f: GreythrShape['dateFormat']): string | null {
  const p = dmy(v);
  if (!p) return null;
  const [y, m, d] = [p.y, p.m, p.d].map((n) => String(n).padStart(2, '0')) as [string, string, string];
  return f === 'iso' ? `${y}-${m}-${d}` : f === 'dmy' ? `${d}-${m}-${y}` : `${d} ${MONTHS[Number(m) - 1]} ${y}`;
}
/** A day offset from a canonical date, as canonical `DD/MM/YYYY`. */
function shift(v: string, days: number): string {
  const { y, m, d } = dmy(v)!;
  const dt = new Date(Date.UTC(y, m - 1, d + days));
  return `${String(dt.getUTCDate()).padStart(2, '0')}/${String(dt.getUTCMonth() + 1).padStart(2, '0')}/${dt.getUTCFullYear()}`;
}

/** Every 53rd employee has no usable birth date: blank, or the zero date. */
const noBirthDate = (i: number): boolean => i % 53 === 0;
/** Every 97th working employee was rehired: a separation of an earlier stint, before the current joining date. */
const rehired = (i: number, e: NativeEmployee): boolean => i % 97 === 0 && e.employment_status === 'ACTIVE';
/** Every 11th employee (joined before mid-2025) moved department: an expired category entry precedes the current one. */
const movedDepartment = (i: number, e: NativeEmployee): boolean => i % 11 === 0 && (dmy(e.date_of_joining)?.y ?? 9999) < 2025;
const lov = (shape: GreythrShape, name: string, id: number | undefined): number | string | null =>
  id === undefined ? null : shape.lovIds ? id : (LOVS[name]?.[id] ?? null);
const text = (v: string | null | undefined): string | null => (v ? v : null);
const reasonId = (e: NativeEmployee): number => (e.employment_status === 'TERMINATED' ? 2 : 1);

/** The record of section `s` for employee `i` (`e` its current canonical data), or `null` when a sparse section holds nothing for it. */
export function sectionRecord(s: Section, i: number, e: NativeEmployee, shape: GreythrShape, modifiedAt: number): Record<string, unknown> | null {
  const employeeId = greythrId(i);
  const empty = !shape.sparse ? { employeeId } : null;
  switch (s) {
    case 'employees':
      return {
        employeeId,
        employeeNo: employeeCode(i),
        name: fullNameOf(e),
        firstName: e.first_name,
        middleName: text(e.middle_name),
        lastName: e.last_name,
        email: e.official_email,
        personalEmail: text(e.personal_email),
        personalEmail2: null,
        personalEmail3: null,
        mobile: e.mobile,
        gender: shape.gender === 'word' ? { M: 'Male', F: 'Female', O: 'Other' }[e.gender] : e.gender,
        dateOfBirth: noBirthDate(i) ? (i % 2 ? '0000-00-00' : '') : day(e.date_of_birth, shape.dateFormat),
        dateOfJoin: day(e.date_of_joining, shape.dateFormat),
        leavingDate: day(e.exit_date, shape.dateFormat),
        leftorg: hasLeft(e),
        status: hasLeft(e) ? 0 : 1,
        probationPeriod: 6,
        title: e.gender === 'F' ? 'Ms.' : 'Mr.',
        lastModified: new Date(modifiedAt).toISOString(),
      };
    case 'personal':
      return {
        employeeId,
        spouseName: null,
        maritalStatus: lov(shape, 'MaritalStatus', i % 89 === 0 ? UNKNOWN_LOV_ID : MARITAL_IDS[e.marital_status]),
        bloodGroup: lov(shape, 'BloodGroup', BLOOD_IDS[bloodGroupOf(e.blood_group) ?? '']),
      };
    case 'statutory':
      return {
        employeeId,
        fatherName: text(e.father_name),
        nationality: lov(shape, 'Nationality', 1),
        residentialStatus: 1,
        birthplace: null,
        disabled: false,
        expatriate: false,
        isDirector: false,
        ...(shape.idKeys === 'long'
          ? { panNumber: e.pan_number, aadhaarNumber: e.aadhaar_number }
          : shape.idKeys === 'short'
            ? { pan: e.pan_number, aadhaar: e.aadhaar_number }
            : {}),
      };
    case 'pf':
      return e.uan === null
        ? empty
        : { employeeId, pfNumber: `KA/BLR/0098765/000/${String(i).padStart(7, '0')}`, uan: e.uan, pfEligible: true, esiEligible: false };
    case 'bank': {
      if (!e.bank) return empty;
      const bank = BANKS.findIndex(([name]) => name === e.bank!.bank_name) + 1;
      return {
        employeeId,
        bankAccountNumber: e.bank.account_number,
        bankName: lov(shape, 'Bank', bank),
        bankBranch: 40 + (i % 9),
        [shape.ifscKey]: e.bank.ifsc,
        salaryPaymentMode: 1,
      };
    }
    case 'separation': {
      if (rehired(i, e))
        return {
          employeeId,
          leavingDate: day(shift(e.date_of_joining, -400), shape.dateFormat),
          leavingReason: lov(shape, 'LeavingReason', 1),
          leftOrg: false,
        };
      if (!e.exit_date) return empty;
      const submitted = day(shift(e.exit_date, -30), shape.dateFormat);
      return {
        employeeId,
        submissionDate: submitted,
        tentativeLeavingDate: day(e.exit_date, shape.dateFormat),
        leavingDate: day(e.exit_date, shape.dateFormat),
        leavingReason: lov(shape, 'LeavingReason', reasonId(e)),
        leftOrg: hasLeft(e),
        submittedResignation: e.employment_status !== 'TERMINATED',
      };
    }
    case 'categories':
      return { employeeId, categoryList: categoryList(i, e, shape) };
    case 'addresses': {
      const list = [
        ['Present Address', e.current_address],
        ['Permanent Address', e.permanent_address],
      ] as const;
      return { employeeId, addresses: list.filter(([, a]) => a).map(([type, a]) => addressOf(type, a!)) };
    }
  }
}

function addressOf(addressType: string, a: NativeAddress) {
  return { addressType, address1: a.line1, address2: text(a.line2), address3: null, city: a.city, state: a.state, country: a.country, pin: a.pincode };
}

function categoryList(i: number, e: NativeEmployee, shape: GreythrShape) {
  const from = day(e.date_of_joining, shape.dateFormat);
  const entry = (category: number, desc: string, value: string, effectiveFrom = from, effectiveTo: string | null = null) => ({
    category,
    value: valueId(value),
    effectiveFrom,
    effectiveTo,
    ...(shape.categoryDescs ? { categoryDesc: desc, valueDesc: value } : {}),
  });
  const values: [number, string, string][] = [
    [1, 'Department', e.department],
    [2, 'Designation', e.designation],
    [3, 'Location', e.work_location.city],
    [4, 'Grade', e.grade],
    [5, 'Cost Center', e.cost_center],
    [6, 'Company', e.legal_entity],
    [7, 'Business Unit', e.business_unit],
    [8, 'Employee Type', EMPLOYEE_TYPES[e.employment_type]![0]],
  ];
  const list = values.filter(([, , v]) => v !== '').map(([c, d, v]) => entry(c, d, v));
  if (movedDepartment(i, e)) {
    const until = shift(e.date_of_joining, 30);
    list.unshift(entry(1, 'Department', 'Transition Team', from, day(until, shape.dateFormat)));
    list[1]!.effectiveFrom = day(shift(until, 1), shape.dateFormat);
  }
  return list;
}

/** Every value of every category among `employees` (for `/hr/v2/categories`). */
export function categoryValues(employees: Iterable<[number, NativeEmployee]>): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>(CATEGORIES.map(([id]) => [id, new Set<string>()]));
  const shape = { categoryDescs: true, dateFormat: 'iso' } as GreythrShape;
  for (const [i, e] of employees) for (const c of categoryList(i, e, shape)) out.get(c.category)!.add(c.valueDesc!);
  return out;
}

const words = (a: NativeAddress | null | undefined) =>
  a && {
    addressLine: [a.line1, a.line2].filter(Boolean).join(', '),
    addressCity: a.city,
    addressState: a.state,
    addressPincode: a.pincode,
    addressCountry: a.country,
  };

/** What hrx must store for employee `i` (the mapping table of src/hrms/greythr/README.md over the canonical data). */
export function expectedRecord(i: number, e: NativeEmployee, shape: GreythrShape): PartialEmployeeRecord {
  const left = hasLeft(e);
  const blood = bloodGroupOf(e.blood_group);
  return {
    employeeId: employeeCode(i),
    name: fullNameOf(e),
    email: e.official_email,
    personalEmail: orAbsent(e.personal_email),
    mobileNumber: lastTenDigits(e.mobile),
    gender: { M: 'Male', F: 'Female', O: 'Other' }[e.gender],
    dob: noBirthDate(i) ? undefined : isoDay(e.date_of_birth),
    doj: isoDay(e.date_of_joining),
    status: !left ? 'Active' : e.employment_status === 'TERMINATED' ? 'Terminated' : 'Inactive',
    terminationDate: isoDay(e.exit_date),
    employmentType: EMPLOYEE_TYPES[e.employment_type]![1],
    maritalStatus: i % 89 === 0 ? undefined : MARITAL_WORDS[e.marital_status],
    bloodGroup: blood,
    nationality: 'Indian',
    fatherName: orAbsent(e.father_name),
    pan: shape.idKeys === 'none' ? undefined : e.pan_number,
    aadhar: shape.idKeys === 'none' ? undefined : e.aadhaar_number.replace(/\s/g, ''),
    uan: e.uan ?? undefined,
    designation: orAbsent(e.designation),
    department: e.department,
    grade: e.grade,
    groupName: e.business_unit,
    costCenter: orAbsent(e.cost_center),
    companyName: e.legal_entity,
    jobLocation: { city: e.work_location.city },
    bankDetails: e.bank ? { accountNumber: e.bank.account_number, ifscCode: e.bank.ifsc, bankName: e.bank.bank_name } : undefined,
    currentAddress: words(e.current_address) ?? undefined,
    permanentAddress: words(e.permanent_address) ?? undefined,
  };
}
