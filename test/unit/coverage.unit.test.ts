/**
 * Coverage per data point (src/domain/coverage.ts; docs/behaviour.md "Coverage"): what counts as
 * a value (not the record model's empty value), the shares, and when a fall is "more than half".
 */
import { describe, expect, it } from 'vitest';
import { coverageShares, createCoverageCounter, degradedPoints, isSyncCoverage } from '../../src/domain/coverage';
import { ALL_DATA_POINTS, pointsWithValue } from '../../src/domain/data-points';
import { normalizeRecord } from '../../src/domain/record';

describe('coverage', () => {
  it('counts a data point only when it holds something other than its empty value', () => {
    const empty = normalizeRecord({ employeeId: 'E1' }, 'id-1');
    expect(pointsWithValue(empty)).toEqual([]);
    const some = normalizeRecord(
      {
        employeeId: 'E2',
        name: 'Asha Rao',
        dob: '1990-01-02',
        terminationDate: '',
        salaryDetails: { ctc: { basic: 0 } },
        dependentDetails: [{ name: 'Ravi' }, { relation: 'Son' }],
      },
      'id-2',
    );
    // 0 rupees is a value; "" (the empty termination date) is not.
    expect(pointsWithValue(some)).toEqual(['name', 'dob', 'ctc_basic', 'dependentDetails_name', 'dependentDetails_relation']);
  });

  it('counts every data point of every employee added, page by page', () => {
    const counter = createCoverageCounter();
    counter.add([normalizeRecord({ employeeId: 'A', name: 'A', dob: '1990-01-01' }, '1')]);
    counter.add([normalizeRecord({ employeeId: 'B', name: 'B' }, '2'), normalizeRecord({ employeeId: 'C' }, '3')]);
    const c = counter.result();
    expect(Object.keys(c.points)).toEqual([...ALL_DATA_POINTS]);
    expect([c.employees, c.points.name, c.points.dob, c.points.pan]).toEqual([3, 2, 1, 0]);
    expect(isSyncCoverage(c)).toBe(true);
    expect(isSyncCoverage({ employees: 1.5, points: {} })).toBe(false);
    expect(coverageShares(c, (p) => p === 'name' || p === 'dob')).toEqual({ name: 2 / 3, dob: 1 / 3 });
    expect(coverageShares({ employees: 0, points: { name: 0 } })).toEqual({});
  });

  it('a fall to less than half is degraded; to exactly half, or from nothing, is not', () => {
    const of = (employees: number, points: Record<string, number>) => ({ employees, points });
    expect(degradedPoints(of(10, { dob: 10, pan: 8, name: 10, uan: 0 }), of(20, { dob: 0, pan: 7, name: 10, uan: 0 }))).toEqual([
      { name: 'dob', previous: 1, current: 0 },
      { name: 'pan', previous: 0.8, current: 0.35 },
    ]);
    expect(degradedPoints(of(10, { dob: 10 }), of(10, { dob: 5 }))).toEqual([]);
    expect(degradedPoints(of(0, { dob: 0 }), of(10, { dob: 0 }))).toEqual([]);
    expect(degradedPoints(of(10, { dob: 10 }), of(0, { dob: 0 }))).toEqual([]);
  });
});
