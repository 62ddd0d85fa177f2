import { describe, expect, it } from 'vitest';
import { ALL_DATA_POINTS, filterRecord, groupOf, changedDataPoints } from '../../src/domain/data-points';
import { maskRecord } from '../../src/domain/masking';
import { emptyRecord, normalizeRecord, mergeRecord, NOT_AVAILABLE } from '../../src/domain/record';

describe('data points', () => {
  it('names leaves as docs/data-points.md does', () => {
    for (const n of [
      'gender',
      'dob',
      'bankDetails_accountNumber',
      'currentAddress_addressCity',
      'dependentDetails_mobileNumber',
      'ctc_basic',
      'ctc_bonus_joining',
      'ctc_deductions_esi',
      'monthly_deductions_tds',
      'monthly_month',
      'monthly_reimbursements',
      'employeeMetadata_marriageDate',
    ]) {
      expect(ALL_DATA_POINTS).toContain(n);
    }
    expect(ALL_DATA_POINTS).not.toContain('id');
    expect(ALL_DATA_POINTS).not.toContain('employeeId');
    expect(new Set(ALL_DATA_POINTS).size).toBe(ALL_DATA_POINTS.length);
  });

  it('groups data points', () => {
    expect(groupOf('dependentDetails_name')).toBe('dependent_details_fields');
    expect(groupOf('ctc_deductions_misc')).toBe('ctc_details_fields');
    expect(groupOf('monthly_year')).toBe('ctc_details_fields');
    expect(groupOf('gender')).toBe('detail_info_fields');
  });

  it('filters unshared points to their empty values', () => {
    const rec = normalizeRecord(
      {
        employeeId: 'E1',
        name: 'Asha',
        gender: 'Female',
        terminationDate: '2026-01-01',
        salaryDetails: { ctc: { basic: 1000, bonus: { joining: 5 } }, monthly: { month: 3, year: 2026 } },
        dependentDetails: [{ name: 'Ravi', mobileNumber: '9876543210' }],
      },
      'id-1',
    );
    const out = filterRecord(rec, new Set(['name', 'ctc_basic', 'dependentDetails_name']));
    expect(out.id).toBe('id-1');
    expect(out.employeeId).toBe('E1');
    expect(out.name).toBe('Asha');
    expect(out.gender).toBe(NOT_AVAILABLE);
    expect(out.terminationDate).toBe('');
    expect(out.salaryDetails.ctc.basic).toBe(1000);
    expect(out.salaryDetails.ctc.bonus.joining).toBeNull();
    expect(out.salaryDetails.monthly.month).toBeNull();
    expect(out.dependentDetails).toEqual([{ ...out.dependentDetails[0], name: 'Ravi', mobileNumber: NOT_AVAILABLE }]);
    expect(filterRecord(rec, new Set(['name'])).dependentDetails).toEqual([]);
    expect(rec.gender).toBe('Female');
  });

  it('masks with asterisks of the same length, keeping NOT AVAILABLE', () => {
    const rec = normalizeRecord({ employeeId: 'E1', pan: 'ABCDE1234F', bankDetails: { ifscCode: 'HDFC0001234' } }, 'x');
    const m = maskRecord(rec);
    expect(m.pan).toBe('**********');
    expect(m.bankDetails.ifscCode).toBe('***********');
    expect(m.aadhar).toBe(NOT_AVAILABLE);
    expect(rec.pan).toBe('ABCDE1234F');
  });

  it('normalizes blanks and keeps the full shape', () => {
    const rec = normalizeRecord({ employeeId: 'E2', name: '  ', email: 'a@b.in' }, 'y');
    expect(rec.name).toBe(NOT_AVAILABLE);
    expect(rec.email).toBe('a@b.in');
    expect(Object.keys(rec)).toEqual(Object.keys(emptyRecord()));
  });

  it('merges updates field by field and reports changed points', () => {
    const rec = normalizeRecord({ employeeId: 'E3', name: 'A', currentAddress: { addressCity: 'Pune' } }, 'z');
    const merged = mergeRecord(rec, { currentAddress: { addressState: 'MH' } });
    expect(merged.currentAddress.addressCity).toBe('Pune');
    expect(merged.currentAddress.addressState).toBe('MH');
    expect(changedDataPoints(rec, merged)).toEqual(['currentAddress_addressState']);
    expect(changedDataPoints(merged, merged)).toEqual([]);
  });
});
