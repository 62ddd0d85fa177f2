/**
 * The update webhook's merge rules (decisions §6, README "Employee update webhook") and its body
 * schema: present values overwrite, null and blank leave values unchanged, `NOT AVAILABLE` clears
 * text, nested objects merge, arrays are replaced; types as the record's, unknown fields refused.
 */
import { describe, expect, it } from 'vitest';
import { changedDataPoints } from '../../src/employees/data-points';
import { emptyDependent, mergeRecord, normalizeRecord, NOT_AVAILABLE } from '../../src/employees/record';

const base = () => normalizeRecord({
  employeeId: 'E1', name: 'Asha Rao', terminationDate: '2026-03-31', pan: 'ABCPR1234K',
  bankDetails: { accountNumber: '001234567890', ifscCode: 'HDFC0001234', bankName: 'HDFC Bank' },
  salaryDetails: { ctc: { basic: 600000, hra: 240000, bonus: { joining: 50000 } }, monthly: { month: 3, year: 2026 } },
  dependentDetails: [{ name: 'Ravi', relation: 'Son' }, { name: 'Mira', relation: 'Daughter' }],
}, '7a1c3f0e-2b4d-4e6f-8a9b-0c1d2e3f4a5b');

describe('mergeRecord (webhook merge rules)', () => {
  it('overwrites present numbers, including ones already set', () => {
    const merged = mergeRecord(base(), { salaryDetails: { ctc: { basic: 650000, bonus: { joining: 0 } } } });
    expect(merged.salaryDetails.ctc.basic).toBe(650000);
    expect(merged.salaryDetails.ctc.bonus.joining).toBe(0);
    expect(merged.salaryDetails.ctc.hra).toBe(240000);
    expect(changedDataPoints(base(), merged)).toEqual(['ctc_basic', 'ctc_bonus_joining']);
  });

  it('merges nested objects field by field', () => {
    const merged = mergeRecord(base(), { bankDetails: { bankName: 'ICICI Bank' } });
    expect(merged.bankDetails).toEqual({ accountNumber: '001234567890', ifscCode: 'HDFC0001234', bankName: 'ICICI Bank' });
  });

  it('replaces arrays whole, filling each item onto an empty dependent', () => {
    const merged = mergeRecord(base(), { dependentDetails: [{ name: 'Kiran', relation: 'Spouse' }] });
    expect(merged.dependentDetails).toEqual([{ ...emptyDependent(), name: 'Kiran', relation: 'Spouse' }]);
    // One dependent instead of two: every dependent data point changed.
    expect(changedDataPoints(base(), merged)).toEqual(Object.keys(emptyDependent()).map((f) => `dependentDetails_${f}`));
    const renamed = mergeRecord(base(), { dependentDetails: [{ name: 'Ravi', relation: 'Son' }, { name: 'Meera', relation: 'Daughter' }] });
    expect(changedDataPoints(base(), renamed)).toEqual(['dependentDetails_name']);
    expect(mergeRecord(base(), { dependentDetails: [] }).dependentDetails).toEqual([]);
  });

  it('leaves values unchanged for null and blank text; NOT AVAILABLE clears text', () => {
    const kept = mergeRecord(base(), { name: '  ', pan: null, bankDetails: null, salaryDetails: { ctc: { basic: null } }, dependentDetails: null });
    expect(changedDataPoints(base(), kept)).toEqual([]);
    const cleared = mergeRecord(base(), { name: NOT_AVAILABLE, terminationDate: NOT_AVAILABLE });
    expect(cleared.name).toBe(NOT_AVAILABLE);
    expect(cleared.terminationDate).toBe('');
    expect(changedDataPoints(base(), cleared)).toEqual(['name', 'terminationDate']);
  });

  it('trims text and keeps id and employeeId of the stored record', () => {
    const merged = mergeRecord(base(), { name: '  Asha R. ', id: 'something-else', employeeId: 'E2' } as never);
    expect(merged.name).toBe('Asha R.');
    expect(merged.id).toBe(base().id);
    expect(merged.employeeId).toBe('E1');
  });
});
