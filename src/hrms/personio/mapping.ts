/**
 * Personio → hrx mapping table (src/hrms/personio/README.md). v1 employees carry every attribute
 * wrapped in `{label, value, type, universal_id}`; "P:<line>" is a line of Personio's
 * `personio-personnel-data-api-oa3.yaml`, whose rules hrx checks are in `openapi/rules.yaml`; v2 splits a person (`GET /v2/persons`) from its employments
 * (`GET /v2/persons/{id}/employments`, https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments).
 *
 * The mapping is three tables of rows (src/hrms/mapping-table.ts): `PERSONIO_V1_MAPPING` (v1
 * attributes, "P:<line>" their sources), `PERSONIO_V2_MAPPING` (a person, its current employment
 * and what they point to) and `PERSONIO_ATTRIBUTE_MAPPING` (the tenant-defined attributes both
 * APIs carry, found by `universal_id` or label); the README's "What is mapped" tables are written
 * from them by `npm run docs`.
 *
 * Personio has no standard field for birth date, phone, address, bank or tax ids (the sources in src/hrms/personio/README.md: they
 * are tenant-defined); a tenant without such an attribute leaves the field empty. Not mapped:
 * managerEmail2..5, countryCode, permanentAddress, marriage date, dependents, `team` (not a
 * business unit), salary components.
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { dayOf, type FieldWarner } from '../decode';
import { bloodGroup, enumValue, mobileNumber, money, text } from '../decode';
import { mapWith, type MappingRow, type MappingTable, type MappingVersions } from '../mapping-table';

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

/** What the attribute rows read: the tenant-defined values by what they hold (`tenantValues`). */
interface TenantRead {
  tenant: Record<string, unknown>;
}
const ATTRS = 'tenant-defined `dynamic_<id>` (P:3837-3848), v2 `custom_attributes`; the labels: the sources in src/hrms/personio/README.md (I)';
/** A row of one tenant-defined attribute (`held`: what `TENANT_LABELS` says it holds). */
const tenantRow = (point: string, held: string, decode: (v: unknown) => unknown = text): MappingRow<FieldWarner, TenantRead> => {
  const labels = Object.keys(TENANT_LABELS).filter((l) => TENANT_LABELS[l] === held);
  return { point, fields: [], read: (r) => decode(r.tenant[held]), source: ATTRS, note: `an attribute labelled ${labels.map((l) => `\`${l}\``).join(', ')}` };
};
const noSpace = (v: unknown): string | undefined => text(v)?.replace(/\s/g, '');
const upperNoSpace = (v: unknown): string | undefined => noSpace(v)?.toUpperCase();

/**
 * The tenant-defined attributes (v1 `dynamic_<id>`, v2 `custom_attributes`), by label (English or
 * German, `TENANT_LABELS`, compared as `labelKey` writes them); the birth date by its documented
 * `universal_id` first (v1 only, P:1013-1016).
 */
export const PERSONIO_ATTRIBUTE_MAPPING: MappingTable<FieldWarner, TenantRead> = {
  rows: [
    { ...tenantRow('dob', 'dob', dayOf), note: 'v1: the attribute whose `universal_id` is `date_of_birth` (P:1013-1016); else one labelled as a birth date' },
    tenantRow('mobileNumber', 'mobile', mobileNumber),
    tenantRow('personalEmail', 'personalEmail', (v) => text(v)?.toLowerCase()),
    tenantRow('pan', 'pan', upperNoSpace),
    tenantRow('aadhar', 'aadhar', noSpace),
    tenantRow('uan', 'uan', noSpace),
    tenantRow('maritalStatus', 'marital', (v) => enumValue(MARITAL, v)),
    tenantRow('nationality', 'nationality'),
    tenantRow('bloodGroup', 'blood', bloodGroup),
    tenantRow('fatherName', 'father'),
    tenantRow('grade', 'grade'),
    tenantRow('bankDetails.accountNumber', 'account', noSpace),
    tenantRow('bankDetails.ifscCode', 'ifsc', upperNoSpace),
    tenantRow('bankDetails.bankName', 'bankName'),
    tenantRow('currentAddress.addressLine', 'street'),
    tenantRow('currentAddress.addressCity', 'city'),
    tenantRow('currentAddress.addressState', 'state'),
    tenantRow('currentAddress.addressPincode', 'postal', noSpace),
    tenantRow('currentAddress.addressCountry', 'country'),
  ],
};

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

/** What the v1 rows read: the employee's `attributes` (each wrapped, `valueOf` unwraps). */
interface V1Read extends TenantRead {
  a: Obj;
}
type V1Row = MappingRow<FieldWarner, V1Read>;
/** A v1 row reading attribute `key`'s value through `decode`. */
const v1 = (point: string, key: string, source: string, decode: (v: unknown) => unknown = text, note?: string): V1Row => ({
  point,
  fields: [key],
  read: (r) => decode(valueOf(r.a[key])),
  source,
  ...(note ? { note } : {}),
});
const supervisorOf = (a: Obj): Obj | undefined => {
  const sup = valueOf(a.supervisor);
  return isObj(sup) && isObj(sup.attributes) ? sup.attributes : undefined;
};
/** The cost centre with the largest share. */
const costCenterOf = (a: Obj): string | undefined => {
  const centers = valueOf(a.cost_centers);
  const center = (Array.isArray(centers) ? centers.filter(isObj).map((c) => (isObj(c.attributes) ? c.attributes : c)) : []).sort(
    (x, y) => (money(valueOf(y.percentage)) ?? 0) - (money(valueOf(x.percentage)) ?? 0),
  )[0];
  return center && text(valueOf(center.name));
};

/** Personio v1's standard attributes (openapi/rules.yaml, "P:<line>" of the personnel description). */
export const PERSONIO_V1_MAPPING: MappingTable<FieldWarner, V1Read> = {
  answeredAlways: ['id'],
  rows: [
    v1('employeeId', 'id', 'P:3560'),
    { point: 'name', fields: ['first_name', 'last_name'], read: (r) => fullName(valueOf(r.a.first_name), valueOf(r.a.last_name)), source: 'P:3571, P:3582' },
    v1('email', 'email', 'P:3604', (v) => text(v)?.toLowerCase()),
    v1('gender', 'gender', 'P:3615 (example `male`)', gender, 'male, female, diverse → Male, Female, Other'),
    v1(
      'status',
      'status',
      'P:3626 (example `active`); values: https://developer.personio.de/v1.0/reference/get_company-employees',
      status,
      'active, onboarding, leave → Active; inactive → Inactive',
    ),
    {
      point: 'employmentType',
      fields: ['employment_type'],
      read: (r, warn) => employmentType(valueOf(r.a.employment_type), warn),
      source: 'P:3650, values P:275, P:3656',
      note: 'external → Contract; internal says neither full nor part time: empty, logged once as `employment_type` (Personio documents no full-time hours to compare weekly hours with)',
    },
    v1('doj', 'hire_date', 'P:3672', dayOf),
    v1('terminationDate', 'termination_date', 'P:3694', dayOf),
    v1('designation', 'position', 'P:3637'),
    {
      point: 'department',
      fields: ['department'],
      read: (r) => refName(r.a.department),
      source: 'P:3764 (Department P:3377-3403)',
      note: '`value.attributes.name`',
    },
    { point: 'companyName', fields: ['subcompany'], read: (r) => refName(r.a.subcompany), source: 'P:3760', note: '`value.attributes.name`' },
    { point: 'jobLocation.city', fields: ['office'], read: (r) => refName(r.a.office), source: 'P:3762', note: '`value.attributes.name`' },
    {
      point: 'costCenter',
      fields: ['cost_centers'],
      read: (r) => costCenterOf(r.a),
      source: 'P:3766 (CostCenters P:3404)',
      note: 'the one with the largest `percentage`',
    },
    {
      point: 'manager',
      fields: ['supervisor'],
      read: (r) => {
        const s = supervisorOf(r.a);
        return s && fullName(valueOf(s.first_name), valueOf(s.last_name));
      },
      source: 'P:3648 (Supervisor P:3548, ShortEmployee P:4714)',
      note: "the supervisor's `first_name` `last_name`",
    },
    {
      point: 'managerEmail',
      fields: ['supervisor'],
      read: (r) => text(valueOf(supervisorOf(r.a)?.email))?.toLowerCase(),
      source: 'P:3648 (ShortEmployee P:4714)',
      note: "the supervisor's `email`",
    },
    {
      point: 'salaryDetails',
      fields: ['fix_salary', 'fix_salary_interval'],
      read: (r, warn) => salaryOf(r.a.fix_salary, r.a.fix_salary_interval, warn),
      source: 'P:3776-3789 (`currency` P:3787), P:3790',
      note: '`ctc.fixedPay` when yearly, `monthly.fixedPay` when monthly; only when its `currency` is INR (else empty, logged as `fix_salary` with the currency, never the amount)',
    },
  ],
};

/** One v1 employee (`{type: "Employee", attributes}`) → record by `PERSONIO_V1_MAPPING` and `PERSONIO_ATTRIBUTE_MAPPING`; `undefined` without an `id`. `warn` hears of values left empty (salary, employment type). */
export function mapPersonioV1(employee: unknown, warn: FieldWarner = () => {}): PartialEmployeeRecord | undefined {
  const a = isObj(employee) && isObj(employee.attributes) ? employee.attributes : {};
  if (text(valueOf(a.id)) === undefined) return undefined;
  const tenant = tenantValues(
    Object.entries(a)
      .filter(([k]) => k.startsWith('dynamic_'))
      .map(([, v]) => [isObj(v) ? labelText(v.label) : '', valueOf(v), isObj(v) ? v.universal_id : undefined]),
  );
  return { ...mapWith(PERSONIO_V1_MAPPING, { a, tenant }, warn), ...mapWith(PERSONIO_ATTRIBUTE_MAPPING, { tenant }, warn) };
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

/** What the v2 rows read: the person, its current employment and what they point to. */
interface V2Read extends TenantRead {
  person: Obj;
  employment: Obj;
  lookups: V2Lookups;
}
const EMPLOYMENTS = 'https://developer.personio.de/v2.0/reference/get_v2-persons-person-id-employments';
const PERSONS = '`GET /v2/persons` (S, the sources in src/hrms/personio/README.md)';

/** Personio v2: a person (`GET /v2/persons`) and its current employment (`currentEmployment`). */
export const PERSONIO_V2_MAPPING: MappingTable<FieldWarner, V2Read> = {
  answeredAlways: ['id'],
  rows: [
    { point: 'employeeId', fields: ['id'], read: (r) => text(r.person.id), source: PERSONS, note: "the person's `id`" },
    { point: 'name', fields: ['first_name', 'last_name'], read: (r) => fullName(r.person.first_name, r.person.last_name), source: PERSONS },
    { point: 'email', fields: ['email'], read: (r) => text(r.person.email)?.toLowerCase(), source: PERSONS },
    {
      point: 'gender',
      fields: ['gender'],
      read: (r) => gender(r.person.gender),
      source: PERSONS + '; spellings `?`',
      note: 'MALE, FEMALE, DIVERSE; UNKNOWN is empty',
    },
    { point: 'status', fields: ['status'], read: (r) => status(r.person.status), source: 'the sources in src/hrms/personio/README.md (D, changelog)' },
    {
      point: 'employmentType',
      fields: ['employment.type'],
      read: (r, warn) => employmentType(r.employment.type, warn),
      source: EMPLOYMENTS,
      note: 'EXTERNAL → Contract; INTERNAL empty, as in v1',
    },
    { point: 'doj', fields: ['employment.employment_start_date'], read: (r) => dayOf(r.employment.employment_start_date), source: EMPLOYMENTS },
    {
      point: 'terminationDate',
      fields: ['employment.termination.termination_date'],
      read: (r) => (isObj(r.employment.termination) ? dayOf(r.employment.termination.termination_date) : undefined),
      source: EMPLOYMENTS,
    },
    {
      point: 'designation',
      fields: ['employment.position.title'],
      read: (r) => (isObj(r.employment.position) ? text(r.employment.position.title) : undefined),
      source: EMPLOYMENTS,
    },
    {
      point: 'department',
      fields: ['employment.org_units'],
      read: (r) => r.lookups.department,
      source: EMPLOYMENTS,
      note: 'the DEPARTMENT org unit → `GET /v2/org-units/{id}` `name`',
    },
    {
      point: 'manager',
      fields: ['employment.supervisor.id'],
      read: (r) => r.lookups.supervisor?.name,
      source: EMPLOYMENTS,
      note: 'that person’s `first_name` `last_name`',
    },
    {
      point: 'managerEmail',
      fields: ['employment.supervisor.id'],
      read: (r) => r.lookups.supervisor?.email?.toLowerCase(),
      source: EMPLOYMENTS,
      note: 'that person’s `email`',
    },
  ],
};

/** The README's "What is mapped" tables: v1, v2, and the tenant-defined attributes both carry. */
export const PERSONIO_MAPPING: MappingVersions = [
  { title: 'API v1 (`GET /v1/company/employees`, each attribute `{label, value, type, universal_id}`)', table: PERSONIO_V1_MAPPING },
  {
    title: 'API v2 (`GET /v2/persons` with `GET /v2/persons/{id}/employments`; company, office, cost centre and salary are not read)',
    table: PERSONIO_V2_MAPPING,
  },
  {
    title: "The company's own attributes (v1 `dynamic_<id>`, v2 `custom_attributes`), recognised by label in English or German",
    table: PERSONIO_ATTRIBUTE_MAPPING,
  },
];

/** A v2 person and its current employment → record by `PERSONIO_V2_MAPPING` and `PERSONIO_ATTRIBUTE_MAPPING`; `undefined` without an `id`. */
export function mapPersonioV2(person: Obj, employment: Obj | undefined, lookups: V2Lookups, warn: FieldWarner = () => {}): PartialEmployeeRecord | undefined {
  if (text(person.id) === undefined) return undefined;
  const custom = Array.isArray(person.custom_attributes) ? person.custom_attributes.filter(isObj) : [];
  const tenant = tenantValues(custom.map((c) => [labelText(c.label), c.value]));
  return {
    ...mapWith(PERSONIO_V2_MAPPING, { person, employment: employment ?? {}, lookups, tenant }, warn),
    ...mapWith(PERSONIO_ATTRIBUTE_MAPPING, { tenant }, warn),
  };
}
