/**
 * SAP SuccessFactors' mapping rows (src/hrms/sap_sf/mapping.ts): OData v2 dates, the person
 * assembled from PerPerson's navigations and the current EmpEmployment/EmpJob, gender codes, and
 * the status an employment's endDate gives as of a day.
 */
import { describe, expect, it } from 'vitest';
import { mapSapSfEmployee, odataDate } from '../../src/hrms/sap_sf/mapping';

const day = (iso: string): string => `/Date(${Date.parse(`${iso}T00:00:00Z`)})/`;
const person = {
  personIdExternal: '1042',
  dateOfBirth: day('1990-02-28'),
  personalInfoNav: {
    results: [
      { startDate: day('2019-01-01'), firstName: 'Old', lastName: 'Name', gender: 'F' },
      { startDate: day('2023-05-01'), firstName: 'Asha', middleName: null, lastName: 'Rao', gender: 'F' },
    ],
  },
  emailNav: {
    results: [
      { emailAddress: 'asha@home.example', isPrimary: false },
      { emailAddress: 'asha.rao@acme.example', isPrimary: true },
    ],
  },
  phoneNav: { results: [{ phoneNumber: '+91 98450 12345', isPrimary: true }] },
};
const employment = (endDate: string | null) => ({
  startDate: day('2021-04-01'),
  endDate,
  jobInfoNav: {
    results: [
      { startDate: day('2021-04-01'), jobTitle: 'Analyst' },
      { startDate: day('2024-04-01'), jobTitle: 'Senior Analyst' },
    ],
  },
});

describe('sap_sf mapping', () => {
  it('reads /Date(ms)/ (with or without an offset) as its UTC day; anything else is empty', () => {
    expect(odataDate('/Date(1492098664000)/')).toBe('2017-04-13');
    expect(odataDate('/Date(1492098664000+0000)/')).toBe('2017-04-13');
    expect(odataDate('/Date(-86400000)/')).toBe('1969-12-31');
    expect([odataDate('2017-04-13'), odataDate(null), odataDate('/Date(x)/'), odataDate(1492098664000)]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('assembles the latest PerPersonal slice, the primary e-mail and phone, and the latest EmpJob', () => {
    expect(mapSapSfEmployee({ person, employment: employment(null), today: '2026-12-06' })).toEqual({
      employeeId: '1042',
      name: 'Asha Rao',
      email: 'asha.rao@acme.example',
      mobileNumber: '9845012345',
      dob: '1990-02-28',
      gender: 'Female',
      doj: '2021-04-01',
      status: 'Active',
      designation: 'Senior Analyst',
    });
  });

  it('an endDate on or before today is an exit (Inactive, terminationDate); a later one is still Active', () => {
    const on = mapSapSfEmployee({ person, employment: employment(day('2026-12-06')), today: '2026-12-06' });
    expect([on.status, on.terminationDate]).toEqual(['Inactive', '2026-12-06']);
    const later = mapSapSfEmployee({ person, employment: employment(day('2027-01-31')), today: '2026-12-06' });
    expect([later.status, later.terminationDate]).toEqual(['Active', '2027-01-31']);
  });

  it('no employment: no status, joining date or designation; a gender code other than M or F stays empty', () => {
    const p = { ...person, personalInfoNav: { results: [{ startDate: day('2020-01-01'), firstName: 'Kiran', lastName: 'S', gender: 'U' }] } };
    const r = mapSapSfEmployee({ person: p, today: '2026-12-06' });
    expect(r).toEqual({ employeeId: '1042', name: 'Kiran S', email: 'asha.rao@acme.example', mobileNumber: '9845012345', dob: '1990-02-28' });
  });
});
