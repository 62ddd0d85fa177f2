/**
 * The Personio simulator's data: the canonical employees of `data.ts` as Personio's v1 employees
 * endpoint shows them (every attribute wrapped in `{label, value, type, universal_id}`, standard
 * attributes plus tenant-defined `dynamic_<id>` ones for what Personio has no standard field for),
 * as v2 persons and employments, and the ground truth hrx must store (the mapping table of
 * src/hrms/personio/README.md over the canonical data). Sources: src/hrms/personio/README.md; v1 attribute names from
 * the personio-py model, v2 shapes from the research's fixtures.
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import { managerOf, type NativeEmployee } from '../../sim/data';
import { dmy, hasLeft } from '../../sim/kit';
import {
  bloodOf as bloodGroupOf,
  fullNameOf,
  isoOf as isoDay,
  MARITAL_WORD as MARITAL_WORDS,
  orNone as orAbsent,
  tenDigits as lastTenDigits,
} from '../../sim/kit';

/** The switches that change what records look like (the research's `?`s and tenant choices). */
export interface PersonioShape {
  /** v1 dates as `1990-05-17T00:00:00+01:00` (midnight in the company's zone) or `1990-05-17`. */
  dateStyle: 'datetime' | 'date';
  /** The language the tenant named its own attributes in. */
  labels: 'en' | 'de';
  /** Whether the tenant has the attributes hrx needs beyond Personio's standard ones (birth date, PAN, bank, ...). */
  dynamicAttributes: boolean;
  /** `fix_salary` per year or per month. */
  salaryInterval: 'yearly' | 'monthly';
  /** The `currency` of `fix_salary` (P:3787; default INR; another one: hrx leaves salary empty). */
  salaryCurrency: string;
  /** Whether v2 custom attributes carry their label (else only an id). */
  v2Labels: boolean;
}

/** Personio's numeric id of canonical index `i` (distinct from `i`). */
export const personioId = (i: number): number => 5000 + i * 3;
/** The canonical index of a Personio id, or `undefined`. */
export const indexOfPersonioId = (id: number): number | undefined =>
  Number.isSafeInteger(id) && id > 5000 && (id - 5000) % 3 === 0 ? (id - 5000) / 3 : undefined;

/** Tenant-defined attributes: id, English label, German label, type. */
const DYNAMIC = {
  dob: [1001, 'Date of birth', 'Geburtsdatum', 'date'],
  mobile: [1002, 'Mobile phone', 'Mobilnummer', 'standard'],
  personalEmail: [1003, 'Personal email', 'Private E-Mail', 'standard'],
  pan: [1004, 'PAN', 'PAN', 'standard'],
  aadhaar: [1005, 'Aadhaar number', 'Aadhaar-Nummer', 'standard'],
  uan: [1006, 'UAN', 'UAN', 'standard'],
  marital: [1007, 'Marital status', 'Familienstand', 'list'],
  nationality: [1008, 'Nationality', 'Staatsangehörigkeit', 'standard'],
  blood: [1009, 'Blood group', 'Blutgruppe', 'list'],
  father: [1010, "Father's name", 'Name des Vaters', 'standard'],
  account: [1011, 'Bank account number', 'Kontonummer', 'standard'],
  ifsc: [1012, 'IFSC', 'IFSC-Code', 'standard'],
  bankName: [1013, 'Bank name', 'Bankname', 'standard'],
  street: [1014, 'Street', 'Straße', 'standard'],
  postal: [1015, 'Postal code', 'PLZ', 'standard'],
  city: [1016, 'City', 'Ort', 'standard'],
  state: [1017, 'State', 'Bundesland', 'standard'],
  country: [1018, 'Country', 'Land', 'standard'],
  grade: [1019, 'Grade', 'Karrierestufe', 'standard'],
} as const;
type DynamicKey = keyof typeof DYNAMIC;
const MARITAL_DE: Readonly<Record<string, string>> = { SINGLE: 'ledig', MARRIED: 'verheiratet', DIVORCED: 'geschieden', WIDOWED: 'verwitwet' };

/** A canonical `DD/MM/YYYY` date as Personio v1 writes it: midnight in Berlin (+01:00 in winter, +02:00 in summer). */
function v1Date(v: string | null | undefined, shape: PersonioShape): string | null {
  const p = dmy(v);
  if (!p) return null;
  const iso = isoDay(v)!;
  return shape.dateStyle === 'date' ? iso : `${iso}T00:00:00${p.m >= 4 && p.m <= 10 ? '+02:00' : '+01:00'}`;
}
/** v2 writes plain dates. */
const v2Date = (v: string | null | undefined): string | null => isoDay(v) ?? null;

const wrap = (label: string, value: unknown, type = 'standard', universal: string | null = null) => ({ label, value, type, universal_id: universal });
/** An object reference as Personio nests it (`department`, `office`, `subcompany`). */
const ref = (type: string, id: number, name: string) => ({ type, attributes: { id, name } });
/** A stable id of a name (offices, departments): an FNV-1a hash. */
export function nameId(name: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < name.length; k++) h = Math.imul(h ^ name.charCodeAt(k), 0x01000193);
  return 100 + ((h >>> 0) % 900_000);
}

/** The canonical values of the tenant-defined attributes. */
function dynamicValues(e: NativeEmployee, shape: PersonioShape, i: number): Partial<Record<DynamicKey, unknown>> {
  const a = e.current_address;
  return {
    dob: i % 53 === 0 ? null : v1Date(e.date_of_birth, shape),
    mobile: e.mobile,
    personalEmail: e.personal_email || null,
    pan: e.pan_number,
    aadhaar: e.aadhaar_number,
    uan: e.uan,
    marital: shape.labels === 'de' ? MARITAL_DE[e.marital_status] : e.marital_status.toLowerCase(),
    nationality: e.nationality,
    blood: e.blood_group,
    father: e.father_name || null,
    account: e.bank?.account_number ?? null,
    ifsc: e.bank?.ifsc ?? null,
    bankName: e.bank?.bank_name ?? null,
    street: [a.line1, a.line2].filter(Boolean).join(', '),
    postal: a.pincode,
    city: a.city,
    state: a.state,
    country: a.country,
    grade: e.grade,
  };
}

const weeklyHours = (e: NativeEmployee): number => (e.employment_type === 'PART_TIME' ? 20 : 40);
/** Personio's `status`: every 37th working employee is on leave. */
const statusOf = (e: NativeEmployee, i: number): string => (hasLeft(e) ? 'inactive' : i % 37 === 0 ? 'leave' : 'active');
/** `first_name` carries the middle name (Personio has no field for it). */
const firstNameOf = (e: NativeEmployee): string => [e.first_name, e.middle_name].filter(Boolean).join(' ');

/** Employee `i` as `GET /v1/company/employees` lists it (`manager`: the supervisor's canonical data, if any). */
export function v1Employee(i: number, e: NativeEmployee, manager: NativeEmployee | undefined, shape: PersonioShape, modifiedAt: number) {
  const m = managerOf(i);
  const salary = e.compensation?.annual.fixed_ctc;
  const attributes: Record<string, unknown> = {
    id: wrap('ID', personioId(i), 'integer', 'id'),
    first_name: wrap('First name', firstNameOf(e), 'standard', 'first_name'),
    last_name: wrap('Last name', e.last_name, 'standard', 'last_name'),
    preferred_name: wrap('Preferred name', '', 'standard', 'preferred_name'),
    email: wrap('Email', e.official_email, 'standard', 'email'),
    gender: wrap('Gender', { M: 'male', F: 'female', O: 'diverse' }[e.gender], 'standard', 'gender'),
    status: wrap('Status', statusOf(e, i), 'standard', 'status'),
    position: wrap('Position', e.designation, 'standard', 'position'),
    employment_type: wrap('Employment type', e.employment_type === 'CONTRACT' ? 'external' : 'internal', 'standard', 'employment_type'),
    weekly_working_hours: wrap('Weekly hours', String(weeklyHours(e)), 'standard', 'weekly_working_hours'),
    hire_date: wrap('Hire date', v1Date(e.date_of_joining, shape), 'date', 'hire_date'),
    termination_date: wrap('Termination date', v1Date(e.exit_date, shape), 'date', 'termination_date'),
    department: wrap('Department', ref('Department', nameId(e.department), e.department), 'standard', 'department'),
    office: wrap('Office', ref('Office', nameId(e.work_location.city), e.work_location.city), 'standard', 'office'),
    subcompany: wrap('Subcompany', ref('Subcompany', nameId(e.legal_entity), e.legal_entity), 'standard', 'subcompany'),
    team: wrap('Team', ref('Team', nameId(e.business_unit), e.business_unit), 'standard', 'team'),
    cost_centers: wrap(
      'Cost center',
      e.cost_center ? [{ type: 'CostCenter', attributes: { id: nameId(e.cost_center), name: e.cost_center, percentage: 100 } }] : [],
      'standard',
      'cost_centers',
    ),
    supervisor: wrap(
      'Supervisor',
      m && manager
        ? {
            type: 'Employee',
            attributes: {
              id: wrap('ID', personioId(m), 'integer', 'id'),
              first_name: wrap('First name', firstNameOf(manager), 'standard', 'first_name'),
              last_name: wrap('Last name', manager.last_name, 'standard', 'last_name'),
              email: wrap('Email', manager.official_email, 'standard', 'email'),
            },
          }
        : null,
      'standard',
      'supervisor',
    ),
    fix_salary: {
      ...wrap(
        'Fix salary',
        salary === undefined ? null : shape.salaryInterval === 'yearly' ? salary : Math.round((salary / 12) * 100) / 100,
        'decimal',
        'fix_salary',
      ),
      currency: shape.salaryCurrency,
    },
    fix_salary_interval: wrap('Salary interval', salary === undefined ? null : shape.salaryInterval, 'standard', 'fix_salary_interval'),
    hourly_salary: { ...wrap('Hourly salary', null, 'decimal', 'hourly_salary'), currency: shape.salaryCurrency },
    last_modified_at: wrap('Last modified', new Date(modifiedAt).toISOString(), 'date', 'last_modified_at'),
  };
  if (shape.dynamicAttributes) {
    for (const [k, v] of Object.entries(dynamicValues(e, shape, i)) as [DynamicKey, unknown][]) {
      const [id, en, de, type] = DYNAMIC[k];
      // The birth date carries the `universal_id` Personio documents for it (P:1013-1016).
      attributes[`dynamic_${id}`] = wrap(shape.labels === 'de' ? de : en, v, type, k === 'dob' ? 'date_of_birth' : null);
    }
  }
  return { type: 'Employee', attributes };
}

/** Employee `i` as a v2 person (`GET /v2/persons`). */
export function v2Person(i: number, e: NativeEmployee, shape: PersonioShape, modifiedAt: number) {
  const custom = shape.dynamicAttributes
    ? (Object.entries(dynamicValues(e, { ...shape, dateStyle: 'date' }, i)) as [DynamicKey, unknown][]).map(([k, value]) => {
        const [id, en, de, type] = DYNAMIC[k];
        return { id: `dynamic_${id}`, ...(shape.v2Labels ? { label: shape.labels === 'de' ? de : en } : {}), type, value };
      })
    : [];
  return {
    id: String(personioId(i)),
    first_name: firstNameOf(e),
    last_name: e.last_name,
    preferred_name: null,
    email: e.official_email,
    gender: { M: 'MALE', F: 'FEMALE', O: 'DIVERSE' }[e.gender],
    status: hasLeft(e) ? 'INACTIVE' : 'ACTIVE',
    created_at: '2020-01-01T00:00:00Z',
    updated_at: new Date(modifiedAt).toISOString(),
    custom_attributes: custom,
    employments: [{ id: `${personioId(i)}-1` }],
  };
}

/** Employee `i`'s v2 employments: the current one, and for every 97th working employee an earlier, ended one (rehired). */
export function v2Employments(i: number, e: NativeEmployee, modifiedAt: number) {
  const pid = personioId(i),
    m = managerOf(i);
  const current = {
    id: `${pid}-1`,
    person: { id: String(pid) },
    status: hasLeft(e) ? 'INACTIVE' : 'ACTIVE',
    type: e.employment_type === 'CONTRACT' ? 'EXTERNAL' : 'INTERNAL',
    employment_start_date: v2Date(e.date_of_joining),
    termination: e.exit_date ? { termination_date: v2Date(e.exit_date), type: null, reason: null } : null,
    supervisor: m ? { id: String(personioId(m)) } : null,
    position: { title: e.designation || null },
    org_units: [
      { type: 'DEPARTMENT', id: String(nameId(e.department)) },
      { type: 'TEAM', id: String(nameId(e.business_unit)) },
    ],
    weekly_working_hours: weeklyHours(e),
    updated_at: new Date(modifiedAt).toISOString(),
  };
  if (!(i % 97 === 0 && e.employment_status === 'ACTIVE')) return [current];
  const { y, m: mo, d } = dmy(e.date_of_joining)!;
  const day = (days: number) => new Date(Date.UTC(y, mo - 1, d + days)).toISOString().slice(0, 10);
  return [
    {
      ...current,
      id: `${pid}-0`,
      status: 'INACTIVE',
      employment_start_date: day(-900),
      termination: { termination_date: day(-400), type: 'RESIGNATION', reason: null },
      position: { title: 'Associate' },
    },
    current,
  ];
}

const address = (e: NativeEmployee) => {
  const a = e.current_address;
  return {
    addressLine: [a.line1, a.line2].filter(Boolean).join(', '),
    addressCity: a.city,
    addressState: a.state,
    addressPincode: a.pincode,
    addressCountry: a.country,
  };
};

/** What hrx must store for employee `i` (`api`: which API the connector uses; `manager`: the supervisor's canonical data). */
export function expectedRecord(
  i: number,
  e: NativeEmployee,
  manager: NativeEmployee | undefined,
  shape: PersonioShape,
  api: 'v1' | 'v2',
): PartialEmployeeRecord {
  const dyn = shape.dynamicAttributes && (api === 'v1' || shape.v2Labels);
  const salary = e.compensation?.annual.fixed_ctc;
  const r: PartialEmployeeRecord = {
    employeeId: String(personioId(i)),
    name: fullNameOf(e),
    email: e.official_email,
    gender: { M: 'Male', F: 'Female', O: 'Other' }[e.gender],
    doj: isoDay(e.date_of_joining),
    terminationDate: isoDay(e.exit_date),
    status: hasLeft(e) ? 'Inactive' : 'Active',
    // `internal` says neither full nor part time (src/hrms/personio/README.md): only `external` is a type.
    employmentType: e.employment_type === 'CONTRACT' ? 'Contract' : undefined,
    designation: orAbsent(e.designation),
    department: e.department,
    manager: manager && fullNameOf(manager),
    managerEmail: manager?.official_email,
  };
  if (api === 'v1') {
    Object.assign(r, { companyName: e.legal_entity, costCenter: orAbsent(e.cost_center), jobLocation: { city: e.work_location.city } });
    if (salary !== undefined && shape.salaryCurrency === 'INR')
      r.salaryDetails = shape.salaryInterval === 'yearly' ? { ctc: { fixedPay: salary } } : { monthly: { fixedPay: Math.round((salary / 12) * 100) / 100 } };
  }
  if (dyn) {
    Object.assign(r, {
      dob: i % 53 === 0 ? undefined : isoDay(e.date_of_birth),
      mobileNumber: lastTenDigits(e.mobile),
      personalEmail: orAbsent(e.personal_email),
      pan: e.pan_number,
      aadhar: e.aadhaar_number.replace(/\s/g, ''),
      uan: e.uan ?? undefined,
      maritalStatus: MARITAL_WORDS[e.marital_status],
      nationality: e.nationality,
      bloodGroup: bloodGroupOf(e.blood_group),
      fatherName: orAbsent(e.father_name),
      grade: e.grade,
      bankDetails: e.bank ? { accountNumber: e.bank.account_number, ifscCode: e.bank.ifsc, bankName: e.bank.bank_name } : undefined,
      currentAddress: address(e),
    });
  }
  return r;
}
