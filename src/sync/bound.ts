/**
 * The bound of one sync run (docs/behaviour.md "Sync", docs/limits.md): at most `maxPages` pages
 * and `maxEmployees` employees listed. An HRMS that pages forever (one run by whoever set up the
 * org, through setup-config or the Connect flow) would otherwise fill the disk; past the bound the
 * run ends `failed` with reason `bound_exceeded` and writes nothing more.
 */
import type { EmployeePage } from '../hrms/connector';

/** The operator's bound of one run (`HRX_SYNC_MAX_PAGES`, `HRX_SYNC_MAX_EMPLOYEES`). */
export interface SyncBounds {
  /** Pages of the HRMS listing one run stores at most (≥ 1). */
  maxPages: number;
  /** Employees (listed, and reported removed) one run takes at most (≥ 1). */
  maxEmployees: number;
}

/**
 * A run went past its bound. `message` names the setting and the bound, nothing of the HRMS's
 * data; the run fails (not retried: the same listing would pass it again).
 */
export class SyncBoundError extends Error {
  readonly kind = 'bound_exceeded';
  constructor(message: string) {
    super(message);
    this.name = 'SyncBoundError';
  }
}

/** Counts one run's pages against `bounds`; absent bounds admit everything. */
export function createRunBound(bounds: SyncBounds | undefined): { admit(page: EmployeePage): void } {
  let pages = 0;
  let employees = 0;
  return {
    /**
     * Called with each page before anything of it is written. Throws `SyncBoundError` when this
     * page would take the run past either bound, so the run stores at most `maxPages` pages and
     * `maxEmployees` employees, and never part of the page that crossed it.
     */
    admit(page) {
      if (!bounds) return;
      pages += 1;
      employees += page.employees.length + (page.removedIds?.length ?? 0);
      if (pages > bounds.maxPages) throw new SyncBoundError(`the HRMS listing is longer than ${bounds.maxPages} pages (HRX_SYNC_MAX_PAGES)`);
      if (employees > bounds.maxEmployees) throw new SyncBoundError(`the HRMS lists more than ${bounds.maxEmployees} employees (HRX_SYNC_MAX_EMPLOYEES)`);
    },
  };
}
