/**
 * Helpers for tests of product connectors against their simulators (src/hrms/<hrms_id>/sim/):
 * an in-process shared request budget, a full walk of a listing, and a field-by-field
 * comparison with a simulator's ground truth.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { BudgetDone, EmployeePage, HrmsConnector, ListOptions, RequestBudget } from '../../src/hrms/connector';
import { normalizeRecord, type PartialEmployeeRecord } from '../../src/domain/record';

/**
 * A `RequestBudget` in one process: at most `requests` within any `windowMs` (a sliding log), and
 * `holdOff` honoured. As hrx's own budget, a request counts from its take until it is answered and
 * then for a window from the answer (`done`), so a request delayed on a loaded machine between
 * its take and its arrival cannot land in the next window. `marginMs` widens the window for the
 * answer's way back (the simulator counts arrivals).
 */
export class WindowBudget implements RequestBudget {
  /** Each slot's instant: `Infinity` while its request is unanswered, then the answer's. */
  private slots: { at: number }[] = [];
  private holdUntil = 0;
  takes = 0;
  holds: number[] = [];

  constructor(
    readonly requests: number,
    readonly windowMs: number,
    private readonly marginMs = 150,
  ) {}

  async take(signal?: AbortSignal): Promise<BudgetDone> {
    for (;;) {
      const now = Date.now();
      if (now < this.holdUntil) {
        await sleep(this.holdUntil - now, undefined, { signal });
        continue;
      }
      const span = this.windowMs + this.marginMs;
      this.slots = this.slots.filter((s) => s.at > now - span);
      if (this.slots.length < this.requests) {
        const slot = { at: Infinity };
        this.slots.push(slot);
        this.takes++;
        return () => {
          slot.at = Date.now();
          return Promise.resolve();
        };
      }
      const oldest = Math.min(...this.slots.map((s) => s.at));
      // All slots unanswered: look again shortly (an answer frees nothing before a window passes).
      await sleep(Number.isFinite(oldest) ? oldest + span - now + 1 : 20, undefined, { signal });
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

/**
 * "Another client of the same HRMS account": `calls` GETs of `url` (marked `user-agent:
 * another-client`, so a simulator's own counts can tell them apart), one after another.
 */
export async function spendWindow(url: string, calls = 50): Promise<void> {
  for (let i = 0; i < calls; i++) await fetch(url, { headers: { 'user-agent': 'another-client' } }).then((r) => r.arrayBuffer());
}

/** The most calls within any `windowMs` (ms) of `at` (sorted instants, ms): a sliding window's count. */
export function maxInAnyWindow(at: number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; j < at.length; j++) {
    while (at[j]! - at[i]! >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}
