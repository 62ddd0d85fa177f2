/**
 * Coverage of a set of employee records (docs/behaviour.md "Coverage"): per data point, how many
 * of them have a value (not the record model's empty value). A sync counts it page by page while
 * it streams (one counter per data point: memory does not grow with the org) and stores it on
 * its run (`sync_runs.coverage`); `sync.completed` carries it as shares (0..1), and a full sync
 * compares it with the org's previous one to raise `sync.degraded`. Pure code.
 */
import { ALL_DATA_POINTS, countPointsWithValue } from './data-points';
import type { EmployeeRecord } from './record';

/** `{employees, points}`: employees counted, and per data point how many of them have a value (the shape `sync_runs.coverage` stores). */
export interface SyncCoverage {
  employees: number;
  points: Record<string, number>;
}

/** Counts a run's coverage as its pages go by. */
export interface CoverageCounter {
  /** Counts the employees of one stored page. */
  add(records: readonly EmployeeRecord[]): void;
  /** The coverage so far: `{employees, points}` with every data point named (0 when none has it). */
  result(): SyncCoverage;
}

/** A counter at zero. */
export function createCoverageCounter(): CoverageCounter {
  let employees = 0;
  // By index in ALL_DATA_POINTS: no name list per employee, no map lookups.
  const counts: number[] = ALL_DATA_POINTS.map(() => 0);
  const hit = (i: number): void => {
    counts[i]! += 1;
  };
  return {
    add(records) {
      for (const r of records) {
        employees += 1;
        countPointsWithValue(r, hit);
      }
    },
    result: () => ({ employees, points: Object.fromEntries(ALL_DATA_POINTS.map((p, i) => [p, counts[i]!])) }),
  };
}

/**
 * The share (0..1) of employees with a value, per data point of `coverage` (restricted to
 * `only` when given); `{}` when the run saw no employee (no share to speak of).
 */
export function coverageShares(coverage: SyncCoverage, only?: (point: string) => boolean): Record<string, number> {
  if (coverage.employees <= 0) return {};
  const out: Record<string, number> = {};
  for (const [point, n] of Object.entries(coverage.points)) if (!only || only(point)) out[point] = n / coverage.employees;
  return out;
}

/** A data point whose share fell by more than half from the previous full sync. */
export interface DegradedPoint {
  name: string;
  /** Its share in the previous full sync, 0..1. */
  previous: number;
  /** Its share in this run, 0..1. */
  current: number;
}

/**
 * The data points whose share in `current` is less than half their share in `previous` (the
 * org's previous full sync), in `ALL_DATA_POINTS` order. Nothing when either run saw no
 * employee; a point the previous run did not have (share 0) cannot fall.
 */
export function degradedPoints(previous: SyncCoverage, current: SyncCoverage): DegradedPoint[] {
  const before = coverageShares(previous);
  const now = coverageShares(current);
  if (!Object.keys(before).length || !Object.keys(now).length) return [];
  const out: DegradedPoint[] = [];
  for (const name of ALL_DATA_POINTS) {
    const p = before[name] ?? 0;
    const c = now[name] ?? 0;
    if (p > 0 && c < p / 2) out.push({ name, previous: p, current: c });
  }
  return out;
}

/** True when `v` (a `sync_runs.coverage` value read back) has the stored shape. */
export function isSyncCoverage(v: unknown): v is SyncCoverage {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Partial<SyncCoverage>;
  return Number.isInteger(c.employees) && typeof c.points === 'object' && c.points !== null && Object.values(c.points).every((n) => Number.isInteger(n));
}
