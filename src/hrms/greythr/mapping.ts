/**
 * greytHR → hrx mapping table (src/hrms/greythr/README.md, "Requests", says which request reads
 * each list). greytHR splits an employee across list endpoints joined on the numeric `employeeId`;
 * many values are numeric ids into lists of values (`POST /hr/v2/lov`) or category values
 * (`/hr/v2/categories`).
 *
 * Sources (greytHR publishes its API as a Postman collection at https://api-docs.greythr.com/;
 * that page is rendered in the browser and no stored copy of its content was readable, so no row
 * quotes it yet, and every row below cites a secondary source, marked so):
 * - [A] Airbyte's greytHR connector, whose schemas were sampled live from greytHR (not the
 *   vendor's page): https://github.com/airbytehq/airbyte/blob/master/airbyte-integrations/connectors/source-greythr/manifest.yaml,
 *   by stream name (`Employees`, `Employee Statutory Details`, …).
 * - [K] Knit's greytHR use cases (not the vendor's page): https://developers.getknit.dev/docs/greythr-usecases
 * - [none] no public source seen: the connector reads every plausible key and the simulator
 *   switches between them (README "Simulator").
 *
 * The mapping is the rows of `GREYTHR_MAPPING` (src/hrms/mapping-table.ts): each row's fields are
 * `<section>.<key>`, its source one of the above; the README's "What is mapped" table is written
 * from them by `npm run docs`.
 *
 * Not mapped (no source gives them): manager and managerEmail..5, countryCode, marriage date,
 * dependents, salary (`/payroll/v2/salary/repository` has no known shape).
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { dayOf } from '../decode';
import { bloodGroup, enumValue, mobileNumber, text, isObj, obj, type Obj } from '../decode';
import { mapWith, type MappingRow, type MappingTable } from '../mapping-table';

/** One employee's records, one per section (absent when the section has none for it). */
export interface GreythrParts {
  employees: Obj;
  personal?: Obj;
  statutory?: Obj;
  pf?: Obj;
  bank?: Obj;
  separation?: Obj;
  categories?: Obj;
  addresses?: Obj;
}

/** A name as greytHR's lists and categories spell it, reduced to lower-case letters (`Cost Centre` → `costcentre`). */
export const norm = (s: string): string => s.toLowerCase().replace(/[^a-z]/g, '');

/**
 * The lookups a connector instance loaded: lists of values by normalised name (id → text), and
 * categories by id (name, and value id → text).
 */
export interface GreythrLookups {
  lovs: Map<string, Map<string, string>>;
  categories: Map<string, { name: string; values: Map<string, string> }>;
}

/** The lists of values each numeric field needs, by the normalised names greytHR may give them. */
const LOV_NAMES: Readonly<Record<string, readonly string[]>> = {
  maritalStatus: ['maritalstatus'],
  bloodGroup: ['bloodgroup'],
  nationality: ['nationality'],
  bankName: ['bank', 'bankname'],
  leavingReason: ['leavingreason', 'separationreason', 'reasonforleaving'],
};
/**
 * The lists of values the connector asks `POST /hr/v2/lov` for (any of `LOV_NAMES` is read back).
 * No vendor page for this request was readable; public client code (not the vendor's page) posts a
 * bare JSON array of keys, `lov::<list>` (and `cat::<category>`), and reads `{"lov::<list>": [[id,
 * text], …]}`: the request is `LOV_KEYS`, the answer `parseLovs` reads (src/hrms/greythr/README.md,
 * "Requests").
 */
export const LOV_REQUEST = ['MaritalStatus', 'BloodGroup', 'Nationality', 'Bank', 'LeavingReason'];
/** The body of `POST /hr/v2/lov`: one `lov::<list>` key per list of `LOV_REQUEST`. */
export const LOV_KEYS: readonly string[] = LOV_REQUEST.map((name) => `lov::${name}`);

/** Category names (normalised) → the record field they fill. */
const CATEGORY_FIELDS: Readonly<Record<string, string>> = {
  department: 'department',
  designation: 'designation',
  grade: 'grade',
  band: 'grade',
  costcenter: 'costCenter',
  costcentre: 'costCenter',
  company: 'companyName',
  legalentity: 'companyName',
  entity: 'companyName',
  businessunit: 'groupName',
  division: 'groupName',
  employeetype: 'employmentType',
  employmenttype: 'employmentType',
  location: 'location',
  worklocation: 'location',
  branch: 'location',
};

/** greytHR's employee types → hrx's words (docs/hrms/connectors.md, "Values keep their meaning"). */
export const EMPLOYMENT_TYPES: Readonly<Record<string, string>> = {
  PERMANENT: 'Full Time',
  FULL_TIME: 'Full Time',
  REGULAR: 'Full Time',
  CONFIRMED: 'Full Time',
  PART_TIME: 'Part Time',
  CONTRACT: 'Contract',
  CONTRACTUAL: 'Contract',
  TEMPORARY: 'Contract',
  CONSULTANT: 'Contract',
  TRAINEE: 'Intern',
  INTERN: 'Intern',
  APPRENTICE: 'Intern',
};
/** greytHR's `gender` text → hrx's words. */
export const GENDERS: Readonly<Record<string, string>> = {
  M: 'Male',
  MALE: 'Male',
  F: 'Female',
  FEMALE: 'Female',
  O: 'Other',
  OTHER: 'Other',
  TRANSGENDER: 'Other',
};
/** The marital statuses of greytHR's list → hrx's words. */
export const MARITAL: Readonly<Record<string, string>> = {
  SINGLE: 'Single',
  UNMARRIED: 'Single',
  MARRIED: 'Married',
  DIVORCED: 'Divorced',
  WIDOWED: 'Widowed',
  WIDOW: 'Widowed',
  WIDOWER: 'Widowed',
  SEPARATED: 'Separated',
};

/** Reports a field left empty because its value could not be translated (the field's name only). */
export type Warn = (field: string) => void;

/**
 * A lookup-backed value: a number (or numeric text) through list `field`'s values, text as it is.
 * An id the list does not know is left empty with a warning naming `where`.
 */
function listed(v: unknown, field: string, where: string, lk: GreythrLookups, warn: Warn): string | undefined {
  if (typeof v === 'string' && !/^\d+$/.test(v.trim())) return text(v);
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  const id = String(v).trim();
  for (const name of LOV_NAMES[field] ?? []) {
    const hit = lk.lovs.get(name)?.get(id);
    if (hit !== undefined) return text(hit);
  }
  warn(where);
  return undefined;
}

/** The category entries effective today (else the latest), by the record field they fill, resolved to text. */
function categoryValues(c: Obj | undefined, lk: GreythrLookups, warn: Warn, today: string): Record<string, string> {
  const list = Array.isArray(c?.categoryList) ? c.categoryList.filter(isObj) : [];
  const chosen = new Map<string, { from: string; to: string; value: string | undefined }>();
  for (const entry of list) {
    const cat = lk.categories.get(String(entry.category));
    const name = text(entry.categoryDesc) ?? cat?.name;
    const field = name ? CATEGORY_FIELDS[norm(name)] : undefined;
    if (!field) continue;
    const from = dayOf(entry.effectiveFrom) ?? '0000-00-00',
      to = dayOf(entry.effectiveTo) ?? '9999-12-31';
    const current = from <= today && today <= to;
    const prev = chosen.get(field);
    const prevCurrent = prev !== undefined && prev.from <= today && today <= prev.to;
    if (prev && ((prevCurrent && !current) || (prevCurrent === current && prev.from > from))) continue;
    const value = text(entry.valueDesc) ?? cat?.values.get(String(entry.value));
    if (value === undefined && entry.value !== undefined && entry.value !== null) warn(`categories.${norm(name!)}`);
    chosen.set(field, { from, to, value });
  }
  return Object.fromEntries([...chosen].flatMap(([k, v]) => (v.value === undefined ? [] : [[k, v.value]])));
}

const pick = (o: Obj | undefined, ...keys: string[]): unknown => keys.map((k) => o?.[k]).find((v) => v !== undefined && v !== null && v !== '');
const IFSC = /^[A-Z]{4}0[A-Z0-9]{6}$/;
const compactUpper = (v: unknown): string | undefined => text(v)?.replace(/\s/g, '').toUpperCase();

/** What the rows read: the employee's section records and its categories effective today, by the record field they fill. */
interface GreythrRead {
  parts: GreythrParts;
  cat: Record<string, string>;
}
/** What the rows read besides: the lookups and the warner. */
interface GreythrCtx {
  lookups: GreythrLookups;
  warn: Warn;
}
type Row = MappingRow<GreythrCtx, GreythrRead>;

const A = (stream: string): string => `[A] \`${stream}\``;
const NONE = "[none]: [A]'s live-sampled `Employee Statutory Details` has no such key; a tenant without one leaves the field empty";
const CATEGORIES =
  "[A] `Employees Categories` (`descRequired=true`: `category`, `categoryDesc`, `value`, `valueDesc`, `effectiveFrom`, `effectiveTo`); category names are the tenant's";

/** A row of `section.key` through `decode`. */
const key = (point: string, section: keyof GreythrParts, k: string, source: string, decode: (v: unknown) => unknown = text, note?: string): Row => ({
  point,
  fields: [`${section}.${k}`],
  read: (r) => decode(r.parts[section]?.[k]),
  source,
  ...(note ? { note } : {}),
});
/** A row of a lookup-backed value: a number through list `field` (`listed`). */
const listRow = (
  point: string,
  section: 'personal' | 'statutory' | 'bank',
  k: string,
  field: string,
  words: (v: string | undefined) => unknown = (v) => v,
): Row => ({
  point,
  fields: [`${section}.${k}`],
  read: (r, { lookups, warn }) => {
    const rec = r.parts[section];
    return words(rec && listed(rec[k], field, `${section}.${k}`, lookups, warn));
  },
  source: `${A(section === 'personal' ? 'Employees Personal Details' : section === 'bank' ? 'Employee Bank Details' : 'Employee Statutory Details')} (a number); the list's name: [none]`,
  note: `a number through the list \`${LOV_REQUEST.find((n) => LOV_NAMES[field]?.includes(norm(n))) ?? field}\``,
});
/** A row of the category filling record field `field`. */
const catRow = (point: string, field: string, names: string, words: (v: string | undefined) => unknown = (v) => v): Row => ({
  point,
  fields: ['categories.categoryList'],
  read: (r) => words(r.cat[field]),
  source: CATEGORIES,
  note: `the entry effective today whose category is ${names}`,
});

const ADDRESS: readonly MappingRow<GreythrCtx>[] = [
  {
    point: 'addressLine',
    fields: ['address1', 'address2', 'address3'],
    read: (a) => [text(a.address1), text(a.address2), text(a.address3)].filter((x) => x !== undefined).join(', ') || undefined,
    source: '[none]',
    note: 'joined by `, `',
  },
  { point: 'addressCity', fields: ['city'], read: (a) => text(a.city), source: '[none]' },
  { point: 'addressState', fields: ['state'], read: (a) => text(a.state), source: '[none]' },
  { point: 'addressCountry', fields: ['country'], read: (a) => text(a.country), source: '[none]' },
  { point: 'addressPincode', fields: ['pin', 'pincode', 'zip'], read: (a) => text(pick(a, 'pin', 'pincode', 'zip'))?.replace(/\s/g, ''), source: '[none]' },
];
/** The address of `addresses.addresses[]` whose `addressType` matches `type`. */
const addressRow = (point: string, type: RegExp, types: string): Row => ({
  point,
  fields: ['addresses.addresses'],
  read: (r) =>
    Array.isArray(r.parts.addresses?.addresses) ? r.parts.addresses.addresses.filter(isObj).find((x) => type.test(text(x.addressType) ?? '')) : undefined,
  source: '[K] lists address details by type (so the data exists); the list endpoint and its keys: [none]; absent (404/403) → empty',
  note: `the one whose \`addressType\` is ${types}`,
  rows: ADDRESS,
});

const dojOf = (e: Obj): string | undefined => dayOf(e.dateOfJoin);

/**
 * greytHR's mapping (src/hrms/mapping-table.ts): each hrx data point from the section records
 * of one employee (`GreythrParts`), their lookups resolved; the sources are those above.
 */
export const GREYTHR_MAPPING: MappingTable<GreythrCtx, GreythrRead> = {
  rows: [
    key('employeeId', 'employees', 'employeeNo', A('Employees'), text, "`employeeId` (a number) is greytHR's own key, joining the sections"),
    {
      point: 'name',
      fields: ['employees.name', 'employees.firstName', 'employees.middleName', 'employees.lastName'],
      read: ({ parts: { employees: e } }) =>
        text(e.name) ?? ([text(e.firstName), text(e.middleName), text(e.lastName)].filter((x) => x !== undefined).join(' ') || undefined),
      source: A('Employees'),
      note: 'else first, middle and last name',
    },
    key('email', 'employees', 'email', A('Employees'), (v) => text(v)?.toLowerCase()),
    key('personalEmail', 'employees', 'personalEmail', A('Employees'), (v) => text(v)?.toLowerCase()),
    key('mobileNumber', 'employees', 'mobile', A('Employees'), mobileNumber),
    key('gender', 'employees', 'gender', `${A('Employees')} (a string); its values: [none], \`GENDERS\` is hrx's table`, (v) => enumValue(GENDERS, v)),
    key('dob', 'employees', 'dateOfBirth', `${A('Employees')} (strings; the date format: [none])`, dayOf),
    key('doj', 'employees', 'dateOfJoin', `${A('Employees')} (strings; the date format: [none])`, dayOf),
    {
      point: 'terminationDate',
      fields: ['separation.leavingDate', 'employees.leavingDate'],
      read: ({ parts: { employees: e, separation: sep } }) => {
        const leaving = dayOf(sep?.leavingDate) ?? dayOf(e.leavingDate);
        const doj = dojOf(e);
        return leaving !== undefined && (doj === undefined || leaving >= doj) ? leaving : undefined;
      },
      source: `${A('Employee Separation Details')}, ${A('Employees')}`,
      note: 'one before `dateOfJoin` is an earlier stint and ignored',
    },
    {
      point: 'status',
      fields: ['employees.leftorg', 'separation.leftOrg', 'separation.leavingReason'],
      read: ({ parts: { employees: e, separation: sep } }, { lookups, warn }) => {
        const reason = sep && listed(sep.leavingReason, 'leavingReason', 'separation.leavingReason', lookups, warn);
        const left = e.leftorg === true || sep?.leftOrg === true;
        return !left ? 'Active' : /terminat|dismiss/i.test(reason ?? '') ? 'Terminated' : 'Inactive';
      },
      source: `${A('Employees')} (\`leftorg\`), ${A('Employee Separation Details')} (\`leftOrg\`, \`leavingReason\` a number); the list's name and texts: [none]. greytHR's own \`employees.status\` is a number into a list of employment types, not a state, and is not read`,
      note: 'not left: Active; left: Terminated when the leaving reason (list `LeavingReason`) says termination or dismissal, else Inactive',
    },
    listRow('maritalStatus', 'personal', 'maritalStatus', 'maritalStatus', (v) => enumValue(MARITAL, v)),
    listRow('bloodGroup', 'personal', 'bloodGroup', 'bloodGroup', bloodGroup),
    listRow('nationality', 'statutory', 'nationality', 'nationality'),
    key('fatherName', 'statutory', 'fatherName', A('Employee Statutory Details')),
    {
      point: 'pan',
      fields: ['statutory.panNumber', 'statutory.pan', 'statutory.panNo', 'statutory.PAN'],
      read: (r) => compactUpper(pick(r.parts.statutory, 'panNumber', 'pan', 'panNo', 'PAN')),
      source: NONE,
    },
    {
      point: 'aadhar',
      fields: ['statutory.aadhaarNumber', 'statutory.aadhaar', 'statutory.aadharNumber', 'statutory.aadhar', 'statutory.aadhaarNo'],
      read: (r) => compactUpper(pick(r.parts.statutory, 'aadhaarNumber', 'aadhaar', 'aadharNumber', 'aadhar', 'aadhaarNo')),
      source: NONE,
    },
    key('uan', 'pf', 'uan', A('Employee PF & ESI details'), compactUpper),
    key('bankDetails.accountNumber', 'bank', 'bankAccountNumber', A('Employee Bank Details'), (v) => text(v)?.replace(/\s/g, '')),
    {
      point: 'bankDetails.ifscCode',
      fields: ['bank.ifscCode', 'bank.ifsc', 'bank.IFSC', 'bank.branchCode'],
      read: ({ parts: { bank: b } }) =>
        compactUpper(pick(b, 'ifscCode', 'ifsc', 'IFSC')) ?? [compactUpper(b?.branchCode)].find((x) => x !== undefined && IFSC.test(x)),
      source: `${A('Employee Bank Details')} (\`branchCode\` a string); an IFSC key: [none]`,
      note: "`branchCode` only when it has an IFSC's shape",
    },
    listRow('bankDetails.bankName', 'bank', 'bankName', 'bankName'),
    catRow('department', 'department', 'Department'),
    catRow('designation', 'designation', 'Designation'),
    catRow('grade', 'grade', 'Grade (or Band)'),
    catRow('costCenter', 'costCenter', 'Cost Center'),
    catRow('companyName', 'companyName', 'Company (or Legal Entity)'),
    catRow('groupName', 'groupName', 'Business Unit (or Division)'),
    catRow('employmentType', 'employmentType', "Employee Type (values: [none], `EMPLOYMENT_TYPES` is hrx's table)", (v) => enumValue(EMPLOYMENT_TYPES, v)),
    catRow('jobLocation.city', 'location', 'Location (or Branch)'),
    addressRow('currentAddress', /present|current|communication|residential/i, 'Present, Current, Communication or Residential'),
    addressRow('permanentAddress', /permanent/i, 'Permanent'),
  ],
};

/**
 * One employee assembled from its section records (`parts`) by `GREYTHR_MAPPING`, with `lookups` resolving ids and
 * `today` (`YYYY-MM-DD`) choosing effective-dated categories. `undefined` when the core record has
 * no `employeeNo` (nothing to key it by).
 */
export function mapGreythrEmployee(parts: GreythrParts, lookups: GreythrLookups, warn: Warn, today: string): PartialEmployeeRecord | undefined {
  if (text(parts.employees.employeeNo) === undefined) return undefined;
  return mapWith(GREYTHR_MAPPING, { parts, cat: categoryValues(parts.categories, lookups, warn, today) }, { lookups, warn });
}

/**
 * Parses `POST /hr/v2/lov`'s answer: `{"lov::Name": [[id, text], …]}` (what public client code
 * reads); also `{data: [{name, values: [{id, description}]}]}` and `{Name: {id: text}}`.
 */
export function parseLovs(body: unknown): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const b = obj(body);
  const lists = Array.isArray(b.data) ? b.data : Array.isArray(body) ? body : undefined;
  if (lists) {
    for (const l of lists.filter(isObj)) {
      const name = text(l.name ?? l.lovName ?? l.type);
      const values = Array.isArray(l.values) ? l.values.filter(isObj) : [];
      if (name) out.set(norm(name), new Map(values.flatMap((v) => idText(v))));
    }
    return out;
  }
  for (const [key, values] of Object.entries(b)) {
    const name = key.replace(/^lov::/i, '');
    if (Array.isArray(values)) out.set(norm(name), new Map(values.flatMap((v) => (Array.isArray(v) ? idText({ id: v[0], description: v[1] }) : []))));
    else if (isObj(values)) out.set(norm(name), new Map(Object.entries(values).flatMap(([id, t]) => (text(t) ? [[id, text(t)!]] : []))));
  }
  return out;
}

/** `[id, text]` of one lookup entry, whichever keys carry them (`id`/`value`, `description`/`name`/`valueDesc`). */
function idText(v: Obj): [string, string][] {
  const id = v.id ?? v.value ?? v.valueId,
    t = text(v.description ?? v.name ?? v.valueDesc ?? v.label);
  return (typeof id === 'number' || typeof id === 'string') && t ? [[String(id), t]] : [];
}

/** Parses `GET /hr/v2/categories`: `[{id, description, values: [{id, description}]}]` in `data` (key spellings `?`). */
export function parseCategories(body: unknown): GreythrLookups['categories'] {
  const out: GreythrLookups['categories'] = new Map();
  const b = obj(body);
  const list = Array.isArray(b.data) ? b.data : Array.isArray(body) ? body : [];
  for (const c of list.filter(isObj)) {
    const [entry] = idText({ id: c.id ?? c.category, description: c.description ?? c.categoryDesc ?? c.name });
    if (!entry) continue;
    const values = Array.isArray(c.values) ? c.values.filter(isObj) : [];
    out.set(entry[0], { name: entry[1], values: new Map(values.flatMap((v) => idText(v))) });
  }
  return out;
}
