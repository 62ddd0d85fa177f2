/**
 * SAP SuccessFactors Employee Central employee -> hrx `PartialEmployeeRecord`, as rows
 * (src/hrms/mapping-table.ts): the README's "What is mapped" table is written from them by
 * `npm run docs`. A row reads what the connector assembled of one person (`SapSfEmployee`): the
 * `PerPerson` with its `personalInfoNav`, `emailNav` and `phoneNav`, and that person's
 * `EmpEmployment` with its current `EmpJob`. Each source names the entity property in SAP's
 * published descriptions ("P": Personal Information, "E": Employment Information; both in
 * openapi/SOURCE.md, the rules hrx checks in openapi/rules.yaml).
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { isObj, mobileNumber, text, type FieldWarner, type Obj } from '../decode';
import { mapWith, type MappingTable } from '../mapping-table';

/** One person as the connector assembles it from its two requests. */
export interface SapSfEmployee {
  /** `PerPerson` with `personalInfoNav`, `emailNav`, `phoneNav` expanded. */
  person: Obj;
  /** The person's `EmpEmployment` (the open one, else the latest), with `jobInfoNav` expanded; absent when none. */
  employment?: Obj;
  /** Today, `YYYY-MM-DD` (UTC): an `endDate` on or before it is an exit. */
  today: string;
}

/**
 * An OData v2 JSON date, `/Date(<ms since 1970-01-01 UTC>)/` with an optional offset
 * (`/Date(1492098664000+0000)/`), as its UTC calendar day `YYYY-MM-DD`; anything else undefined.
 * Source: the descriptions' example for every date property, `"/Date(1492098664000)/"`.
 */
export function odataDate(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^\/Date\((-?\d{1,15})(?:[+-]\d{4})?\)\/$/.exec(v) : null;
  if (!m) return undefined;
  const d = new Date(Number(m[1]));
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().slice(0, 10);
}

/** `results` of an expanded navigation (`{results: [...]}`), its objects only. */
export const resultsOf = (nav: unknown): Obj[] => (isObj(nav) && Array.isArray(nav.results) ? nav.results.filter(isObj) : []);

/** The item flagged `isPrimary`, else the first. */
const primary = (items: Obj[]): Obj | undefined => items.find((i) => i.isPrimary === true) ?? items[0];

/** The slice with the latest `startDate` (an effective-dated entity's current one). */
export function latest(items: Obj[]): Obj | undefined {
  const at = (o: Obj): number => Number(/\((-?\d+)/.exec(String(o.startDate))?.[1] ?? Number.NEGATIVE_INFINITY);
  return items.reduce<Obj | undefined>((best, o) => (best === undefined || at(o) > at(best) ? o : best), undefined);
}

const personal = (r: SapSfEmployee): Obj => latest(resultsOf(r.person.personalInfoNav)) ?? {};
const job = (r: SapSfEmployee): Obj => latest(resultsOf(r.employment?.jobInfoNav)) ?? {};

/** `PerPersonal.gender`: `M` and `F` are hrx's words; SAP's other codes (unknown, undeclared) have none, so stay empty. */
const GENDER: Readonly<Record<string, string>> = { M: 'Male', F: 'Female' };

const P = 'P: SFOData';
const E = 'E:';

/** SAP SuccessFactors' mapping rows. */
export const SAP_SF_MAPPING: MappingTable<FieldWarner, SapSfEmployee> = {
  rows: [
    { point: 'employeeId', fields: ['PerPerson.personIdExternal'], read: (r) => text(r.person.personIdExternal), source: `${P}.PerPerson` },
    {
      point: 'name',
      fields: ['PerPersonal.firstName', 'PerPersonal.middleName', 'PerPersonal.lastName'],
      read: (r) => {
        const p = personal(r);
        return text([p.firstName, p.middleName, p.lastName].map(text).filter(Boolean).join(' '));
      },
      source: `${P}.PerPersonal (personalInfoNav)`,
      note: 'first, middle and last joined',
    },
    {
      point: 'email',
      fields: ['PerEmail.emailAddress', 'PerEmail.isPrimary'],
      read: (r) => text(primary(resultsOf(r.person.emailNav))?.emailAddress),
      source: `${P}.PerEmail (emailNav)`,
      note: 'the primary address',
    },
    {
      point: 'mobileNumber',
      fields: ['PerPhone.phoneNumber', 'PerPhone.isPrimary'],
      read: (r) => mobileNumber(primary(resultsOf(r.person.phoneNav))?.phoneNumber),
      source: `${P}.PerPhone (phoneNav)`,
      note: 'the primary number',
    },
    {
      point: 'dob',
      fields: ['PerPerson.dateOfBirth'],
      read: (r) => odataDate(r.person.dateOfBirth),
      source: `${P}.PerPerson`,
      note: '/Date(ms)/ as YYYY-MM-DD',
    },
    {
      point: 'gender',
      fields: ['PerPersonal.gender'],
      read: (r) => {
        const g = text(personal(r).gender)?.toUpperCase();
        return g !== undefined && Object.hasOwn(GENDER, g) ? GENDER[g] : undefined;
      },
      source: `${P}.PerPersonal (personalInfoNav)`,
      note: 'M, F; other codes empty',
    },
    {
      point: 'doj',
      fields: ['EmpEmployment.startDate'],
      read: (r) => odataDate(r.employment?.startDate),
      source: `${E} EmpEmployment`,
      note: '/Date(ms)/ as YYYY-MM-DD',
    },
    {
      point: 'terminationDate',
      fields: ['EmpEmployment.endDate'],
      read: (r) => odataDate(r.employment?.endDate),
      source: `${E} EmpEmployment`,
      note: 'set when the employment is terminated',
    },
    {
      point: 'status',
      fields: ['EmpEmployment.endDate'],
      read: (r) => {
        if (!r.employment) return undefined;
        const end = odataDate(r.employment.endDate);
        return end !== undefined && end <= r.today ? 'Inactive' : 'Active';
      },
      source: `${E} EmpEmployment`,
      note: 'Inactive once endDate has passed, else Active',
    },
    { point: 'designation', fields: ['EmpJob.jobTitle'], read: (r) => text(job(r).jobTitle), source: `${E} EmpJob (jobInfoNav)` },
  ],
};

/** One assembled person as a record. */
export const mapSapSfEmployee = (row: SapSfEmployee, warn: FieldWarner = () => {}): PartialEmployeeRecord => mapWith(SAP_SF_MAPPING, row, warn);
