/**
 * Helpers for tests of product connectors against their simulators (src/hrms/<hrms_id>/sim/):
 * an in-process shared request budget, a full walk of a listing, and a field-by-field
 * comparison with a simulator's ground truth.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { EmployeePage, HrmsConnector, ListOptions, RequestBudget } from '../../src/hrms/connector';
import { normalizeRecord, type PartialEmployeeRecord } from '../../src/domain/record';

/**
 * A `RequestBudget` in one process: at most `requests` takes within any `windowMs` (a sliding
 * log), and `holdOff` honoured. `marginMs` widens the window so that requests taken at the
 * window's edge cannot arrive at the HRMS inside the same window (the simulator counts arrivals).
 */
export class WindowBudget implements RequestBudget {
  private times: number[] = [];
  private holdUntil = 0;
  takes = 0;
  holds: number[] = [];

  constructor(
    readonly requests: number,
    readonly windowMs: number,
    private readonly marginMs = 150,
  ) {}

  async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (now < this.holdUntil) {
        await sleep(this.holdUntil - now, undefined, { signal });
        continue;
      }
      const span = this.windowMs + this.marginMs;
      this.times = this.times.filter((t) => t > now - span);
      if (this.times.length < this.requests) {
        this.times.push(now);
        this.takes++;
        return;
      }
      await sleep(this.times[0]! + span - now + 1, undefined, { signal });
    }
  }

  holdOff(ms: number): Promise<void> {
    this.holds.push(ms);
    this.holdUntil = Math.max(this.holdUntil, Date.now() + ms);
    return Promise.resolve();
  }
}

/** Every page of a listing, with the employees of all pages. */
export async function listAll(connector: HrmsConnector, options?: ListOptions): Promise<{ pages: EmployeePage[]; employees: PartialEmployeeRecord[] }> {
  const pages: EmployeePage[] = [];
  for await (const page of connector.listEmployees(options)) pages.push(page);
  return { pages, employees: pages.flatMap((p) => p.employees) };
}

/**
 * Asserts that `got` holds each employee of `expected` exactly once and nothing else, each equal
 * to the expected one field by field once both are normalized (docs/data-points.md).
 */
export function expectSameEmployees(got: PartialEmployeeRecord[], expected: PartialEmployeeRecord[]): void {
  const ids = got.map((e) => e.employeeId);
  expect(new Set(ids).size, 'an employee listed twice').toBe(ids.length);
  expect([...ids].sort()).toEqual(expected.map((e) => e.employeeId).sort());
  const byId = new Map(got.map((e) => [e.employeeId, e]));
  for (const e of expected) {
    expect(normalizeRecord(byId.get(e.employeeId)!, 'id'), e.employeeId).toEqual(normalizeRecord(e, 'id'));
  }
}
