/**
 * Live reads of one employee from a client org's HRMS (`source=hrms`, docs/api.md), through the
 * org's stored configuration and its connector, and what they may spend of the HRMS tenant's
 * request budget (docs/behaviour.md "Live reads and the HRMS budget").
 */
import type { PartialEmployeeRecord } from '../domain/record';

/**
 * Fetches one employee live; null when the HRMS has none. Throws `HrmsError` on HRMS failures and
 * `BudgetWaitExceeded` when the tenant's budget has no room for the read soon enough.
 */
export interface HrmsSource {
  fetchEmployee(clientOrgId: number, employeeId: string): Promise<PartialEmployeeRecord | null>;
}

/**
 * The tenant's request budget had no room within the wait a caller allows (a live read's).
 * `retryAfterMs`: how long until it has, as far as the budget can tell. Not an `HrmsError`: the
 * HRMS was not asked, and the connector's retries must not take it for the HRMS throttling.
 */
export class BudgetWaitExceeded extends Error {
  constructor(readonly retryAfterMs: number) {
    super('the HRMS request budget has no room in time');
    this.name = 'BudgetWaitExceeded';
  }
}

/**
 * The part of a tenant's budget live reads may use: the product's `requests` per `windowMs`
 * less a fifth (at least one request) kept for syncs, so live reads never starve a sync: it always
 * gets that fifth of every window. A budget of one request is shared as it is.
 */
export function liveReadLimit(budget: { requests: number; windowMs: number }): { requests: number; windowMs: number } {
  const reserve = Math.max(1, Math.ceil(budget.requests / 5));
  return { requests: Math.max(1, budget.requests - reserve), windowMs: budget.windowMs };
}
