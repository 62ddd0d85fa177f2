/**
 * `source=hrms` reads (docs/api.md): one employee fetched live through the client org's stored
 * HRMS configuration and connector, within the HRMS tenant's shared request budget (the one the
 * syncs take from) and a bounded wait for it (docs/behaviour.md "Live reads and the HRMS budget").
 */
import { AppError } from '../errors';
import { HrmsError, type RequestBudget } from '../hrms/connector';
import { BudgetWaitExceeded, liveReadLimit, type HrmsSource } from '../hrms/live-source';
import type { ConnectorLookup } from '../hrms/registry';
import type { HrmsConfigStore } from './store';

/** What a live read may spend: the tenant budgets (src/ratelimit/hrms-budget.ts) and the longest wait for one. */
export interface LiveBudgetOptions {
  budgetFor: (hrmsId: string, tenant: string, limit: { requests: number; windowMs: number }, opts: { maxWaitMs: number }) => RequestBudget;
  /** Longest wait for the budget, ms (`HRX_HRMS_LIVE_WAIT_MS`); also the longest wait before the read's one retry. */
  maxWaitMs: number;
}

/**
 * Builds the live source; an org without a valid configuration has no live employees (null).
 * Without `live`, reads are not budgeted (tests of the connectors only). A read that finds no
 * room in the budget within `maxWaitMs` throws `AppError('UNAVAILABLE')` with `Retry-After`
 * (whole seconds until the budget has room), before the HRMS is asked; so does an HRMS still
 * throttling (`rate_limited`) after the read's retry. Other `HrmsError`s pass through.
 */
export function createHrmsSource(hrmsConfigs: HrmsConfigStore, connectorFor: ConnectorLookup, live?: LiveBudgetOptions): HrmsSource {
  return {
    async fetchEmployee(orgId, employeeId) {
      const hrmsConfig = await hrmsConfigs.load(orgId);
      const definition = hrmsConfig?.valid ? connectorFor(hrmsConfig.hrmsId) : undefined;
      if (!hrmsConfig || !definition) return null;
      const access = { credentials: hrmsConfig.credentials, apiConfigs: hrmsConfig.apiConfigs };
      const budget = live?.budgetFor(definition.hrmsId, definition.tenantOf(access), liveReadLimit(definition.budget), { maxWaitMs: live.maxWaitMs });
      const connector = definition.create(access, {
        timeoutMs: 10_000,
        retries: 1,
        ...(live ? { budget, maxRetryDelayMs: live.maxWaitMs } : {}),
      });
      try {
        return await connector.getEmployee(employeeId);
      } catch (err) {
        // No room in the budget, or the HRMS itself still throttling after the retry: the
        // HRMS cannot be asked now, and `Retry-After` says when it can (default: its window).
        const waitMs =
          err instanceof BudgetWaitExceeded
            ? err.retryAfterMs
            : err instanceof HrmsError && err.kind === 'rate_limited'
              ? (err.retryAfterMs ?? definition.budget.windowMs)
              : null;
        if (waitMs === null) throw err;
        throw new AppError('UNAVAILABLE', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) }, cause: err });
      }
    },
  };
}
