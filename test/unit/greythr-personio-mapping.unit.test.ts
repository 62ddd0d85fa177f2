/**
 * The greytHR and Personio decoders (docs/hrms/connectors.md): dates in every format the products use
 * (blank and zero dates included), enumerations into hrx's words (unknown values included),
 * lookups, effective-dated categories, tenant attribute labels, sections and pages.
 */
import { describe, expect, it } from 'vitest';
import { calendarDate, dayOf } from '../../src/hrms/decode';
import { HrmsError } from '../../src/hrms/connector';
import { mapGreythrEmployee, parseCategories, parseLovs, type GreythrLookups } from '../../src/hrms/greythr/mapping';
import { idOf, JoinedSection, Pager, type FetchPage } from '../../src/hrms/greythr/sections';
import { currentEmployment, labelKey, mapPersonioV1, mapPersonioV2, TENANT_LABELS } from '../../src/hrms/personio/mapping';

describe('dayOf', () => {
  it.each([
    ['2024-03-01', '2024-03-01'],
    ['2024-03-01T00:00:00+01:00', '2024-03-01'],
    ['1990-05-17T00:00:00+02:00', '1990-05-17'],
    ['2024-03-01T18:30:00Z', '2024-03-01'],
    ['2024-03-01 10:00', '2024-03-01'],
    ['01-03-2024', '2024-03-01'],
    ['1/3/2024', '2024-03-01'],
    ['01.03.2024', '2024-03-01'],
    ['01 Mar 2024', '2024-03-01'],
    ['01-Mar-2024', '2024-03-01'],
    ['1 March 2024', '2024-03-01'],
  ])('%s → %s', (v, want) => expect(dayOf(v)).toBe(want));

  it.each(['', '   ', '0000-00-00', '00-00-0000', '0001-01-01', '31/02/2024', '2024-13-01', '01 Foo 2024', '2024/03/01', 'yesterday'])('%j is no date', (v) => {
    expect(dayOf(v)).toBeUndefined();
  });

  it('reads only strings', () => {
    expect([dayOf(null), dayOf(undefined), dayOf(20240301), dayOf({})]).toEqual([undefined, undefined, undefined, undefined]);
    expect([calendarDate(2024, 2, 29), calendarDate(2023, 2, 29), calendarDate(1899, 12, 31)]).toEqual(['2024-02-29', undefined, undefined]);
  });
});

const LOOKUPS: GreythrLookups = {
  lovs: parseLovs({
    data: [
      { name: 'MaritalStatus', values: [{ id: 2, description: 'Married' }] },
      { name: 'Leaving Reason', values: [{ id: 2, description: 'Termination' }] },
    ],
  }),
  categories: parseCategories({
    data: [
      { id: 1, description: 'Department', values: [{ id: 11, description: 'Finance' }] },
      { id: 8, description: 'Employee Type', values: [{ id: 81, description: 'Trainee' }] },
    ],
  }),
};

describe('greytHR mapping', () => {
  const map = (parts: Parameters<typeof mapGreythrEmployee>[0], warn: (f: string) => void = () => {}) => mapGreythrEmployee(parts, LOOKUPS, warn, '2026-01-15');

  it('lists of values in either shape; categories by id when descriptions are missing', () => {
    expect(
      parseLovs({ MaritalStatus: { 1: 'Single' } })
        .get('maritalstatus')
        ?.get('1'),
    ).toBe('Single');
    const keyed = parseLovs({ 'lov::BloodGroup': [[3, 'B+ve'], ['x'], 'junk'], 'lov::Bank': [] });
    expect([...keyed.keys()]).toEqual(['bloodgroup', 'bank']);
    expect([...keyed.get('bloodgroup')!]).toEqual([['3', 'B+ve']]);
    expect(parseLovs({ data: 'nonsense' }).size).toBe(0);
    expect(parseLovs(null).size).toBe(0);
    const r = map({
      employees: { employeeNo: 'E1' },
      categories: {
        categoryList: [
          { category: 1, value: 11 },
          { category: 8, value: 81 },
        ],
      },
    });
    expect(r).toMatchObject({ department: 'Finance', employmentType: 'Intern' });
  });

  it('genders, employment types and statuses into hrx words; unknown text passes through, unknown numbers are empty with a warning', () => {
    const warned: string[] = [];
    const r = map(
      {
        employees: { employeeNo: 'E2', gender: 'Transgender', leftorg: true },
        personal: { maritalStatus: 7, bloodGroup: 'b +ve' },
        separation: { leftOrg: true, leavingReason: 2 },
        categories: { categoryList: [{ category: 8, categoryDesc: 'Employee Type', value: 1, valueDesc: 'Consultant Grade X' }] },
      },
      (f) => warned.push(f),
    );
    expect(r).toMatchObject({ gender: 'Other', status: 'Terminated', bloodGroup: 'B+', employmentType: 'Consultant Grade X' });
    expect(r?.maritalStatus).toBeUndefined();
    expect(warned).toEqual(['personal.maritalStatus']);
    expect(map({ employees: { employeeNo: 'E3', gender: 'M', leftorg: false } })).toMatchObject({ gender: 'Male', status: 'Active' });
    expect(map({ employees: { employeeNo: 'E4', leftorg: true } })!.status).toBe('Inactive');
    expect(map({ employees: { name: 'No number' } })).toBeUndefined();
  });

  it('the category entry effective today wins, else the latest; a leaving date before joining is an earlier stint', () => {
    const list = [
      { category: 1, categoryDesc: 'Department', valueDesc: 'Old', effectiveFrom: '2020-01-01', effectiveTo: '2024-12-31' },
      { category: 1, categoryDesc: 'Department', valueDesc: 'Current', effectiveFrom: '2025-01-01', effectiveTo: null },
      { category: 1, categoryDesc: 'Department', valueDesc: 'Future', effectiveFrom: '2027-01-01', effectiveTo: null },
      { category: 5, categoryDesc: 'Cost Centre', valueDesc: 'CC-9', effectiveFrom: '2019-01-01', effectiveTo: '2020-01-01' },
    ];
    const r = map({
      employees: { employeeNo: 'E5', dateOfJoin: '2021-04-01' },
      separation: { leavingDate: '2019-03-31', leftOrg: false },
      categories: { categoryList: list },
    });
    expect(r).toMatchObject({ department: 'Current', costCenter: 'CC-9', doj: '2021-04-01' });
    expect(r?.terminationDate).toBeUndefined();
  });

  it('IFSC from ifscCode, else a branchCode shaped like one; PAN and Aadhaar under any plausible key', () => {
    expect(map({ employees: { employeeNo: 'E6' }, bank: { branchCode: 'hdfc0001234' } })!.bankDetails!.ifscCode).toBe('HDFC0001234');
    expect(map({ employees: { employeeNo: 'E7' }, bank: { branchCode: '0042' } })!.bankDetails?.ifscCode).toBeUndefined();
    expect(map({ employees: { employeeNo: 'E8' }, statutory: { pan: 'abcpd1234e', aadhaarNumber: '2345 6789 0123' } })).toMatchObject({
      pan: 'ABCPD1234E',
      aadhar: '234567890123',
    });
  });
});

describe('greytHR paging', () => {
  /** A section of `n` records answered by `fetch` rules: `start` 0|1, page 0 of a 1-based one `alias` | `error` | `empty`. */
  function section(n: number, size: number, start: 0 | 1, zero: 'alias' | 'error' | 'empty' = 'alias', order: 'asc' | 'desc' = 'asc') {
    const ids = Array.from({ length: n }, (_, k) => 10 + k * 2);
    if (order === 'desc') ids.reverse();
    const asked: number[] = [];
    const fetch: FetchPage = (page) => {
      asked.push(page);
      if (start === 1 && page === 0 && zero === 'error') return Promise.reject(new HrmsError('bad_response', 'page', 400));
      if (start === 1 && page === 0 && zero === 'empty') return Promise.resolve({ records: [], hasNext: false });
      const p = start === 1 ? Math.max(0, page - 1) : page;
      return Promise.resolve({ records: ids.slice(p * size, (p + 1) * size).map((employeeId) => ({ employeeId })), hasNext: (p + 1) * size < n });
    };
    return { fetch, asked };
  }
  async function drain(pager: Pager) {
    const out: number[] = [];
    for (let r = await pager.next(); r !== null; r = await pager.next()) out.push(...r.map((x) => idOf(x)!));
    return out;
  }

  it.each([
    [0, 'alias'],
    [1, 'alias'],
    [1, 'error'],
    [1, 'empty'],
  ] as const)('start %s (page 0 of a 1-based endpoint: %s): every record once', async (start, zero) => {
    const { fetch } = section(45, 10, start, zero);
    const got = await drain(new Pager(fetch));
    expect([got.length, new Set(got).size]).toEqual([45, 45]);
  });

  it('a join reads a section just far enough, and falls back to reading it whole when it is not ascending', async () => {
    const { fetch, asked } = section(40, 10, 0);
    const joined = new JoinedSection('s', (st) => new Pager(fetch, st ?? { page: 0 }));
    expect([...(await joined.take(new Set([10, 12, 28]), 28)).keys()]).toEqual([10, 12, 28]);
    expect(asked).toEqual([0]);
    const desc = section(40, 10, 0, 'alias', 'desc');
    const whole = new JoinedSection('s', (st) => new Pager(desc.fetch, st ?? { page: 0 }));
    expect([...(await whole.take(new Set([10, 88]), 88)).keys()]).toEqual([10, 88]);
    expect(whole.resumeState()).toEqual({ page: 0, bulk: true });
  });
});

describe('Personio mapping', () => {
  const w = (label: string, value: unknown) => ({ label, value, type: 'standard', universal_id: null });

  it('tenant labels in English and German find their fields', () => {
    expect(['Date of birth', 'Geburtsdatum', 'Private E-Mail', 'Staatsangehörigkeit', 'IFSC-Code', 'Straße'].map((l) => TENANT_LABELS[labelKey(l)])).toEqual([
      'dob',
      'dob',
      'personalEmail',
      'nationality',
      'ifsc',
      'street',
    ]);
  });

  it('v1: wrappers unwrapped, German marital status, diverse gender, no type from hours, monthly INR salary, dob by universal_id; no id, no record', () => {
    const warned: string[] = [];
    const r = mapPersonioV1(
      {
        type: 'Employee',
        attributes: {
          id: w('ID', 42),
          first_name: w('First name', 'Asha'),
          last_name: w('Last name', 'Rao'),
          gender: w('Gender', 'diverse'),
          status: w('Status', 'onboarding'),
          employment_type: w('Employment type', 'internal'),
          weekly_working_hours: w('Weekly hours', '20'),
          full_time_weekly_working_hours: w('Full-time', '40'),
          fix_salary: { ...w('Fix salary', 50000), currency: 'INR' },
          fix_salary_interval: w('Interval', 'monthly'),
          dynamic_1: w('Familienstand', 'verheiratet'),
          dynamic_2: w('Mobilnummer', '+91 98765 43210'),
          dynamic_3: { ...w('Anniversary', '1990-12-31T00:00:00+01:00'), universal_id: 'date_of_birth' },
        },
      },
      (field, reason) => warned.push(`${field}: ${reason}`),
    );
    expect(r).toMatchObject({
      employeeId: '42',
      name: 'Asha Rao',
      gender: 'Other',
      status: 'Active',
      maritalStatus: 'Married',
      mobileNumber: '9876543210',
      dob: '1990-12-31',
      salaryDetails: { monthly: { fixedPay: 50000 } },
    });
    expect(r?.employmentType).toBeUndefined();
    // Personio documents no full-time hours: `internal` says neither full nor part time.
    expect(warned).toEqual(['employment_type: internal does not say full or part time: left empty']);
    expect(mapPersonioV1({ type: 'Employee', attributes: { first_name: w('First name', 'X') } })).toBeUndefined();
    expect(mapPersonioV1({ attributes: { id: w('ID', 1), status: w('Status', 'archived'), employment_type: w('T', 'external') } })).toMatchObject({
      status: 'archived',
      employmentType: 'Contract',
    });
  });

  it('v1: a salary in EUR is not rupees: empty, warned naming the field and the currency, never the amount', () => {
    const warned: string[] = [];
    const r = mapPersonioV1(
      { attributes: { id: w('ID', 7), fix_salary: { ...w('Fix salary', 4000), currency: 'EUR' }, fix_salary_interval: w('Interval', 'monthly') } },
      (field, reason) => warned.push(`${field}: ${reason}`),
    );
    expect(r?.salaryDetails).toBeUndefined();
    expect(warned).toEqual(['fix_salary: salary left empty: fix_salary is in EUR, not INR']);
    expect(warned.join()).not.toContain('4000');
  });

  it('v2: the active employment that started last; UNKNOWN gender is no value', () => {
    const e = currentEmployment([
      { id: 'a', status: 'INACTIVE', employment_start_date: '2023-01-01' },
      { id: 'b', status: 'ACTIVE', employment_start_date: '2019-01-01' },
      { id: 'c', status: 'ACTIVE', employment_start_date: '2021-06-01' },
    ]);
    expect(e?.id).toBe('c');
    expect(
      currentEmployment([
        { id: 'x', status: 'INACTIVE', employment_start_date: '2020-01-01' },
        { id: 'y', status: 'INACTIVE', employment_start_date: '2022-01-01' },
      ])?.id,
    ).toBe('y');
    const v2 = mapPersonioV2({ id: '7', gender: 'UNKNOWN', status: 'INACTIVE' }, e, { department: 'Ops' });
    expect(v2).toMatchObject({ status: 'Inactive', department: 'Ops' });
    expect(v2?.gender).toBeUndefined();
  });
});
