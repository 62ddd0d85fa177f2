/**
 * The Darwinbox simulator's data: canonical employees (`sim/data.ts`) rendered as Employee Master
 * rows in a dataset's columns, and the ground truth hrx must store for them, computed from the
 * canonical values (not by decoding the rows).
 *
 * Awkward cases rendered: mixed date formats (`YYYY-MM-DD`, `DD-MM-YYYY`, `DD/MM/YYYY`,
 * `DD-Mon-YYYY`, per employee and field), no-date values (`""`, `0000-00-00`, `-`, `NA`),
 * `"Name (ID)"` manager strings, blank optional columns, nested address records (a switch).
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { NativeAddress, NativeEmployee } from '../../sim/data';
import { addressLine, GENDER_WORD, isoOf, MARITAL_WORD, orNone as orUndefined, tenDigits, TYPE_WORD } from '../../sim/kit';

/** Switches of the rendering (research `?`s), from `DialectSimOptions.variants`. */
export interface DarwinboxRowVariants {
  /** `mixed` (default): a format per employee and field; else every date in that one format. */
  dateFormat: 'mixed' | 'iso' | 'dmy-dash' | 'dmy-slash' | 'dmy-mon';
  /** Addresses as `current_address_line_1`… (false, default) or nested `current_address: {address_line_1…}` records. */
  nestedAddresses: boolean;
  /** The dataset also has PAN, Aadhaar, UAN, blood group, nationality and father's name columns (names not seen: `?`). */
  personalColumns: boolean;
  /** `employee_status` words: `darwinbox` (Active, Notice Period, Resigned, Terminated; default) or `plain` (Active, Inactive). */
  statusWords: 'darwinbox' | 'plain';
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const FORMATS = ['iso', 'dmy-dash', 'dmy-slash', 'dmy-mon'] as const;
const NO_DATE = ['', '0000-00-00', '-', 'NA'];

/** Whether the canonical employee is in the inactive dataset (exited: resigned or terminated). */
export const isInactive = (e: NativeEmployee): boolean => e.employment_status === 'RESIGNED' || e.employment_status === 'TERMINATED';

function date(dmy: string | null, i: number, field: number, v: DarwinboxRowVariants): string {
  if (!dmy) return NO_DATE[(i + field) % NO_DATE.length]!;
  const [d, m, y] = dmy.split('/') as [string, string, string];
  const f = v.dateFormat === 'mixed' ? FORMATS[(i * 3 + field) % FORMATS.length]! : v.dateFormat;
  if (f === 'iso') return `${y}-${m}-${d}`;
  if (f === 'dmy-dash') return `${d}-${m}-${y}`;
  if (f === 'dmy-slash') return `${d}/${m}/${y}`;
  return `${d}-${MONTHS[Number(m) - 1]}-${y}`;
}

const STATUS: Record<string, [string, string]> = {
  ACTIVE: ['Active', 'Active'],
  NOTICE_PERIOD: ['Notice Period', 'Active'],
  RESIGNED: ['Resigned', 'Inactive'],
  TERMINATED: ['Terminated', 'Inactive'],
};
const TYPE_LABEL: Record<string, string> = { FULL_TIME: 'Permanent', PART_TIME: 'Part Time', CONTRACT: 'Contractual', INTERN: 'Intern' };
const GENDER_LABEL: Record<string, string> = { M: 'Male', F: 'Female', O: 'Other' };
const MARITAL_LABEL: Record<string, string> = { SINGLE: 'Single', MARRIED: 'Married', DIVORCED: 'Divorced', WIDOWED: 'Widowed' };

function addressColumns(kind: 'current' | 'permanent', a: NativeAddress | null | undefined, v: DarwinboxRowVariants): Record<string, unknown> {
  const fields = {
    address_line_1: a?.line1 ?? '',
    address_line_2: a?.line2 ?? '',
    city: a?.city ?? '',
    state: a?.state ?? '',
    pin_code: a?.pincode ?? '',
    country: a?.country ?? '',
  };
  if (v.nestedAddresses) return { [`${kind}_address`]: fields };
  return Object.fromEntries(Object.entries(fields).map(([k, x]) => [`${kind}_${k}`, x]));
}

/** Employee `i` as a row of its dataset; `lastModified` is `dd-mm-yyyy HH:MM:SS`. */
export function darwinboxRow(e: NativeEmployee, i: number, lastModified: string, v: DarwinboxRowVariants): Record<string, unknown> {
  const mgr = e.reporting_manager;
  const mgrCode = i > 1 ? `EMP${String(Math.floor((i - 2) / 6) + 1).padStart(5, '0')}` : '';
  return {
    employee_id: e.employee_code,
    full_name: [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' '),
    first_name: e.first_name,
    middle_name: e.middle_name,
    last_name: e.last_name,
    company_email_id: e.official_email,
    personal_email_id: e.personal_email ?? '',
    personal_mobile_no: e.mobile,
    gender: GENDER_LABEL[e.gender],
    marital_status: MARITAL_LABEL[e.marital_status],
    date_of_birth: date(e.date_of_birth, i, 0, v),
    date_of_joining: date(e.date_of_joining, i, 1, v),
    date_of_exit: date(e.exit_date, i, 2, v),
    employee_status: STATUS[e.employment_status]![v.statusWords === 'plain' ? 1 : 0],
    employee_type: TYPE_LABEL[e.employment_type],
    group_company: e.legal_entity,
    business_unit: e.business_unit,
    department_name: e.department,
    designation_name: e.designation,
    job_level: e.grade,
    cost_center_name: e.cost_center,
    direct_manager: mgr ? `${mgr.name} (${mgrCode})` : '',
    direct_manager_employee_id: mgrCode,
    direct_manager_email: mgr?.email ?? '',
    ...addressColumns('current', e.current_address, v),
    ...addressColumns('permanent', e.permanent_address, v),
    office_city: e.work_location.city,
    ...(v.personalColumns
      ? {
          pan_number: e.pan_number,
          aadhaar_number: e.aadhaar_number,
          uan_number: e.uan ?? '',
          blood_group: e.blood_group ?? '',
          nationality: e.nationality,
          father_name: e.father_name,
        }
      : {}),
    latest_modified_timestamp: lastModified,
  };
}

function expectedAddress(a: NativeAddress | null | undefined) {
  if (!a) return undefined;
  return { addressLine: orUndefined(addressLine(a)), addressCity: a.city, addressState: a.state, addressPincode: a.pincode, addressCountry: a.country };
}

/** A canonical blood group (`B+`, `B+ve`, `B Positive`) in hrx's form (`B+`). */
function blood(v: string | null): string | undefined {
  if (!v) return undefined;
  const [, group, sign] = /^(AB|A|B|O)\s*(.*)$/.exec(v)!;
  return `${group}${sign!.startsWith('+') || sign === 'Positive' ? '+' : '-'}`;
}

/** What hrx must store for employee `e` read from Darwinbox (the mapping table of darwinbox/mapping.ts). */
export function darwinboxExpected(e: NativeEmployee, v: DarwinboxRowVariants): PartialEmployeeRecord {
  const status = e.employment_status === 'TERMINATED' && v.statusWords === 'darwinbox' ? 'Terminated' : STATUS[e.employment_status]![1];
  return {
    employeeId: e.employee_code,
    name: [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' '),
    email: e.official_email,
    personalEmail: orUndefined(e.personal_email),
    mobileNumber: tenDigits(e.mobile),
    gender: GENDER_WORD[e.gender],
    maritalStatus: MARITAL_WORD[e.marital_status],
    dob: isoOf(e.date_of_birth),
    doj: isoOf(e.date_of_joining),
    terminationDate: isoOf(e.exit_date),
    status,
    employmentType: TYPE_WORD[e.employment_type],
    companyName: e.legal_entity,
    groupName: e.business_unit,
    department: e.department,
    designation: orUndefined(e.designation),
    grade: e.grade,
    costCenter: orUndefined(e.cost_center),
    manager: e.reporting_manager?.name,
    managerEmail: e.reporting_manager?.email,
    ...(v.personalColumns
      ? {
          pan: e.pan_number,
          aadhar: e.aadhaar_number.replace(/\s/g, ''),
          uan: e.uan ?? undefined,
          bloodGroup: blood(e.blood_group),
          nationality: e.nationality,
          fatherName: orUndefined(e.father_name),
        }
      : {}),
    currentAddress: expectedAddress(e.current_address),
    permanentAddress: expectedAddress(e.permanent_address),
    jobLocation: { city: e.work_location.city },
  };
}
