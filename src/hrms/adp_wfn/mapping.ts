/**
 * ADP Workforce Now worker -> hrx `PartialEmployeeRecord`, as rows (src/hrms/mapping-table.ts):
 * the README's "What is mapped" table is written from them by `npm run docs`. Each row's source is
 * a line of ADP's sample answer `wfn/hr/workers-v2/success/Retrieve-all-workers-details-http-200-response.json`
 * (`W:<line>`, github `adpllc/marketplace-sample-payloads`, openapi/SOURCE.md), the same line
 * `openapi/rules.yaml` cites for the field. A worker's job fields come from its primary work
 * assignment (`primaryIndicator`, W:236), else its first.
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import { isObj, isoDate, mobileNumber, obj, text, type FieldWarner, type Obj } from '../decode';
import { mapByRows, type MappingTable } from '../mapping-table';

/** `workerStatus.statusCode.codeValue` (W:201-205; the samples' values Active, Inactive, Terminated) -> hrx `status`. */
export const ADP_WFN_STATUS: Readonly<Record<string, string>> = { Active: 'Active', Inactive: 'Inactive', Terminated: 'Terminated' };
/** `person.genderCode.codeValue` (W:10-14; the samples' F Female, M Male, N Not Specified) -> hrx `gender`; N has no hrx word. */
export const ADP_WFN_GENDER: Readonly<Record<string, string>> = { M: 'Male', F: 'Female' };
/** `person.maritalStatusCode.codeValue` with the short names the samples give them (M Married W:1585, D Divorced W:9636, E Separated W:5548) -> hrx `maritalStatus`. */
export const ADP_WFN_MARITAL: Readonly<Record<string, string>> = { M: 'Married', D: 'Divorced', E: 'Separated' };

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** The worker's primary work assignment (`primaryIndicator`), else its first; `{}` when none. */
export function primaryAssignment(w: Obj): Obj {
  const all = list(w.workAssignments);
  return all.find((a) => a.primaryIndicator === true) ?? all[0] ?? {};
}

/** A code through `map` by its `codeValue`; a code the map lacks is empty and warned (by field name only). */
function coded(map: Readonly<Record<string, string>>, code: unknown, field: string, warn: FieldWarner): string | undefined {
  const value = text(obj(code).codeValue);
  if (value === undefined) return undefined;
  if (Object.hasOwn(map, value)) return map[value];
  warn(field);
  return undefined;
}

/** The first `emailUri` of `emails` named `name` (`nameCode.codeValue`), else the first one. */
function email(emails: unknown, name: string): string | undefined {
  const all = list(emails);
  const named = all.find((e) => obj(e.nameCode).codeValue === name) ?? all[0];
  return named ? text(named.emailUri) : undefined;
}

/** The first business mobile as its country, area and dial number (W:1889-1900), read as an Indian mobile. */
function mobile(w: Obj): string | undefined {
  const m = list(obj(w.businessCommunication).mobiles)[0];
  if (!m) return undefined;
  const digits = [m.countryDialing, m.areaDialing, m.dialNumber].map((p) => text(p) ?? '').join('');
  return digits === '' ? undefined : mobileNumber(digits);
}

const name = (w: Obj): string | undefined => {
  const legal = obj(obj(w.person).legalName);
  const parts = [legal.givenName, legal.middleName, legal.familyName1].map(text).filter((p): p is string => p !== undefined);
  return parts.length ? parts.join(' ') : text(legal.formattedName);
};
/** The home organizational unit whose `typeCode.codeValue` is `Department` (W:782-793): its `shortName`, else its code. */
const department = (w: Obj): string | undefined => {
  const unit = list(primaryAssignment(w).homeOrganizationalUnits).find((u) => obj(u.typeCode).codeValue === 'Department');
  return unit ? (text(obj(unit.nameCode).shortName) ?? text(obj(unit.nameCode).codeValue)) : undefined;
};
const manager = (w: Obj): Obj => list(primaryAssignment(w).reportsTo)[0] ?? {};

/** ADP Workforce Now's mapping rows. */
export const ADP_WFN_MAPPING: MappingTable<FieldWarner, Obj> = {
  answeredAlways: ['associateOID'],
  rows: [
    { point: 'employeeId', fields: ['associateOID'], read: (w) => text(w.associateOID), source: 'W:4', note: 'the associate OID, which a live read asks for' },
    {
      point: 'name',
      fields: ['person.legalName.givenName', 'person.legalName.middleName', 'person.legalName.familyName1', 'person.legalName.formattedName'],
      read: name,
      source: 'W:151-163',
      note: 'given, middle and family name; else the formatted name',
    },
    {
      point: 'email',
      fields: ['businessCommunication.emails'],
      read: (w) => email(obj(w.businessCommunication).emails, 'Work E-mail'),
      source: 'W:1873, W:1932-1939',
      note: 'the `Work E-mail`, else the first',
    },
    {
      point: 'personalEmail',
      fields: ['person.communication.emails'],
      read: (w) => email(obj(obj(w.person).communication).emails, 'Personal E-mail'),
      source: 'W:186-193, W:1853-1859',
      note: 'the `Personal E-mail`, else the first',
    },
    {
      point: 'mobileNumber',
      fields: ['businessCommunication.mobiles'],
      read: mobile,
      source: 'W:1873, W:1889-1900',
      note: 'the first mobile: country, area and dial number',
    },
    {
      point: 'doj',
      fields: ['workerDates.originalHireDate'],
      read: (w) => isoDate(obj(w.workerDates).originalHireDate),
      source: 'W:198-199',
      note: 'YYYY-MM-DD',
    },
    {
      point: 'dob',
      fields: ['person.birthDate'],
      read: (w) => isoDate(obj(w.person).birthDate),
      source: 'W:9',
      note: 'YYYY-MM-DD; a masked date (`0000-01-01`) is empty',
    },
    {
      point: 'terminationDate',
      fields: ['workerDates.terminationDate'],
      read: (w) => isoDate(obj(w.workerDates).terminationDate),
      source: 'W:6059-6062',
      note: 'YYYY-MM-DD',
    },
    {
      point: 'status',
      fields: ['workerStatus.statusCode.codeValue'],
      read: (w, warn) => coded(ADP_WFN_STATUS, obj(w.workerStatus).statusCode, 'workerStatus', warn),
      source: 'W:201-205, W:6063-6066',
      note: 'Active, Inactive, Terminated',
    },
    {
      point: 'gender',
      fields: ['person.genderCode.codeValue'],
      // N is ADP's "Not Specified" (W:11-13): no gender given, nothing to warn of.
      read: (w, warn) => (obj(obj(w.person).genderCode).codeValue === 'N' ? undefined : coded(ADP_WFN_GENDER, obj(w.person).genderCode, 'genderCode', warn)),
      source: 'W:10-14',
      note: 'M Male, F Female; N (Not Specified) is empty',
    },
    {
      point: 'maritalStatus',
      fields: ['person.maritalStatusCode.codeValue'],
      read: (w, warn) => coded(ADP_WFN_MARITAL, obj(w.person).maritalStatusCode, 'maritalStatusCode', warn),
      source: 'W:15-19, W:1583-1586 (M), W:9634-9636 (D), W:5546-5548 (E)',
      note: "M Married, D Divorced, E Separated; a company's other codes are empty",
    },
    {
      point: 'designation',
      fields: ['workAssignments.jobTitle'],
      read: (w) => text(primaryAssignment(w).jobTitle),
      source: 'W:236, W:254',
      note: 'of the primary work assignment',
    },
    {
      point: 'department',
      fields: ['workAssignments.homeOrganizationalUnits'],
      read: department,
      source: 'W:782-793',
      note: 'the home unit of type `Department`: its short name',
    },
    {
      point: 'manager',
      fields: ['workAssignments.reportsTo.reportsToWorkerName.formattedName'],
      read: (w) => text(obj(manager(w).reportsToWorkerName).formattedName),
      source: 'W:345-357',
      note: 'the first `reportsTo` of the primary work assignment',
    },
  ],
};

/** One ADP worker as a record; a code hrx has no word for is empty and warned by field name. */
export const mapAdpWfnWorker = (worker: Obj, warn: FieldWarner = () => {}): PartialEmployeeRecord => mapByRows(ADP_WFN_MAPPING, worker, warn);
