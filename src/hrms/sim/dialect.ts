/**
 * What every product simulator offers (docs/hrms/connectors.md, docs/hrms/README.md): `hrx hrms-sim --dialect <hrms_id>`
 * starts one, and the connector conformance suite drives each through this one interface.
 *
 * A simulator renders the same deterministic Indian employees (`data.ts`, `generateEmployee`)
 * in its product's own dialect (auth handshake, paging, envelope, date and enumeration formats,
 * throttling signal, wrong-credential answer). Its ground truth (`expected`) is computed from
 * those canonical employees, independently of the product's connector, keeping only what the
 * product gives (values it does not give stay absent: the record's empty value).
 */
import type { PartialEmployeeRecord } from '../../domain/record';
import type { HrmsApiConfig, HrmsCredentials } from '../connector';
import type { SimTls } from './listen';

/** Options every dialect simulator takes. */
export interface DialectSimOptions {
  /** Number of employees served at start. */
  employees: number;
  /** Seed of the data: the same seed gives the same employees, byte for byte. */
  seed: string | number;
  port?: number;
  host?: string;
  /**
   * Enforce the product's published request limit with its exact throttling signal (default
   * true). Off, the simulator only counts.
   */
  throttle?: boolean;
  /**
   * Replaces the product's request limit (counted in `stats`, enforced when `throttle` is on):
   * tests of hrx's request budget shrink it so a sync of a few pages has to wait for its budget.
   */
  limit?: { requests: number; windowMs: number };
  /** Product-specific switches for what the research says is `?` or inferred (each simulator documents its own). */
  variants?: Record<string, string | number | boolean>;
  /** Serve HTTPS (a product whose simulator listens through the kit's `SimCore.listen`); with `clientCa`, require a client certificate. */
  tls?: SimTls;
}

/** Faults that can be switched while the simulator runs. */
export interface DialectFaults {
  /** Delay added to every response, ms. */
  latencyMs?: number;
  /** Fraction 0..1 of data calls answered with the product's throttling signal. */
  rateThrottle?: number;
  /**
   * For a product that locks a tenant out after throttling (Zoho People: 5 minutes), how long
   * the lock-out lasts, ms; tests shorten it. Default: the product's own.
   */
  throttleLockoutMs?: number;
  /** Fraction 0..1 of data calls answered 500/503. */
  rate5xx?: number;
  /** Issued tokens expire after this many data calls (token expiry mid-sync); 0 = never. */
  tokenExpiresAfterCalls?: number;
}

/** Counters since start or `resetStats`. */
export interface DialectSimStats {
  /** Every HTTP request the simulator received (token, data, lookups). */
  requests: number;
  /** Token (auth handshake) requests. */
  tokenRequests: number;
  /** Requests answered with the throttling signal. */
  throttled: number;
  /** Requests refused for bad or expired credentials. */
  authFailures: number;
  /**
   * The largest number of requests received within any window of the product's limit (e.g. any
   * 60 s for Keka): what the shared budget must keep at or under the limit.
   */
  maxInWindow: number;
  /** The product's published limit the window above is compared with: `requests` per `windowMs`. */
  limit: { requests: number; windowMs: number };
}

/** A running dialect simulator. */
export interface DialectSim {
  /** The `hrms_id` it speaks. */
  readonly hrmsId: string;
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /**
   * `false` for a product that issues no tokens (every request carries the stored credentials:
   * Basic, API key): token expiry mid-sync does not apply (the conformance suite skips it).
   * Absent: the product issues tokens.
   */
  readonly issuesTokens?: boolean;
  /** The setup-config pieces that authenticate against it (docs/hrms/connectors.md's fields for the product). */
  setup(): { hrms_id: string; access_credentials: HrmsCredentials; api_configs: HrmsApiConfig[] };
  /** The same with a wrong secret: the product's wrong-credential answer. */
  wrongSetup(): { hrms_id: string; access_credentials: HrmsCredentials; api_configs: HrmsApiConfig[] };
  /**
   * Ground truth: every employee currently served, as hrx must store it (the product's mapping
   * table applied to the canonical employee; fields the product does not give left out).
   */
  expected(): PartialEmployeeRecord[];
  /** The HRMS employee ids currently served. */
  employeeIds(): string[];
  /** Changes one served employee (a new designation and mobile number), bumping its last-modified time. */
  change(employeeId: string): void;
  /**
   * Removes one employee from the product (deleted or terminated as the product shows it), so an
   * incremental listing reports it; a product whose incremental listings cannot show a removal
   * (its definition's `reportsRemovals: false`) leaves it to the next full sync.
   */
  remove(employeeId: string): void;
  setFaults(faults: DialectFaults): void;
  /** Forgets every issued token: the next data call gets the product's expired-token answer. */
  revokeTokens(): void;
  stats(): DialectSimStats;
  resetStats(): void;
  close(): Promise<void>;
}

/** Starts a dialect simulator. */
export type DialectSimFactory = (options: DialectSimOptions) => Promise<DialectSim>;
