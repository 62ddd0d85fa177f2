/** Keka's decoders (src/hrms/keka/mapping.ts): dates, numeric enumerations, groups, the record. */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HrmsError } from '../../src/hrms/connector';
import { warnOnce } from '../../src/hrms/decode';
import {
  KEKA_DEFINED_CODES,
  kekaDate,
  kekaEnum,
  kekaEnumLabelProblems,
  kekaLabels,
  mapKekaEmployee,
  type KekaMappingContext,
} from '../../src/hrms/keka/mapping';
import { simLabels } from '../../src/hrms/keka/sim/render';

function ctx(enumLabels?: Record<string, Record<string, string>>): KekaMappingContext & { warnings: string[] } {
  const warnings: string[] = [];
  return { labels: kekaLabels(enumLabels), warn: warnOnce((w) => warnings.push(w.field)), warnings };
}

describe('kekaDate', () => {
  it('reads dates and date-times without a zone as written', () => {
    expect(kekaDate('1990-05-14')).toBe('1990-05-14');
    expect(kekaDate('1990-05-14T00:00:00')).toBe('1990-05-14');
    expect(kekaDate('1990-05-14T23:59:59.1234567')).toBe('1990-05-14');
    expect(kekaDate(' 2024-02-29T00:00:00 ')).toBe('2024-02-29');
  });

  it('reads a date-time with a zone as an instant in India time', () => {
    expect(kekaDate('1990-05-13T18:30:00Z')).toBe('1990-05-14');
    expect(kekaDate('1990-05-14T00:00:00Z')).toBe('1990-05-14');
    expect(kekaDate('1990-05-14T00:00:00+05:30')).toBe('1990-05-14');
    expect(kekaDate('1990-05-13T23:00:00-05:00')).toBe('1990-05-14');
    expect(kekaDate('1999-12-31T18:30:00+0000')).toBe('2000-01-01');
  });

  it('leaves blank, zero and impossible dates empty', () => {
    for (const v of [
      null,
      undefined,
      '',
      '   ',
      '0001-01-01T00:00:00',
      '0001-01-01',
      '0000-00-00',
      '0000-00-00T00:00:00',
      '2023-02-29',
      '2023-13-01T00:00:00',
      '14/05/1990',
      '1990-05-14T25:00',
      'soon',
      19900514,
      {},
    ]) {
      expect(kekaDate(v), inspect(v)).toBeUndefined();
    }
  });
});

describe('kekaEnum', () => {
  it('translates a number only through its label table, warning once per field otherwise', () => {
    const c = ctx({ gender: { 1: 'Male', 2: 'Female' } });
    expect(kekaEnum(c, 'gender', 1)).toBe('Male');
    expect(kekaEnum(c, 'gender', '2')).toBe('Female');
    expect(kekaEnum(c, 'gender', 3)).toBeUndefined();
    expect(kekaEnum(c, 'gender', 0)).toBeUndefined();
    expect(kekaEnum(c, 'maritalStatus', 1)).toBeUndefined();
    expect(kekaEnum(c, 'maritalStatus', 2)).toBeUndefined();
    expect(c.warnings).toEqual(['gender', 'maritalStatus']);
  });

  it('passes null without a warning and reads text labels through the word tables', () => {
    const c = ctx();
    expect(kekaEnum(c, 'gender', null)).toBeUndefined();
    expect(kekaEnum(c, 'gender', 'female', (t) => (t === 'female' ? 'Female' : undefined))).toBe('Female');
    expect(kekaEnum(c, 'gender', 1.5)).toBe('1.5');
    expect(c.warnings).toEqual([]);
  });

  it("has no default labels (Keka's description names none of its numbers), and overrides replace a field's table", () => {
    expect(kekaLabels(undefined)).toEqual({});
    expect(kekaLabels({ groupType: { 7: 'costCenter' }, gender: { 0: 'Male' } })).toEqual({ groupType: { 7: 'costCenter' }, gender: { 0: 'Male' } });
  });
});

const employee = {
  id: '2f0c…',
  employeeNumber: ' K-0042 ',
  displayName: '',
  firstName: 'Asha',
  middleName: 'Rani',
  lastName: 'Iyer',
  email: 'Asha.Iyer@Acme.in',
  personalEmail: null,
  mobilePhone: '+91 98450 12345',
  countryCode: 'in',
  dateOfBirth: '1991-03-09T00:00:00',
  joiningDate: '2019-07-01T00:00:00',
  exitDate: null,
  marriageDate: '0001-01-01T00:00:00',
  gender: 2,
  maritalStatus: 1,
  bloodGroup: 7,
  workerType: 0,
  timeType: 1,
  nationality: 'Indian',
  jobTitle: { identifier: 'x', title: 'Senior Accountant' },
  payGradeInfo: { title: 'L4' },
  groups: [
    { title: 'Finance', groupType: 1 },
    { title: 'Corporate', groupType: 2 },
    { title: 'CC-9', groupType: '3' },
    { title: 'Pune', groupType: 5 },
  ],
  city: 'Pune',
  reportsTo: { email: 'Boss@Acme.in', firstName: 'Ravi Kumar', lastName: 'Rao' },
  l2Manager: { email: 'big@acme.in' },
  currentAddress: { addressLine1: 'Flat 301', addressLine2: 'Baner', city: 'Pune', state: 'Maharashtra', zip: '411 045', countryCode: 'IN' },
  permanentAddress: null,
  relations: [{ displayName: 'Mohan Iyer', relationType: 0, gender: 1, dateOfBirth: '1960-01-01T00:00:00', mobile: '09876543210', profession: 'Retired' }],
};

describe('mapKekaEmployee', () => {
  it('maps the fields of the mapping table, the listing giving the status', () => {
    const c = ctx();
    const r = mapKekaEmployee(employee, c, 'Active');
    expect(r).toMatchObject({
      employeeId: 'K-0042',
      name: 'Asha Rani Iyer',
      email: 'asha.iyer@acme.in',
      mobileNumber: '9845012345',
      countryCode: 'IN',
      dob: '1991-03-09',
      doj: '2019-07-01',
      status: 'Active',
      designation: 'Senior Accountant',
      grade: 'L4',
      manager: 'Ravi Kumar Rao',
      managerEmail: 'boss@acme.in',
      managerEmail2: 'big@acme.in',
      jobLocation: { city: 'Pune' },
      currentAddress: { addressLine: 'Flat 301, Baner', addressCity: 'Pune', addressState: 'Maharashtra', addressPincode: '411045', addressCountry: 'IN' },
    });
    expect(r.employeeMetadata?.marriageDate).toBeUndefined();
    // No group is a department by default, and nationality is no field of Keka's EmployeeProfile.
    for (const k of [
      'gender',
      'maritalStatus',
      'bloodGroup',
      'employmentType',
      'department',
      'groupName',
      'costCenter',
      'fatherName',
      'personalEmail',
      'nationality',
    ] as const)
      expect(r[k], k).toBeUndefined();
    expect(r.dependentDetails).toEqual([
      { name: 'Mohan Iyer', relation: undefined, dob: '1960-01-01', email: undefined, gender: undefined, mobileNumber: '9876543210', profession: 'Retired' },
    ]);
    expect(c.warnings.sort()).toEqual(['bloodGroup', 'gender', 'maritalStatus', 'relationType', 'timeType', 'workerType']);
  });

  it('uses configured label tables for enumerations, groups and the father', () => {
    const c = ctx({
      gender: { 1: 'Male', 2: 'Female' },
      maritalStatus: { 1: 'Married' },
      bloodGroup: { 7: 'O+' },
      workerType: { 0: 'Full Time', 1: 'Contract' },
      timeType: { 0: 'Full Time', 1: 'Part Time' },
      relationType: { 0: 'Father' },
      groupType: { 1: 'department', 2: 'groupName', 3: 'costCenter' },
    });
    const r = mapKekaEmployee(employee, c, 'Inactive');
    expect(r).toMatchObject({
      gender: 'Female',
      maritalStatus: 'Married',
      bloodGroup: 'O+',
      employmentType: 'Part Time',
      status: 'Inactive',
      department: 'Finance',
      groupName: 'Corporate',
      costCenter: 'CC-9',
      fatherName: 'Mohan Iyer',
    });
    expect(r.dependentDetails?.[0]).toMatchObject({ relation: 'Father', gender: 'Male' });
    expect(mapKekaEmployee({ ...employee, workerType: 1, timeType: 1 }, c).employmentType).toBe('Contract');
    expect(c.warnings).toEqual([]);
  });

  it('refuses what is not an employee, without quoting it', () => {
    for (const bad of [null, 'K-1', [], { displayName: 'x' }, { employeeNumber: '  ' }]) {
      expect(() => mapKekaEmployee(bad, ctx())).toThrow(HrmsError);
    }
    try {
      mapKekaEmployee({ employeeNumber: null, email: 'secret@x.in' }, ctx());
    } catch (e) {
      expect((e as Error).message).not.toContain('secret');
    }
  });
});

describe("Keka's defined codes", () => {
  it('the label tables and the simulator take only the numbers the description defines for each enumeration', () => {
    expect(KEKA_DEFINED_CODES).toEqual({ gender: 3, maritalStatus: 2, bloodGroup: 17, workerType: 2, timeType: 2, relationType: 7, groupType: 9 });
    expect(kekaEnumLabelProblems({ gender: { 3: 'Other', 4: 'Male' }, groupType: { 9: 'department', 10: 'groupName' } })).toEqual([
      { field: 'access_credentials.enum_labels.gender.4', message: 'not a code keka defines (0 to 3)' },
      { field: 'access_credentials.enum_labels.groupType.10', message: 'not a code keka defines (0 to 9)' },
    ]);
    expect(() => simLabels(JSON.stringify({ gender: { M: 7 } }))).toThrow('variant labels: gender.M is not a code Keka defines');
    expect(simLabels(JSON.stringify({ maritalStatus: { DIVORCED: 2 } })).maritalStatus.DIVORCED).toBe(2);
  });
});
