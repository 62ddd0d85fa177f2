/** Darwinbox ctcbreakup answers -> salaries (src/hrms/darwinbox/payroll.ts): envelopes, refusals, the annual/monthly decision. */
import { describe, expect, it } from 'vitest';
import { HrmsError } from '../../src/hrms/connector';
import { mapCtcRecord, payrollRecords, readPayrollAnswer } from '../../src/hrms/darwinbox/payroll';

const rec = { employee_no: 'E1', ctc_total: 1_300_000, fixed_ctc: 1_200_000, variable_pay: 100_000 };

describe('payrollRecords', () => {
  it('finds records under data, employee_data, a nested data object, a bare array; none elsewhere', () => {
    expect(payrollRecords({ status: 1, data: [rec] })).toEqual([rec]);
    expect(payrollRecords({ status: 1, employee_data: [rec] })).toEqual([rec]);
    expect(payrollRecords({ data: { employee_data: [rec] } })).toEqual([rec]);
    expect(payrollRecords({ data: { E1: rec } })).toEqual([rec]);
    expect(payrollRecords([rec])).toEqual([rec]);
    expect(payrollRecords({ status: 1, message: 'x' })).toBeUndefined();
    expect(payrollRecords('x')).toBeUndefined();
  });
});

describe('readPayrollAnswer', () => {
  const asked = new Set(['E1']);
  it('status 0 is a refusal (auth); an unknown shape bad_response; a bare status 1 no salaries', () => {
    expect(() => readPayrollAnswer({ status: 0, message: 'Invalid API key' }, asked, () => {})).toThrow(expect.objectContaining({ kind: 'auth' }) as HrmsError);
    expect(() => readPayrollAnswer({ records: [rec] }, asked, () => {})).toThrow(expect.objectContaining({ kind: 'bad_response' }) as HrmsError);
    expect(readPayrollAnswer({ status: '1', message: 'no data' }, asked, () => {}).size).toBe(0);
  });
  it('keeps only employees asked for', () => {
    const got = readPayrollAnswer({ status: 1, data: [rec, { ...rec, employee_no: 'E2' }] }, asked, () => {});
    expect([...got.keys()]).toEqual(['E1']);
  });
});

describe('mapCtcRecord', () => {
  it('totals are annual: fixedPay and the variable pay as the performance bonus; fixed derived from total − variable when absent', () => {
    expect(mapCtcRecord(rec, () => {})).toEqual({ employeeId: 'E1', salary: { ctc: { fixedPay: 1_200_000, bonus: { performance: 100_000 } } } });
    const derived = mapCtcRecord({ employee_id: 'E1', total_ctc: '13,00,000.00', variable_ctc: '1,00,000' }, () => {});
    expect(derived!.salary.ctc).toEqual({ fixedPay: 1_200_000, bonus: { performance: 100_000 } });
  });

  it('a breakup summing to the fixed CTC is annual, to a twelfth of it monthly, to neither not placed (warned)', () => {
    const annual = { Basic: 600_000, HRA: 300_000, 'Special Allowance': 200_000, Gratuity: 28_860, 'Provident Fund': 71_140 };
    const a = mapCtcRecord({ ...rec, ctc_break_up: annual }, () => {})!;
    expect(a.salary.ctc).toMatchObject({ basic: 600_000, hra: 300_000, specialAllowance: 200_000, gratuity: 28_860, deductions: { pf: 71_140 } });
    expect(a.salary.monthly).toBeUndefined();
    const monthly = Object.fromEntries(Object.entries(annual).map(([k, v]) => [`ctc_break_up.${k}`, Math.round((v / 12) * 100) / 100]));
    const m = mapCtcRecord({ ...rec, ...monthly }, () => {})!;
    expect(m.salary.monthly).toMatchObject({ basic: 50_000, hra: 25_000, deductions: { pf: 5_928.33 } });
    expect(m.salary.ctc).toEqual({ fixedPay: 1_200_000, bonus: { performance: 100_000 } });
    const warned: string[] = [];
    const odd = mapCtcRecord({ ...rec, ctc_break_up: { Basic: 7 } }, (f) => warned.push(f))!;
    expect([odd.salary.monthly, odd.salary.ctc!.basic, warned]).toEqual([undefined, undefined, ['ctc_break_up']]);
  });

  it('an unreadable total is empty and named; a record without an employee id is skipped', () => {
    const warned: string[] = [];
    expect(mapCtcRecord({ employee_no: 'E1', fixed_ctc: 'confidential', variable_pay: 0 }, (f) => warned.push(f))).toEqual({
      employeeId: 'E1',
      salary: { ctc: { bonus: { performance: 0 } } },
    });
    expect(warned).toEqual(['fixed_ctc']);
    expect(mapCtcRecord({ fixed_ctc: 1 }, () => {})).toBeUndefined();
    expect(mapCtcRecord([rec], () => {})).toBeUndefined();
  });
});
