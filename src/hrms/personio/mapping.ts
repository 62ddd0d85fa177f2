/**
 * Personio → hrx mapping table (decisions §14; src/hrms/personio/README.md). v1 employees carry every
 * attribute wrapped in `{label, value, type, universal_id}`
 * (https://developer.personio.de/v1.0/reference/get_company-employees; attribute names from the
 * personio-py model, research §6); v2 splits a person (`GET /v2/persons`) from its employments
 * (`GET /v2/persons/{id}/employments`, https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments).
 *
 * | hrx | v1 attribute | v2 | source |
 * |---|---|---|---|
 * | employeeId | `id` | person `id` | v1: personio-py model (S, research §6), https://developer.personio.de/v1.0/reference/get_company-employees; v2: `GET /v2/persons` (S, research §6) |
 * | name, email | `first_name` `last_name`, `email` | person `first_name` `last_name`, `email` | v1: personio-py model (S, research §6); v2: `GET /v2/persons` (S, research §6) |
 * | gender | `gender` (male, female, diverse) | person `gender` (MALE, FEMALE, DIVERSE) | v1: personio-py model (S, research §6); v2 spellings: `?` (not in the research sources) |
 * | status | `status`: active, onboarding, leave → Active; inactive → Inactive | person `status` | v1 values: research §6 (D, https://developer.personio.de/v1.0/reference/get_company-employees); v2: research §6 (D, changelog) |
 * | employmentType | `employment_type` external → Contract; internal → Part Time when `weekly_working_hours` < `full_time_weekly_working_hours`, else Full Time | employment `type`, same hours | v1: personio-py model (S, research §6); v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | doj, terminationDate | `hire_date`, `termination_date` | current employment `employment_start_date`, `termination.termination_date` | v1: personio-py model (S, research §6); v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | designation, department | `position`, `department` | employment `position.title`, `org_units[DEPARTMENT]` → `GET /v2/org-units/{id}` `name` | v1: personio-py model (S, research §6); v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | manager, managerEmail | `supervisor` (a nested employee) | employment `supervisor.id` → that person | v1: personio-py model (S, research §6); v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | companyName, jobLocation.city, costCenter | `subcompany`, `office`, `cost_centers` (largest share) | not mapped (no list of them in v2) | personio-py model (S, research §6) |
 * | salaryDetails.ctc.fixedPay / .monthly.fixedPay | `fix_salary` by `fix_salary_interval` (yearly / monthly) | not mapped | personio-py model (S, research §6) |
 * | dob, mobileNumber, personalEmail, pan, aadhar, uan, maritalStatus, nationality, bloodGroup, fatherName, grade, bankDetails, currentAddress | tenant-defined `dynamic_<id>` attributes, found by label (English or German, `TENANT_LABELS`) | `custom_attributes` by label | research §6: tenant-defined `dynamic_<id>` (I), v2 `custom_attributes` |
 *
 * Personio has no standard field for birth date, phone, address, bank or tax ids (research §6: they
 * are tenant-defined); a tenant without such an attribute leaves the field empty. Not mapped:
 * managerEmail2..5, countryCode, permanentAddress, marriage date, dependents, `team` (not a
 * business unit), salary components.
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { dayOf } from '../decode';
import { bloodGroup, enumValue, mobileNumber, money, text } from '../reference/mapping';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An attribute's `label` as text ('' when it is not a string or number). */
const labelText = (label: unknown): string => (typeof label === 'string' || typeof label === 'number' ? String(label) : '');

/** A label reduced to lower-case letters and digits (`Private E-Mail` → `privateemail`, `Straße` → `straße`). */
export const labelKey = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** Tenant-defined attribute labels (English and German, as `labelKey` writes them) → what they hold. */
export const TENANT_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({
    dob: 'dateofbirth birthday birthdate dob geburtsdatum geburtstag',
    mobile: 'mobilephone mobile mobilenumber mobileno phone phonenumber mobilnummer handynummer mobiltelefon',
    personalEmail: 'personalemail privateemail privateemailaddress personalemailaddress',
    pan: 'pan pannumber panno permanentaccountnumber',
    aadhar: 'aadhaar aadhaarnumber aadhar aadharnumber aadhaarnummer aadhaarno',
    uan: 'uan uannumber universalaccountnumber',
    marital: 'maritalstatus familienstand',
    nationality: 'nationality staatsangehörigkeit nationalität',
    blood: 'bloodgroup blutgruppe',
    father: 'fathersname fathername namedesvaters',
    account: 'bankaccountnumber accountnumber iban kontonummer',
    ifsc: 'ifsc ifsccode',
    bankName: 'bankname bank',
    street: 'street streetaddress address addressline straße strasse adresse',
    postal: 'postalcode postcode zip zipcode pincode plz postleitzahl',
    city: 'city stadt ort wohnort',
    state: 'state bundesland region',
    country: 'country land',
    grade: 'grade level band karrierestufe stufe',
  }).flatMap(([field, labels]) => labels.split(' ').map((l) => [l, field])),
);

/** Marital statuses as Personio tenants name them (English and German) → hrx's words. */
export const MARITAL: Readonly<Record<string, string>> = {
  SINGLE: 'Single',
  UNMARRIED: 'Single',
  LEDIG: 'Single',
  MARRIED: 'Married',
  VERHEIRATET: 'Married',
  DIVORCED: 'Divorced',
  GESCHIEDEN: 'Divorced',
  WIDOWED: 'Widowed',
  VERWITWET: 'Widowed',
  SEPARATED: 'Separated',
  GETRENNT: 'Separated',
};
/** Personio's genders → hrx's words; `unknown` (v2) is no value. */
const GENDERS: Readonly<Record<string, string | undefined>> = { male: 'Male', female: 'Female', diverse: 'Other', unknown: undefined };

/** The value of a v1 attribute: `{label, value, ...}` unwrapped, anything else as it is. */
export const valueOf = (v: unknown): unknown => (isObj(v) && 'value' in v ? v.value : v);
const refName = (v: unknown): string | undefined => {
  const a = valueOf(v);
  return isObj(a) && isObj(a.attributes) ? text(valueOf(a.attributes.name)) : undefined;
};
const hours = (v: unknown): number | undefined => money(valueOf(v));

/** Tenant-defined values by what they hold, from `[label, value]` pairs (the first non-empty one wins). */
function tenantValues(pairs: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [label, value] of pairs) {
    const field = TENANT_LABELS[labelKey(label)];
    if (field && out[field] === undefined && value !== null && value !== '') out[field] = value;
  }
  return out;
}

/** The record fields filled from tenant-defined attributes. */
function fromTenant(t: Record<string, unknown>): Partial<PartialEmployeeRecord> {
  const line = text(t.street);
  return {
    dob: dayOf(t.dob),
    mobileNumber: mobileNumber(t.mobile),
    personalEmail: text(t.personalEmail)?.toLowerCase(),
    pan: text(t.pan)?.replace(/\s/g, '').toUpperCase(),
    aadhar: text(t.aadhar)?.replace(/\s/g, ''),
    uan: text(t.uan)?.replace(/\s/g, ''),
    maritalStatus: enumValue(MARITAL, t.marital),
    nationality: text(t.nationality),
    bloodGroup: bloodGroup(t.blood),
    fatherName: text(t.father),
    grade: text(t.grade),
    bankDetails: { accountNumber: text(t.account)?.replace(/\s/g, ''), ifscCode: text(t.ifsc)?.replace(/\s/g, '').toUpperCase(), bankName: text(t.bankName) },
    currentAddress: {
      addressLine: line,
      addressCity: text(t.city),
      addressState: text(t.state),
      addressPincode: text(t.postal)?.replace(/\s/g, ''),
      addressCountry: text(t.country),
    },
  };
}

/** hrx's employment type from Personio's internal/external and the weekly hours. */
function employmentType(kind: unknown, weekly: number | undefined, fullTime: number | undefined): string | undefined {
  const k = text(kind)?.toLowerCase();
  if (k === 'external') return 'Contract';
  if (k !== 'internal') return text(kind);
  return weekly !== undefined && fullTime !== undefined && weekly < fullTime ? 'Part Time' : 'Full Time';
}

const gender = (v: unknown): string | undefined => {
  const g = text(v)?.toLowerCase();
  return g === undefined ? undefined : g in GENDERS ? GENDERS[g] : text(v);
};
const status = (v: unknown): string | undefined => {
  const s = text(v)?.toLowerCase();
  return s === undefined ? undefined : s === 'inactive' ? 'Inactive' : ['active', 'onboarding', 'leave'].includes(s) ? 'Active' : text(v);
};
const fullName = (first: unknown, last: unknown): string | undefined => [text(first), text(last)].filter((x) => x !== undefined).join(' ') || undefined;

/** One v1 employee (`{type: "Employee", attributes}`) → record; `undefined` without an `id`. */
export function mapPersonioV1(employee: unknown): PartialEmployeeRecord | undefined {
  const a = isObj(employee) && isObj(employee.attributes) ? employee.attributes : {};
  const id = text(valueOf(a.id));
  if (id === undefined) return undefined;
  const sup = valueOf(a.supervisor);
  const s = isObj(sup) && isObj(sup.attributes) ? sup.attributes : undefined;
  const centers = valueOf(a.cost_centers);
  const center = (Array.isArray(centers) ? centers.filter(isObj).map((c) => (isObj(c.attributes) ? c.attributes : c)) : []).sort(
    (x, y) => (money(valueOf(y.percentage)) ?? 0) - (money(valueOf(x.percentage)) ?? 0),
  )[0];
  const salary = money(valueOf(a.fix_salary)),
    interval = text(valueOf(a.fix_salary_interval))?.toLowerCase();
  const tenant = tenantValues(
    Object.entries(a)
      .filter(([k]) => k.startsWith('dynamic_'))
      .map(([, v]) => [isObj(v) ? labelText(v.label) : '', valueOf(v)]),
  );
  return {
    employeeId: id,
    name: fullName(valueOf(a.first_name), valueOf(a.last_name)),
    email: text(valueOf(a.email))?.toLowerCase(),
    gender: gender(valueOf(a.gender)),
    status: status(valueOf(a.status)),
    employmentType: employmentType(valueOf(a.employment_type), hours(a.weekly_working_hours), hours(a.full_time_weekly_working_hours)),
    doj: dayOf(valueOf(a.hire_date)),
    terminationDate: dayOf(valueOf(a.termination_date)),
    designation: text(valueOf(a.position)),
    department: refName(a.department),
    companyName: refName(a.subcompany),
    jobLocation: { city: refName(a.office) },
    costCenter: center && text(valueOf(center.name)),
    manager: s && fullName(valueOf(s.first_name), valueOf(s.last_name)),
    managerEmail: s && text(valueOf(s.email))?.toLowerCase(),
    salaryDetails:
      salary === undefined
        ? undefined
        : interval === 'monthly'
          ? { monthly: { fixedPay: salary } }
          : interval === 'yearly'
            ? { ctc: { fixedPay: salary } }
            : undefined,
    ...fromTenant(tenant),
  };
}

/** The employment a v2 person's record shows: the active one that started last, else the one that started last. */
export function currentEmployment(employments: unknown[]): Obj | undefined {
  const list = employments.filter(isObj);
  const start = (e: Obj) => dayOf(e.employment_start_date) ?? '';
  const latest = (xs: Obj[]) => xs.reduce<Obj | undefined>((best, e) => (!best || start(e) > start(best) ? e : best), undefined);
  return latest(list.filter((e) => text(e.status)?.toUpperCase() === 'ACTIVE')) ?? latest(list);
}

/** What a v2 record needs looked up: the department's name and the supervisor's name and email. */
export interface V2Lookups {
  department?: string;
  supervisor?: { name?: string; email?: string };
}

/** A v2 person and its current employment → record; `undefined` without an `id`. */
export function mapPersonioV2(person: Obj, employment: Obj | undefined, lookups: V2Lookups): PartialEmployeeRecord | undefined {
  const id = text(person.id);
  if (id === undefined) return undefined;
  const e = employment ?? {};
  const termination = isObj(e.termination) ? e.termination : {};
  const custom = Array.isArray(person.custom_attributes) ? person.custom_attributes.filter(isObj) : [];
  return {
    employeeId: id,
    name: fullName(person.first_name, person.last_name),
    email: text(person.email)?.toLowerCase(),
    gender: gender(person.gender),
    status: status(person.status),
    employmentType: employmentType(e.type, money(e.weekly_working_hours), money(e.full_time_weekly_working_hours)),
    doj: dayOf(e.employment_start_date),
    terminationDate: dayOf(termination.termination_date),
    designation: isObj(e.position) ? text(e.position.title) : undefined,
    department: lookups.department,
    manager: lookups.supervisor?.name,
    managerEmail: lookups.supervisor?.email?.toLowerCase(),
    ...fromTenant(tenantValues(custom.map((c) => [labelText(c.label), c.value]))),
  };
}
