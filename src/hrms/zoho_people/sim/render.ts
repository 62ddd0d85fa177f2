/**
 * The Zoho People simulator's employees: the canonical employee (`data.ts`) as a record of the
 * `employee` form (text picklists, dates in the organisation's format, `Reporting_To.MailID`,
 * single-string addresses, epoch-ms `ModifiedTime`), and the ground truth hrx must store for it,
 * written from the canonical employee and Zoho's documented mapping table (not through the
 * connector's decoders).
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { NativeAddress, NativeEmployee } from '../../sim/data';
import { bloodOf, dmy, fullNameOf, hasNoBirthDate, isoOf, isWorking, orNone, tenDigits } from '../../sim/kit';

/** How the simulated organisation writes dates (Zoho's date format setting; `dd-MMM-yyyy` by default). */
export type ZohoDateFormat = 'dd-MMM-yyyy' | 'yyyy-MM-dd' | 'dd/MM/yyyy';
export const ZOHO_DATE_FORMATS: readonly ZohoDateFormat[] = ['dd-MMM-yyyy', 'yyyy-MM-dd', 'dd/MM/yyyy'];
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The record id (`Zoho_ID`, the result key) of employee `i`: 18 digits, past 2^53 as Zoho's are. */
export const recordIdOf = (i: number): string => `759415000001${String(i).padStart(6, '0')}`;

/** A canonical `DD/MM/YYYY` in the organisation's format; blank for none. */
export function zohoDateText(v: string | null | undefined, format: ZohoDateFormat): string {
  const p = dmy(v);
  if (!p) return '';
  const dd = String(p.d).padStart(2, '0'),
    mm = String(p.m).padStart(2, '0');
  return format === 'yyyy-MM-dd' ? `${p.y}-${mm}-${dd}` : format === 'dd/MM/yyyy' ? `${dd}/${mm}/${p.y}` : `${dd}-${MON[p.m - 1]}-${p.y}`;
}

/** Zoho's single-string address. */
export const addressText = (a: NativeAddress | null | undefined): string =>
  a ? [a.line1, a.line2, a.city, `${a.state} - ${a.pincode}`, a.country].filter(Boolean).join(', ') : '';

const STATUS: Record<string, string> = { RESIGNED: 'Resigned', TERMINATED: 'Terminated' };
const TYPE: Record<string, [string, string]> = {
  FULL_TIME: ['Permanent', 'Full Time'],
  PART_TIME: ['Part Time', 'Part Time'],
  CONTRACT: ['On Contract', 'Contract'],
  INTERN: ['Trainee', 'Intern'],
};
const GENDER: Record<string, string> = { M: 'Male', F: 'Female', O: 'Other' };
const MARITAL: Record<string, string> = { SINGLE: 'Single', MARRIED: 'Married', DIVORCED: 'Divorced', WIDOWED: 'Widowed' };
const lookupId = (kind: string, name: string): string =>
  `759415000000${String([...`${kind}${name}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1_000_000, 7)).padStart(6, '0')}`;

/** How the simulator renders. */
export interface ZohoRenderOptions {
  dateFormat: ZohoDateFormat;
  /** The tenant has a `PAN` custom field. */
  customPan: boolean;
}

/** Employee `i`'s form fields as `getRecords` returns them. */
export function renderZohoFields(i: number, e: NativeEmployee, modifiedAt: number, o: ZohoRenderOptions): Record<string, unknown> {
  const d = (v: string | null | undefined) => zohoDateText(v, o.dateFormat);
  const mgr = e.reporting_manager;
  const joined = dmy(e.date_of_joining)!;
  return {
    EmployeeID: e.employee_code,
    Zoho_ID: Number(recordIdOf(i)),
    ZUID: String(60_000_000 + i),
    FirstName: [e.first_name, e.middle_name].filter(Boolean).join(' '),
    LastName: e.last_name,
    Nick_Name: '',
    EmailID: e.official_email,
    Other_Email: e.personal_email ?? '',
    Mobile: e.mobile,
    Work_phone: '',
    Extension: '',
    Date_of_birth: hasNoBirthDate(i) ? '' : d(e.date_of_birth),
    Dateofjoining: d(e.date_of_joining),
    Dateofexit: d(e.exit_date),
    Employeestatus: isWorking(e) ? 'Active' : (STATUS[e.employment_status] ?? 'Terminated'),
    'Employeestatus.type': isWorking(e) ? 1 : 2,
    Employee_type: TYPE[e.employment_type]![0],
    Gender: GENDER[e.gender],
    Marital_status: MARITAL[e.marital_status],
    'Marital_status.id': e.marital_status,
    Blood_Group: e.blood_group ?? '',
    Nationality: e.nationality,
    Department: e.department,
    'Department.ID': lookupId('d', e.department),
    Designation: e.designation,
    'Designation.ID': e.designation ? lookupId('t', e.designation) : '',
    Grade: e.grade,
    'Grade.ID': lookupId('g', e.grade),
    LocationName: e.work_location.city,
    'LocationName.ID': lookupId('l', e.work_location.city),
    Reporting_To: mgr?.name ?? '',
    'Reporting_To.ID': mgr ? lookupId('m', mgr.email) : '',
    'Reporting_To.MailID': mgr?.email ?? '',
    Second_Reporting_To: '',
    'Second_Reporting_To.ID': '',
    'Second_Reporting_To.MailID': '',
    Present_Address: addressText(e.current_address),
    Permanent_Address: addressText(e.permanent_address),
    ...(o.customPan ? { PAN: e.pan_number } : {}),
    AddedTime: `${zohoDateText(e.date_of_joining, 'dd-MMM-yyyy')} 10:${String(joined.d).padStart(2, '0')}:00`,
    CreatedTime: String(Date.UTC(joined.y, joined.m - 1, joined.d, 4, 30)),
    ModifiedTime: String(modifiedAt),
  };
}

/** What hrx must store for employee `i` (Zoho People's mapping table, src/hrms/zoho_people/README.md). */
export function zohoTruth(i: number, e: NativeEmployee, o: ZohoRenderOptions): PartialEmployeeRecord {
  return {
    employeeId: e.employee_code,
    name: fullNameOf(e),
    email: e.official_email,
    personalEmail: orNone(e.personal_email),
    mobileNumber: tenDigits(e.mobile),
    dob: hasNoBirthDate(i) ? undefined : isoOf(e.date_of_birth),
    doj: isoOf(e.date_of_joining),
    terminationDate: isoOf(e.exit_date),
    status: isWorking(e) ? 'Active' : 'Inactive',
    employmentType: TYPE[e.employment_type]![1],
    gender: GENDER[e.gender],
    maritalStatus: MARITAL[e.marital_status],
    bloodGroup: bloodOf(e.blood_group),
    nationality: e.nationality,
    designation: orNone(e.designation),
    department: e.department,
    grade: e.grade,
    jobLocation: { city: e.work_location.city },
    manager: e.reporting_manager?.name,
    managerEmail: e.reporting_manager?.email,
    currentAddress: { addressLine: orNone(addressText(e.current_address)) },
    permanentAddress: { addressLine: orNone(addressText(e.permanent_address)) },
    pan: o.customPan ? e.pan_number : undefined,
  };
}
