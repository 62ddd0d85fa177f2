/**
 * The SAP SuccessFactors simulator's entities and ground truth (sim/index.ts): a canonical
 * employee as `PerPerson` with its navigations and as `EmpEmployment` with its `EmpJob`, in the
 * properties SAP's descriptions define (../openapi/rules.yaml), and `expected`, the record hrx must
 * store, written from the canonical employee without the connector's rows.
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { NativeEmployee } from '../../sim/data';
import { dmy, fullNameOf, isoOf, orNone, tenDigits } from '../../sim/kit';

type Obj = Record<string, unknown>;

/** A `DD/MM/YYYY` date as OData v2 JSON writes it: `/Date(<ms at UTC midnight>)/`; null when absent. */
export function odata(v: string | null | undefined): string | null {
  const d = dmy(v);
  return d ? `/Date(${Date.UTC(d.y, d.m - 1, d.d)})/` : null;
}

/** SAP's gender codes: `M`, `F`, and `U` (unknown) for anything else. */
const genderCode = (g: string): string => (g === 'M' || g === 'F' ? g : 'U');

/** Picklist option ids of the simulated tenant's e-mail and phone types (SAP: tenant-defined ids). */
export const EMAIL_TYPE = { business: '8448', personal: '8449' };
const PHONE_TYPE_MOBILE = '10605';

/** Every entity's `lastModifiedDateTime` before the simulator starts (fixed: data never depends on the clock). */
export const BASE_MODIFIED = Date.UTC(2025, 11, 1, 9, 0);
/** A `lastModifiedDateTime` as OData v2 JSON writes it. */
const stamp = (ms: number): string => `/Date(${ms})/`;

/**
 * Employee `e` (index `i`) as `PerPerson`: its own properties, and its navigations by name.
 * `modified`: when the employee last changed. A change is a new mobile number and job title
 * (`Staff.change`), so only `PerPhone` and `EmpJob` carry it; the other entities keep
 * {@link BASE_MODIFIED}, as SAP stamps each entity on its own.
 */
export function person(e: NativeEmployee, i: number, modified: number): { own: Obj; navs: Record<string, Obj[]> } {
  const id = e.employee_code;
  const base = stamp(BASE_MODIFIED);
  const emails: Obj[] = [{ personIdExternal: id, emailType: EMAIL_TYPE.business, emailAddress: e.official_email, isPrimary: true, lastModifiedDateTime: base }];
  if (e.personal_email) {
    emails.push({ personIdExternal: id, emailType: EMAIL_TYPE.personal, emailAddress: e.personal_email, isPrimary: false, lastModifiedDateTime: base });
  }
  return {
    own: { personIdExternal: id, dateOfBirth: odata(e.date_of_birth), countryOfBirth: 'IND', userId: id, personId: String(i), lastModifiedDateTime: base },
    navs: {
      personalInfoNav: [
        {
          personIdExternal: id,
          startDate: odata(e.date_of_joining) ?? '/Date(0)/',
          endDate: '/Date(253402214400000)/', // 9999-12-31: SAP's open end of an effective-dated slice
          firstName: e.first_name,
          middleName: e.middle_name || null,
          lastName: e.last_name,
          displayName: fullNameOf(e),
          gender: genderCode(e.gender),
          // A picklist option id, as SAP stores it (not a word): hrx maps no marital status.
          maritalStatus: e.marital_status ? String(7000 + e.marital_status.length) : null,
          nationality: 'IND',
          lastModifiedDateTime: base,
        },
      ],
      emailNav: emails,
      phoneNav: [
        {
          personIdExternal: id,
          phoneType: PHONE_TYPE_MOBILE,
          phoneNumber: e.mobile,
          countryCode: '91',
          areaCode: null,
          isPrimary: true,
          lastModifiedDateTime: stamp(modified),
        },
      ],
    },
  };
}

/** Employee `e` as `EmpEmployment` with `jobInfoNav` (today's `EmpJob` slice, stamped `modified`: see {@link person}). */
export function employment(e: NativeEmployee, modified: number): Obj {
  const id = e.employee_code;
  const start = odata(e.date_of_joining) ?? '/Date(0)/';
  return {
    personIdExternal: id,
    userId: id,
    startDate: start,
    originalStartDate: start,
    endDate: odata(e.exit_date),
    lastModifiedDateTime: stamp(BASE_MODIFIED),
    jobInfoNav: {
      results: [
        {
          userId: id,
          startDate: start,
          seqNumber: '1',
          endDate: '/Date(253402214400000)/',
          jobTitle: e.designation || null,
          // Codes and ids of the tenant's foundation objects and picklists: hrx maps none of them.
          department: e.department ? e.department.slice(0, 4).toUpperCase() : null,
          emplStatus: e.exit_date ? '2815' : '2810',
          managerId: e.reporting_manager ? 'EMP00001' : null,
          lastModifiedDateTime: stamp(modified),
        },
      ],
    },
  };
}

/** The record hrx must store for `e`, as of `today` (`YYYY-MM-DD`). */
export function expected(e: NativeEmployee, today: string): PartialEmployeeRecord {
  const exit = isoOf(e.exit_date);
  const gender = e.gender === 'M' ? 'Male' : e.gender === 'F' ? 'Female' : undefined;
  const record: PartialEmployeeRecord = {
    employeeId: e.employee_code,
    name: fullNameOf(e),
    email: orNone(e.official_email),
    mobileNumber: tenDigits(e.mobile),
    dob: isoOf(e.date_of_birth),
    doj: isoOf(e.date_of_joining),
    terminationDate: exit,
    status: exit !== undefined && exit <= today ? 'Inactive' : 'Active',
    designation: orNone(e.designation),
    gender,
  };
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as PartialEmployeeRecord;
}
