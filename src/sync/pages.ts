/**
 * The employee pages of a sync as the run consumes them (docs/sync.md "Memory and throughput"):
 * the next page asked for while the current one is written, and each page's employees by their
 * canonical id.
 */
import { canonicalEmployeeId } from '../domain/ids';
import type { PartialEmployeeRecord } from '../domain/record';
import type { EmployeePage } from '../hrms/connector';

/**
 * Asks `pages` for its next page now (the HRMS answers while the caller writes the current one),
 * with `mark`, the `writeMark()` taken just before (the page's guard). A failure is seen when the
 * page is awaited (`untilAnswer`); never an unhandled rejection meanwhile.
 */
export function askFor(pages: AsyncIterator<EmployeePage>, mark: string): { page: Promise<IteratorResult<EmployeePage>>; mark: string } {
  const page = pages.next();
  page.catch(() => undefined);
  return { page, mark };
}

/**
 * A page's employees by canonical id (docs/erasure-and-retention.md "One form of an employee
 * id"): an HRMS listing `EMP1` and `EMP1 ` lists one employee (the later entry wins, as a later
 * page would); an id that is empty once canonical names nobody and is left out.
 */
export function canonicalPage(employees: readonly PartialEmployeeRecord[]): Map<string, PartialEmployeeRecord> {
  const out = new Map<string, PartialEmployeeRecord>();
  for (const e of employees) {
    const id = canonicalEmployeeId(e.employeeId);
    if (id) out.set(id, e);
  }
  return out;
}
