/**
 * Personio → hrx mapping table (src/hrms/personio/README.md). v1 employees carry every attribute
 * wrapped in `{label, value, type, universal_id}`; "P:<line>" is a line of Personio's
 * `personio-personnel-data-api-oa3.yaml`, whose rules hrx checks are in `openapi/rules.yaml`; v2 splits a person (`GET /v2/persons`) from its employments
 * (`GET /v2/persons/{id}/employments`, https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments).
 *
 * | hrx | v1 attribute | v2 | source |
 * |---|---|---|---|
 * | employeeId | `id` | person `id` | v1: openapi/rules.yaml `id` (P:3560); v2: `GET /v2/persons` (S, the sources in src/hrms/personio/README.md) |
 * | name, email | `first_name` `last_name`, `email` | person `first_name` `last_name`, `email` | v1: P:3571, P:3582, P:3604; v2: `GET /v2/persons` (S, the sources in src/hrms/personio/README.md) |
 * | gender | `gender` (male, female, diverse) | person `gender` (MALE, FEMALE, DIVERSE) | v1: P:3615 (example `male`); v2 spellings: `?` (not in the research sources) |
 * | status | `status`: active, onboarding, leave → Active; inactive → Inactive | person `status` | v1: P:3626 (example `active`), values: the sources in src/hrms/personio/README.md (D, https://developer.personio.de/v1.0/reference/get_company-employees); v2: the sources in src/hrms/personio/README.md (D, changelog) |
 * | employmentType | `employment_type` `external` → Contract; `internal` says neither full nor part time → empty (warned `employment_type`); hours are not read: Personio documents no full-time hours to compare with | employment `type` EXTERNAL / INTERNAL, the same | v1: openapi/rules.yaml `employment_type` (P:3650, values P:275, P:3656); v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | doj, terminationDate | `hire_date`, `termination_date` | current employment `employment_start_date`, `termination.termination_date` | v1: P:3672, P:3694; v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | designation, department | `position`, `department` (`value.attributes.name`) | employment `position.title`, `org_units[DEPARTMENT]` → `GET /v2/org-units/{id}` `name` | v1: P:3637, P:3764 (Department P:3377-3403); v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | manager, managerEmail | `supervisor` (a nested employee) | employment `supervisor.id` → that person | v1: P:3648 (Supervisor P:3548, ShortEmployee P:4714); v2: https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments |
 * | companyName, jobLocation.city, costCenter | `subcompany`, `office`, `cost_centers` (largest share) | not mapped (no list of them in v2) | v1: P:3760, P:3762, P:3766 (CostCenters P:3404) |
 * | salaryDetails.ctc.fixedPay / .monthly.fixedPay | `fix_salary` by `fix_salary_interval` (yearly / monthly), only when its `currency` is INR (else empty, warned `fix_salary` naming the currency) | not mapped | openapi/rules.yaml `fix_salary` with `currency` (P:3776-3789), `fix_salary_interval` (P:3790) |
 * | dob | the `dynamic_<id>` attribute whose `universal_id` is `date_of_birth`, else one labelled as a birth date | `custom_attributes` by label | v1: openapi/rules.yaml (P:1013-1016: `universal_id: date_of_birth`); v2 `custom_attributes` |
 * | mobileNumber, personalEmail, pan, aadhar, uan, maritalStatus, nationality, bloodGroup, fatherName, grade, bankDetails, currentAddress | tenant-defined `dynamic_<id>` attributes (P:3837-3848), found by label (English or German, `TENANT_LABELS`) | `custom_attributes` by label | the sources in src/hrms/personio/README.md: tenant-defined `dynamic_<id>` (I), v2 `custom_attributes` |
 *
 * Personio has no standard field for birth date, phone, address, bank or tax ids (the sources in src/hrms/personio/README.md: they
 * are tenant-defined); a tenant without such an attribute leaves the field empty. Not mapped:
 * managerEmail2..5, countryCode, permanentAddress, marriage date, dependents, `team` (not a
 * business unit), salary components.
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { dayOf, type FieldWarner } from '../decode';
import { bloodGroup, enumValue, mobileNumber, money, text } from '../decode';

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

/** `universal_id`s Personio documents for tenant attributes (P:1013-1016) → what they hold. */
const UNIVERSAL_IDS: Readonly<Record<string, string>> = { date_of_birth: 'dob' };

/** Tenant-defined values by what they hold, from `[label, value, universal_id]` (the documented `universal_id` first, else the label; the first non-empty one wins). */
function tenantValues(pairs: [string, unknown, unknown?][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [label, value, universal] of pairs) {
    const field = (typeof universal === 'string' ? UNIVERSAL_IDS[universal] : undefined) ?? TENANT_LABELS[labelKey(label)];
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

/**
 * hrx's employment type from Personio's `employment_type` (`internal`, `external`: P:3650-3660,
 * P:275): `external` is Contract; `internal` says neither full nor part time, and Personio
 * documents no full-time hours to compare `weekly_working_hours` with, so it is left empty (and
 * warned once), as is any other value.
 */
function employmentType(kind: unknown, warn: FieldWarner): string | undefined {
  const k = text(kind)?.toLowerCase();
  if (k === undefined) return undefined;
  if (k === 'external') return 'Contract';
  warn('employment_type', k === 'internal' ? 'internal does not say full or part time: left empty' : 'value the connector cannot translate');
  return undefined;
}

/**
 * `fix_salary` by `fix_salary_interval` → salary, only when the attribute's `currency`
 * (P:3787-3789) is INR: another currency (or none) leaves it empty and warns `fix_salary`
 * naming the currency, never the amount.
 */
function salaryOf(attr: unknown, intervalAttr: unknown, warn: FieldWarner): PartialEmployeeRecord['salaryDetails'] {
  const salary = money(valueOf(attr));
  if (salary === undefined) return undefined;
  const currency = isObj(attr) ? text(attr.currency)?.toUpperCase() : undefined;
  if (currency !== 'INR') {
    warn(
      'fix_salary',
      currency && /^[A-Z]{3}$/.test(currency) ? `salary left empty: fix_salary is in ${currency}, not INR` : 'salary left empty: fix_salary names no currency',
    );
    return undefined;
  }
  const interval = text(valueOf(intervalAttr))?.toLowerCase();
  return interval === 'monthly' ? { monthly: { fixedPay: salary } } : interval === 'yearly' ? { ctc: { fixedPay: salary } } : undefined;
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

/** One v1 employee (`{type: "Employee", attributes}`) → record; `undefined` without an `id`. `warn` hears of values left empty (salary, employment type). */
export function mapPersonioV1(employee: unknown, warn: FieldWarner = () => {}): PartialEmployeeRecord | undefined {
  const a = isObj(employee) && isObj(employee.attributes) ? employee.attributes : {};
  const id = text(valueOf(a.id));
  if (id === undefined) return undefined;
  const sup = valueOf(a.supervisor);
  const s = isObj(sup) && isObj(sup.attributes) ? sup.attributes : undefined;
  const centers = valueOf(a.cost_centers);
  const center = (Array.isArray(centers) ? centers.filter(isObj).map((c) => (isObj(c.attributes) ? c.attributes : c)) : []).sort(
    (x, y) => (money(valueOf(y.percentage)) ?? 0) - (money(valueOf(x.percentage)) ?? 0),
  )[0];
  const tenant = tenantValues(
    Object.entries(a)
      .filter(([k]) => k.startsWith('dynamic_'))
      .map(([, v]) => [isObj(v) ? labelText(v.label) : '', valueOf(v), isObj(v) ? v.universal_id : undefined]),
  );
  return {
    employeeId: id,
    name: fullName(valueOf(a.first_name), valueOf(a.last_name)),
    email: text(valueOf(a.email))?.toLowerCase(),
    gender: gender(valueOf(a.gender)),
    status: status(valueOf(a.status)),
    employmentType: employmentType(valueOf(a.employment_type), warn),
    doj: dayOf(valueOf(a.hire_date)),
    terminationDate: dayOf(valueOf(a.termination_date)),
    designation: text(valueOf(a.position)),
    department: refName(a.department),
    companyName: refName(a.subcompany),
    jobLocation: { city: refName(a.office) },
    costCenter: center && text(valueOf(center.name)),
    manager: s && fullName(valueOf(s.first_name), valueOf(s.last_name)),
    managerEmail: s && text(valueOf(s.email))?.toLowerCase(),
    salaryDetails: salaryOf(a.fix_salary, a.fix_salary_interval, warn),
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
export function mapPersonioV2(person: Obj, employment: Obj | undefined, lookups: V2Lookups, warn: FieldWarner = () => {}): PartialEmployeeRecord | undefined {
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
    employmentType: employmentType(e.type, warn),
    doj: dayOf(e.employment_start_date),
    terminationDate: dayOf(termination.termination_date),
    designation: isObj(e.position) ? text(e.position.title) : undefined,
    department: lookups.department,
    manager: lookups.supervisor?.name,
    managerEmail: lookups.supervisor?.email?.toLowerCase(),
    ...fromTenant(tenantValues(custom.map((c) => [labelText(c.label), c.value]))),
  };
}
