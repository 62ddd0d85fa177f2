/** Zoho People's decoders (src/hrms/zoho_people/mapping.ts): dates, envelopes, picklists, the record. */
import { describe, expect, it } from 'vitest';
import { HrmsError } from '../../src/hrms/connector';
import { mapZohoEmployee, zohoDate, zohoRecords } from '../../src/hrms/zoho_people/mapping';

describe('zohoDate', () => {
  it('reads dd-MMM-yyyy and the other organisation formats', () => {
    expect(zohoDate('05-Jun-2020')).toBe('2020-06-05');
    expect(zohoDate('5-jun-2020')).toBe('2020-06-05');
    expect(zohoDate('29-Feb-2024')).toBe('2024-02-29');
    expect(zohoDate('05-Dec-2019 17:38:37')).toBe('2019-12-05');
    expect(zohoDate('2020-06-05')).toBe('2020-06-05');
    expect(zohoDate('05/06/2020')).toBe('2020-06-05');
    expect(zohoDate('05-06-2020')).toBe('2020-06-05');
    expect(zohoDate('31-Dec-1999 11:59 PM')).toBe('1999-12-31');
  });

  it('leaves blank, zero, impossible and unknown dates empty', () => {
    for (const v of [
      '',
      ' ',
      '-',
      null,
      undefined,
      '0000-00-00',
      '00-Jan-0000',
      '31-Feb-2020',
      '29-Feb-2023',
      '05-Jum-2020',
      '13/13/2020',
      '2020-6',
      'NA',
      1591315200000,
      '1591315200000',
    ]) {
      expect(zohoDate(v), String(v)).toBeUndefined();
    }
  });
});

describe('zohoRecords', () => {
  const fields = { EmployeeID: 'E1', FirstName: 'A' };
  it('unwraps every record shape client code meets', () => {
    expect(zohoRecords([{ '759415000001155233': [fields] }])).toEqual([fields]);
    expect(zohoRecords([{ 7594150000011: fields }])).toEqual([fields]);
    expect(zohoRecords([fields, { EmployeeID: 'E2' }])).toEqual([fields, { EmployeeID: 'E2' }]);
    expect(zohoRecords([{ 1: [fields, { EmployeeID: 'E3' }] }, 'junk', null, { 2: 'x' }])).toEqual([fields, { EmployeeID: 'E3' }, { 2: 'x' }]);
  });

  it('gives nothing for an absent or malformed result', () => {
    expect(zohoRecords(undefined)).toEqual([]);
    expect(zohoRecords({ EmployeeID: 'E1' })).toEqual([]);
    expect(zohoRecords([])).toEqual([]);
  });
});

describe('mapZohoEmployee', () => {
  const record = {
    EmployeeID: 'ZP-7',
    FirstName: 'Kavya  Lakshmi',
    LastName: 'Nair',
    EmailID: 'Kavya@Acme.IN',
    Other_Email: '',
    Mobile: '+91-98450 12345',
    Date_of_birth: '',
    Dateofjoining: '01-Jul-2019',
    Dateofexit: '15-Mar-2025',
    Employeestatus: 'Resigned',
    Employee_type: 'On Contract',
    Gender: 'Female',
    Marital_status: 'Married',
    Blood_Group: 'O -ve',
    Nationality: 'Indian',
    Department: 'Sales',
    Designation: 'Lead',
    Grade: 'L4',
    LocationName: 'Kochi',
    Reporting_To: 'Ravi Rao',
    'Reporting_To.MailID': 'Ravi@Acme.in',
    Second_Reporting_To: 'X Y',
    'Second_Reporting_To.MailID': 'dotted@acme.in',
    Present_Address: 'Flat 2,  MG Road, Kochi, Kerala - 682020, India',
    Permanent_Address: '',
    PAN: 'abcpn1234d',
    Zoho_ID: 759415000001155200,
  };

  it('maps the fields of the mapping table', () => {
    expect(mapZohoEmployee(record)).toEqual({
      employeeId: 'ZP-7',
      name: 'Kavya Lakshmi Nair',
      email: 'kavya@acme.in',
      personalEmail: undefined,
      mobileNumber: '9845012345',
      dob: undefined,
      doj: '2019-07-01',
      terminationDate: '2025-03-15',
      status: 'Inactive',
      employmentType: 'Contract',
      gender: 'Female',
      maritalStatus: 'Married',
      bloodGroup: 'O-',
      nationality: 'Indian',
      designation: 'Lead',
      department: 'Sales',
      grade: 'L4',
      jobLocation: { city: 'Kochi' },
      manager: 'Ravi Rao',
      managerEmail: 'ravi@acme.in',
      currentAddress: { addressLine: 'Flat 2, MG Road, Kochi, Kerala - 682020, India' },
      pan: 'ABCPN1234D',
    });
  });

  it('translates the picklists into hrx words and passes unknown text through', () => {
    const m = (over: Record<string, unknown>) => mapZohoEmployee({ ...record, ...over });
    expect(m({ Employeestatus: 'Active' }).status).toBe('Active');
    for (const s of ['Terminated', 'Deceased', 'inactive', 'Absconded']) expect(m({ Employeestatus: s }).status).toBe('Inactive');
    expect(m({ Employee_type: 'Permanent' }).employmentType).toBe('Full Time');
    expect(m({ Employee_type: 'Trainee' }).employmentType).toBe('Intern');
    expect(m({ Employee_type: 'Part Time' }).employmentType).toBe('Part Time');
    expect(m({ Employee_type: 'Apprentice' }).employmentType).toBe('Apprentice');
    expect(m({ Gender: 'Male' }).gender).toBe('Male');
    expect(m({ Marital_status: 'Single' }).maritalStatus).toBe('Single');
  });

  it('refuses a record without EmployeeID, without quoting it', () => {
    expect(() => mapZohoEmployee({ FirstName: 'A', EmailID: 'secret@x.in' })).toThrow(HrmsError);
    try {
      mapZohoEmployee({ EmployeeID: ' ', EmailID: 'secret@x.in' });
    } catch (e) {
      expect((e as Error).message).not.toContain('secret');
    }
  });
});
