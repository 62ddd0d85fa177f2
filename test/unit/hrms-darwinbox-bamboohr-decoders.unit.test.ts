/** Decoders of the darwinbox and bamboohr mappings: every date format each product uses (blank and zero dates included) and enumerations (unknown values included). */
import { describe, expect, it } from 'vitest';
import { darwinboxDate, flatten, managerName, mapDarwinboxEmployee } from '../../src/hrms/darwinbox/mapping';
import { bamboohrDate, bamboohrPay, mapBambooHrEmployee, supervisorName } from '../../src/hrms/bamboohr/mapping';
import { lastModified } from '../../src/hrms/darwinbox/connector';

describe('darwinbox decoders', () => {
  it('dates: ISO, DD-MM-YYYY, DD/MM/YYYY, DD-Mon-YYYY, with a time; empty forms and impossible dates are empty', () => {
    expect(['2021-03-05', '05-03-2021', '5/3/2021', '05-Mar-2021', '05-MARCH-2021', '05-03-2021 10:22:01', '2021-03-05T00:00:00'].map(darwinboxDate)).toEqual(
      Array(7).fill('2021-03-05'),
    );
    expect(
      ['', '  ', '0000-00-00', '00-00-0000', '-', 'NA', 'n/a', null, undefined, 20210305, '31-02-2021', '05-Foo-2021', 'yesterday'].map(darwinboxDate),
    ).toEqual(Array(13).fill(undefined));
  });

  it('"Name (ID)" managers lose the id; flatten gives dot keys', () => {
    expect([managerName('Ravi Kumar (EMP001)'), managerName('Ravi Kumar'), managerName(' (EMP1)'), managerName('')]).toEqual([
      'Ravi Kumar',
      'Ravi Kumar',
      undefined,
      undefined,
    ]);
    expect(flatten({ a: 1, b: { c: 2, d: { e: 3 } }, f: [1] })).toEqual({ a: 1, 'b.c': 2, 'b.d.e': 3, f: [1] });
  });

  it('enumerations: product words to hrx words; unknown text passes through; a row without an id is refused', () => {
    const m = (row: Record<string, unknown>) => mapDarwinboxEmployee({ employee_id: 'E1', ...row });
    expect(m({ employee_status: 'Notice Period', employee_type: 'Contractual', gender: 'FEMALE', marital_status: 'Unmarried' })).toMatchObject({
      status: 'Active',
      employmentType: 'Contract',
      gender: 'Female',
      maritalStatus: 'Single',
    });
    expect(m({ employee_status: 'Terminated', employee_type: 'Permanent', gender: 'Others' })).toMatchObject({
      status: 'Terminated',
      employmentType: 'Full Time',
      gender: 'Other',
    });
    expect(m({ employee_status: 'Sabbatical', employee_type: 'Gig' })).toMatchObject({ status: 'Sabbatical', employmentType: 'Gig' });
    expect(m({ department_name: 'NA', designation: '-' })).toEqual({ employeeId: 'E1' });
    expect(() => mapDarwinboxEmployee({ full_name: 'x' })).toThrow(/without employee_id/);
  });

  it('last_modified is dd-mm-yyyy HH:MM:SS in UTC', () => {
    expect(lastModified(new Date('2026-03-04T05:06:07.890Z'))).toBe('04-03-2026 05:06:07');
  });
});

describe('bamboohr decoders', () => {
  it('dates: YYYY-MM-DD (a time dropped); 0000-00-00, blank, null and impossible ones are empty', () => {
    expect(['2021-03-05', '2021-03-05T10:00:00Z'].map(bamboohrDate)).toEqual(['2021-03-05', '2021-03-05']);
    expect(['0000-00-00', '', null, undefined, '2021-02-30', '05/03/2021'].map(bamboohrDate)).toEqual(Array(6).fill(undefined));
  });

  it('supervisors "Last, First" are turned round; enumerations map; Terminated is a status; an unknown employment status is no type', () => {
    expect([supervisorName('Sharma, Ravi Kumar'), supervisorName('Ravi Sharma'), supervisorName(null)]).toEqual([
      'Ravi Kumar Sharma',
      'Ravi Sharma',
      undefined,
    ]);
    expect(
      mapBambooHrEmployee({
        id: 4,
        status: 'Inactive',
        employmentStatus: 'Part-Time',
        gender: 'Non-binary',
        marital: 'Widowed',
        terminationDate: '0000-00-00',
      }),
    ).toEqual({ employeeId: '4', status: 'Inactive', employmentType: 'Part Time', gender: 'Other', maritalStatus: 'Widowed' });
    // BambooHR's `Terminated` employment status is a status, never an employment type.
    expect(mapBambooHrEmployee({ id: '6', status: 'Inactive', employmentStatus: 'Terminated' })).toEqual({ employeeId: '6', status: 'Terminated' });
    const warned: string[] = [];
    expect(mapBambooHrEmployee({ id: '5', employmentStatus: 'Seasonal', workEmail: 'A@B.IN' }, (f) => warned.push(f))).toEqual({
      employeeId: '5',
      email: 'a@b.in',
    });
    expect(warned).toEqual(['employmentStatus']);
    expect(() => mapBambooHrEmployee({ firstName: 'x' })).toThrow(/without id/);
  });

  it('pay: INR by Year or Month (code before or after, thousands commas); other currency (named), no code or period warn and stay empty', () => {
    const warned: string[] = [];
    const reasons: (string | undefined)[] = [];
    const warn = (f: string, why?: string) => {
      warned.push(f);
      reasons.push(why);
    };
    expect(bamboohrPay('1200000.00 INR', 'Year', warn)).toEqual({ ctc: { fixedPay: 1200000 } });
    expect(bamboohrPay('INR 1,00,000.50', 'month', warn)).toEqual({ monthly: { fixedPay: 100000.5 } });
    expect(bamboohrPay(null, 'Year', warn)).toBeUndefined();
    expect(warned).toEqual([]);
    expect([
      bamboohrPay('1200000.00 USD', 'Year', warn),
      bamboohrPay('1200000.00', 'Year', warn),
      bamboohrPay('INR 5 USD', 'Year', warn),
      bamboohrPay('650.00 INR', 'Hour', warn),
    ]).toEqual(Array(4).fill(undefined));
    expect(warned).toEqual(['payRate', 'payRate', 'payRate', 'payPeriod']);
    expect(reasons[0]).toBe('salary left empty: payRate is in USD, not INR');
  });
});
