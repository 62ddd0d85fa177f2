/**
 * The reference HRMS simulator's switches (server.ts): its options, the settings that can change
 * while it runs, its counters, the in-process control and the wire shape of `/__sim/control`.
 */
import { z } from 'zod';

/** Options of the simulator. Rates are fractions 0..1 of API and token calls. */
export interface SimOptions {
  /** Number of employees (`EMP00001` .. `EMPnnnnn`). */
  employees: number;
  /** Seed of the data: the same seed gives byte-identical employees. */
  seed: string | number;
  /** OAuth2 client id and secret accepted by `/oauth/token`; the secret is also the `X-Api-Key`. */
  clientId: string;
  clientSecret: string;
  /** Delay added to every token and API response, ms (default 0). */
  latencyMs?: number;
  /** Fraction of calls answered 429 with `Retry-After: retryAfterSec` (default 0). */
  rate429?: number;
  /** Fraction of calls answered 500 or 503 (default 0). */
  rate5xx?: number;
  /** Lifetime of issued tokens, seconds (default 3600). */
  tokenTtlSec?: number;
  /** Value of the `Retry-After` header on 429s, seconds (default 1). */
  retryAfterSec?: number;
  /**
   * Top-level fields of the simulator's own employee JSON left out of every answer (default none),
   * e.g. `['date_of_birth']`: an HRMS that stopped sending a field (hrx's `dob` then has no value).
   */
  omitFields?: string[];
  /**
   * The one-employee lookup reads the number in a code, as some HRMS lookups do (default false):
   * `EMP000007` and `EMP0000007` answer employee `EMP00007`, whose own code the answer carries.
   * Tests that hrx serves a live read only for the employee asked for (docs/api.md "Live reads
   * serve the employee asked for").
   */
  lenientCodes?: boolean;
  /**
   * The most pay months the payroll API serves per employee (default 36, all it holds); 0: an HRMS
   * whose payroll holds no history (its pages empty), as the `pay_history` benchmark's sync
   * without history.
   */
  payHistoryMonths?: number;
}

/** The switches that can change while the simulator runs. */
export interface SimSettings {
  latencyMs: number;
  rate429: number;
  rate5xx: number;
  retryAfterSec: number;
  tokenTtlSec: number;
  /** See {@link SimOptions.omitFields}. */
  omitFields: string[];
}

/** Counters of what the simulator has served since start (or `resetStats`). */
export interface SimStats {
  /** Every `POST /oauth/token`, whatever its outcome. */
  tokenRequests: number;
  /** Every `GET /api/v1/employees` (list pages), whatever its outcome. */
  pageRequests: number;
  /** Every `GET /api/v1/employees/{code}`. */
  employeeRequests: number;
  /** Every `GET /api/v1/payroll/months` (payroll pages), whatever its outcome. */
  payrollRequests: number;
  /** Pay months the payroll pages carried. */
  payMonthsServed: number;
  /** 429 responses injected by `rate429`. */
  served429: number;
  /** 500/503 responses injected by `rate5xx`. */
  served5xx: number;
  /** 401 responses (bad client credentials or bad token). */
  served401: number;
}

/** In-process control of a running simulator; the same operations exist at `/__sim/control`. */
export interface SimControl {
  /** Changes switches; throws `RangeError` on values out of range. Returns the new settings. */
  set(settings: Partial<SimSettings>): SimSettings;
  settings(): SimSettings;
  /** Removes an employee from list and detail responses; false when the code is not served. */
  drop(code: string): boolean;
  /** Brings back a dropped employee; false when it was not dropped. */
  restore(code: string): boolean;
  /** Serves employees `1..n` from now on (dropped codes stay dropped). */
  setEmployeeCount(n: number): void;
  employeeCount(): number;
  /** Forgets every issued token, so the next API call gets 401 `invalid_token`. */
  revokeTokens(): void;
  stats(): SimStats;
  resetStats(): void;
}

/** Body of `POST /__sim/control`; every field optional. The answer is `ControlSnapshot`. */
export const ControlRequest = z.strictObject({
  latencyMs: z.number().min(0).optional(),
  rate429: z.number().min(0).max(1).optional(),
  rate5xx: z.number().min(0).max(1).optional(),
  retryAfterSec: z.number().int().min(0).optional(),
  tokenTtlSec: z.number().int().min(1).optional(),
  omitFields: z.array(z.string().min(1).max(64)).max(100).optional(),
  employees: z.number().int().min(0).optional(),
  drop: z.union([z.string(), z.array(z.string())]).optional(),
  restore: z.union([z.string(), z.array(z.string())]).optional(),
  revokeTokens: z.boolean().optional(),
  resetStats: z.boolean().optional(),
});
/** Wire shape of `/__sim/control` requests. */
export type ControlRequest = z.infer<typeof ControlRequest>;

/** Throws RangeError when `s` is out of range (rates 0..1 summing to at most 1, latency >= 0). */
export function checkSettings(s: SimSettings): void {
  const ok = (n: number, lo: number, hi: number): boolean => Number.isFinite(n) && n >= lo && n <= hi;
  if (
    !ok(s.latencyMs, 0, 600_000) ||
    !ok(s.rate429, 0, 1) ||
    !ok(s.rate5xx, 0, 1) ||
    s.rate429 + s.rate5xx > 1 ||
    !ok(s.retryAfterSec, 0, 86_400) ||
    !ok(s.tokenTtlSec, 1, 31_536_000) ||
    !Array.isArray(s.omitFields) ||
    !s.omitFields.every((f) => typeof f === 'string')
  ) {
    throw new RangeError('simulator settings out of range (rates 0..1 summing to at most 1, latencyMs >= 0)');
  }
}
