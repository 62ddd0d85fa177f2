/**
 * ADP Workforce Now's mapping rows (src/hrms/adp_wfn/mapping.ts) on workers shaped as ADP's sample
 * listing answers them (`W:<line>`, src/hrms/adp_wfn/openapi/SOURCE.md): a terminated worker, a
 * masked birth date, codes hrx has no word for, the primary work assignment.
 */
import { describe, expect, it } from 'vitest';
import { mapAdpWfnWorker, primaryAssignment } from '../../src/hrms/adp_wfn/mapping';

/** A terminated worker as W:4-… and W:6059-6078 write one (values changed). */
const terminated = {
  associateOID: 'G3CHQPRW483NMFGA',
  workerID: { idValue: '67V5GJLIY' },
  person: {
    birthDate: '0000-01-01',
    genderCode: { codeValue: 'N', shortName: 'Not Specified', longName: 'Not Specified' },
    maritalStatusCode: { effectiveDate: '2019-02-01', codeValue: 'C', shortName: 'Civil Partnership' },
    legalName: { givenName: 'Asha', middleName: 'K', familyName1: 'Rao', formattedName: 'Rao, Asha K' },
    communication: { emails: [{ nameCode: { codeValue: 'Personal E-mail', shortName: 'Personal E-mail' }, emailUri: 'asha@example.com' }] },
  },
  workerDates: { originalHireDate: '2015-04-27', terminationDate: '2016-01-25' },
  workerStatus: { statusCode: { codeValue: 'Terminated' } },
  businessCommunication: {
    mobiles: [{ nameCode: { codeValue: 'Work Cell', shortName: 'Work Cell' }, countryDialing: '91', areaDialing: '97039', dialNumber: '47872' }],
    emails: [
      { itemID: 'Other', nameCode: { codeValue: 'Other E-mail', shortName: 'Other' }, emailUri: 'other@example.com' },
      { itemID: 'Business', nameCode: { codeValue: 'Work E-mail', shortName: 'Work E-mail' }, emailUri: 'asha.rao@example.com' },
    ],
  },
  workAssignments: [
    { itemID: '1', primaryIndicator: false, jobTitle: 'Old title' },
    {
      itemID: '04348904N',
      primaryIndicator: true,
      hireDate: '2015-04-27',
      terminationDate: '2016-01-25',
      assignmentStatus: { statusCode: { codeValue: 'T', shortName: 'Terminated' } },
      jobTitle: '1 COPY - COPY REQ',
      homeOrganizationalUnits: [
        { nameCode: { codeValue: 'BU1', shortName: 'Unit one' }, typeCode: { codeValue: 'Business Unit', shortName: 'Business Unit' } },
        { nameCode: { codeValue: '001000', shortName: 'Finance' }, typeCode: { codeValue: 'Department', shortName: 'Department' } },
      ],
      reportsTo: [{ positionID: '4AN001110', associateOID: 'G397069G58EYA3SN', reportsToWorkerName: { formattedName: 'Anthony Albright' } }],
    },
  ],
};

describe('ADP Workforce Now mapping rows', () => {
  it('maps a terminated worker from its primary assignment; masked and unspecified values are empty', () => {
    const warned: string[] = [];
    expect(mapAdpWfnWorker(terminated, (f) => warned.push(f))).toEqual({
      employeeId: 'G3CHQPRW483NMFGA',
      name: 'Asha K Rao',
      email: 'asha.rao@example.com',
      personalEmail: 'asha@example.com',
      mobileNumber: '9703947872',
      doj: '2015-04-27',
      terminationDate: '2016-01-25',
      status: 'Terminated',
      designation: '1 COPY - COPY REQ',
      department: 'Finance',
      manager: 'Anthony Albright',
    });
    // Civil Partnership (C) has no hrx word: logged by field name; N (Not Specified) is no value at all.
    expect(warned).toEqual(['maritalStatusCode']);
  });

  it('reads the codes the samples define, and falls back where a worker lacks a field', () => {
    const w = {
      associateOID: 'G3X',
      person: {
        birthDate: '1990-05-14',
        genderCode: { codeValue: 'F', shortName: 'Female' },
        maritalStatusCode: { codeValue: 'M', shortName: 'Married' },
        legalName: { formattedName: 'Rao, Asha' },
      },
      workerStatus: { statusCode: { codeValue: 'Active' } },
      workAssignments: [{ jobTitle: 'Analyst' }],
    };
    expect(mapAdpWfnWorker(w)).toMatchObject({
      name: 'Rao, Asha',
      dob: '1990-05-14',
      gender: 'Female',
      maritalStatus: 'Married',
      status: 'Active',
      designation: 'Analyst',
    });
    expect(primaryAssignment({})).toEqual({});
    expect(mapAdpWfnWorker({ associateOID: 'G3Y', workerStatus: { statusCode: { codeValue: 'Leave' } } }, () => {}).status).toBeUndefined();
  });
});
