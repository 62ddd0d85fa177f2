/**
 * Human labels of the data points (docs/connect.md "Data point labels"): every data point of the record has one label,
 * in a category consistent with its `data_model_flags` group, with identity numbers and bank
 * details (and nothing else) marked sensitive.
 */
import { describe, expect, it } from 'vitest';
import { ALL_DATA_POINTS, groupOf } from '../../src/domain/data-points';
import { ALWAYS_SHARED_LABELS, DATA_POINT_CATEGORIES, DATA_POINT_LABELS, dataPointLabel } from '../../src/domain/data-point-labels';

describe('data point labels', () => {
  it('labels every data point of the data point list, once, in record order', () => {
    expect(DATA_POINT_LABELS.map((l) => l.name)).toStrictEqual([...ALL_DATA_POINTS]);
    for (const name of ALL_DATA_POINTS) {
      const l = dataPointLabel(name);
      expect(l?.label, name).toMatch(/^\S.*\S$/);
      // The raw name is never the label.
      expect(l?.label, name).not.toBe(name);
    }
    expect(ALWAYS_SHARED_LABELS.map((l) => l.name).sort()).toStrictEqual(['employeeId', 'id']);
    expect(dataPointLabel('id')).toBeUndefined();
    expect(dataPointLabel('nope')).toBeUndefined();
  });

  it('gives every data point its own words (no two share a label)', () => {
    const labels = DATA_POINT_LABELS.map((l) => l.label.toLowerCase());
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('uses the words of docs/connect.md "Data point labels" for its examples', () => {
    expect(dataPointLabel('aadhar')?.label).toBe('Aadhaar number');
    expect(dataPointLabel('ctc_deductions_esi')?.label).toBe('ESI deduction (annual CTC)');
    expect(dataPointLabel('monthly_deductions_earlyWageDeduction')?.label).toBe('Early wage (salary advance) deduction (monthly pay)');
  });

  it('puts each point in a category of its flags group, every category used', () => {
    const ids = DATA_POINT_CATEGORIES.map((c) => c.id);
    expect(ids).toStrictEqual(['personal', 'contact', 'bank', 'employment', 'annual_ctc', 'monthly_pay', 'dependants']);
    for (const l of DATA_POINT_LABELS) {
      const group = groupOf(l.name);
      const expected =
        l.category === 'dependants'
          ? 'dependent_details_fields'
          : l.category === 'annual_ctc' || l.category === 'monthly_pay'
            ? 'ctc_details_fields'
            : 'detail_info_fields';
      expect(group, l.name).toBe(expected);
      if (l.category === 'annual_ctc') expect(l.name.startsWith('ctc_'), l.name).toBe(true);
      if (l.category === 'monthly_pay') expect(l.name.startsWith('monthly_'), l.name).toBe(true);
    }
    expect(new Set(DATA_POINT_LABELS.map((l) => l.category))).toStrictEqual(new Set(ids));
  });

  it('marks identity numbers and bank details sensitive, and only those', () => {
    expect(
      DATA_POINT_LABELS.filter((l) => l.sensitive)
        .map((l) => l.name)
        .sort(),
    ).toStrictEqual(['aadhar', 'bankDetails_accountNumber', 'bankDetails_bankName', 'bankDetails_ifscCode', 'pan', 'uan']);
  });
});
