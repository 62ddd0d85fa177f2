/**
 * The update webhook's merge rules (docs/api.md "Employee update webhook", README "Employee update webhook") and its body
 * schema: present values overwrite, null and blank leave values unchanged, `NOT AVAILABLE` clears
 * text, nested objects merge, arrays are replaced; types as the record's, unknown fields refused.
 */
import { describe, expect, it } from 'vitest';
import { changedDataPoints } from '../../src/domain/data-points';
import { emptyDependent, mergeRecord, normalizeRecord, NOT_AVAILABLE } from '../../src/domain/record';
import { updateBodySchema } from '../../src/employees/routes';

const base = () =>
  normalizeRecord(
    {
      employeeId: 'E1',
      name: 'Asha Rao',
      terminationDate: '2026-03-31',
      pan: 'ABCPR1234K',
      bankDetails: { accountNumber: '001234567890', ifscCode: 'HDFC0001234', bankName: 'HDFC Bank' },
      salaryDetails: { ctc: { basic: 600000, hra: 240000, bonus: { joining: 50000 } }, monthly: { month: 3, year: 2026 } },
      dependentDetails: [
        { name: 'Ravi', relation: 'Son' },
        { name: 'Mira', relation: 'Daughter' },
      ],
    },
    '7a1c3f0e-2b4d-4e6f-8a9b-0c1d2e3f4a5b',
  );

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
    const renamed = mergeRecord(base(), {
      dependentDetails: [
        { name: 'Ravi', relation: 'Son' },
        { name: 'Meera', relation: 'Daughter' },
      ],
    });
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
    const merged = mergeRecord(base(), { name: '  Asha R. ', id: 'something-else', employeeId: 'E2' });
    expect(merged.name).toBe('Asha R.');
    expect(merged.id).toBe(base().id);
    expect(merged.employeeId).toBe('E1');
  });
});

describe('update body schema', () => {
  const issues = (v: unknown) => {
    const r = updateBodySchema.safeParse(v);
    return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), code: i.code, message: i.message }));
  };

  it('accepts one record or an array of 1..1000', () => {
    expect(updateBodySchema.parse({ employeeId: ' E1 ', name: 'A' })).toEqual({ many: false, updates: [{ employeeId: 'E1', name: 'A' }] });
    expect(updateBodySchema.parse([{ employeeId: 'E1' }, { employeeId: 'E2' }]).updates.map((u) => u.employeeId)).toEqual(['E1', 'E2']);
    expect(issues(Array.from({ length: 1000 }, (_, i) => ({ employeeId: `E${i}` })))).toEqual([]);
  });

  it('refuses 0 or 1,001 records, a missing employeeId, unknown fields and wrong types', () => {
    expect(issues([])).toEqual([{ path: '', code: 'custom', message: 'must hold 1 to 1000 employee records' }]);
    expect(issues(Array.from({ length: 1001 }, (_, i) => ({ employeeId: `E${i}` })))[0]?.message).toBe('must hold 1 to 1000 employee records');
    expect(issues({ name: 'A' })[0]).toMatchObject({ path: 'employeeId', code: 'invalid_type' });
    expect(issues({ employeeId: '   ' })[0]).toMatchObject({ path: 'employeeId', message: 'required' });
    expect(issues({ employeeId: 'E1', bankDetails: { iban: 'x' } })[0]).toMatchObject({ path: 'bankDetails', code: 'unrecognized_keys' });
    expect(issues([{ employeeId: 'E1' }, { employeeId: 'E2', salaryDetails: { ctc: { basic: '600000' } } }])[0]).toMatchObject({
      path: '1.salaryDetails.ctc.basic',
      code: 'invalid_type',
    });
    expect(issues({ employeeId: 'E1', salaryDetails: { monthly: { month: 13 } } })[0]).toMatchObject({ path: 'salaryDetails.monthly.month' });
    expect(issues({ employeeId: 'E1', dob: '1990-02-30' })[0]).toMatchObject({ path: 'dob', message: 'must be a date YYYY-MM-DD' });
    expect(issues('E1')[0]).toMatchObject({ path: '', code: 'invalid_type' });
  });

  it('refuses text PostgreSQL cannot store as sent (NUL, lone surrogates)', () => {
    expect(issues({ employeeId: 'E1', name: 'A\u0000B' })[0]).toMatchObject({ path: 'name', message: 'must not contain NUL characters' });
    expect(issues({ employeeId: 'E\uD800' })[0]).toMatchObject({ path: 'employeeId', message: 'must be well-formed Unicode' });
  });
});
