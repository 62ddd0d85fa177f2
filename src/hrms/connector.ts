/**
 * The HRMS connector contract. A connector talks to one kind of HRMS over HTTP and turns its
 * native employee data into partial employee records. It knows nothing of the store or of hrx's
 * HTTP routes (DEVELOPERS.md, architecture).
 */
import type { PartialEmployeeRecord } from '../domain/record';
import type { HostPolicy } from '../outbound/host-policy';

/** Access credentials as stored from setup-config (interface.md "Setup configuration"). */
export interface HrmsCredentials {
  /** Base URL of the HRMS, e.g. `http://127.0.0.1:9100`. */
  hrms_host: string;
  /** `client_credentials` or `api_key` (decisions §5). */
  grant_type: string;
  client_id?: string;
  client_secret?: string;
  api_key?: string;
}

/**
 * Why a connector call failed. `auth` and `host_not_allowed` (a host that is not an http(s) URL,
 * or that the `hostPolicy` refuses) stop retries and mark the configuration invalid.
 */
export type HrmsErrorKind = 'auth' | 'host_not_allowed' | 'rate_limited' | 'unavailable' | 'bad_response' | 'not_found';

/**
 * Error thrown by connectors. `message` never carries credentials or employee values.
 * `retryAfterMs` is set from a `Retry-After` header when the HRMS sent one.
 */
export class HrmsError extends Error {
  constructor(
    readonly kind: HrmsErrorKind,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'HrmsError';
  }
}

/** One page of employees as the connector yields it. */
export interface EmployeePage {
  /** 1-based page number of the HRMS. */
  page: number;
  /** Total employees the HRMS reports, when it does. */
  total?: number;
  employees: PartialEmployeeRecord[];
}

export interface ConnectorOptions {
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Retries per request on 429/5xx/network errors (default 5); `auth` errors are never retried. */
  retries?: number;
  /** Base of the exponential backoff in ms (default 250); a `Retry-After` header wins. */
  minRetryDelayMs?: number;
  /** Upper bound of one backoff wait in ms (default 30 000). */
  maxRetryDelayMs?: number;
  /** Page size requested from the HRMS (default 200). */
  pageSize?: number;
  /** Called before each retry, for logs; gets no secrets. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /**
   * Which hosts the connector may call (`src/hrms/host-policy.ts`): its HTTP client checks the
   * URL up front and resolves names through the policy's lookup and agents, so every connection
   * goes to an address the policy allows. Absent: any http(s) host (HRX_HRMS_ALLOW_PRIVATE_HOSTS=1).
   * Refusals are `HrmsError('host_not_allowed')`.
   */
  hostPolicy?: HostPolicy;
  /**
   * Aborts every call of the connector (in flight, and retries waiting) once it fires: a sync
   * whose HRMS stopped answering or that lost its lock gives up (sync/service.ts).
   */
  signal?: AbortSignal;
  /**
   * Largest response body accepted, in bytes after decompression (default 64 MiB, decisions
   * §11); a larger one aborts that request as `HrmsError('bad_response')`, not retried.
   */
  maxResponseBytes?: number;
}

/** A connector bound to one client org's credentials. */
export interface HrmsConnector {
  /**
   * Checks the credentials with one call (token request or one cheap read), within the
   * configured timeout. Throws `HrmsError` (`auth` when the HRMS rejects them).
   */
  verifyCredentials(): Promise<void>;
  /**
   * Streams every employee, page by page, in a stable order. Each page request is retried on its
   * own (429 honouring `Retry-After`, 5xx, network errors), so a transient failure neither loses
   * nor repeats a page. Throws `HrmsError` once retries are exhausted or on `auth`.
   */
  listEmployees(): AsyncIterable<EmployeePage>;
  /** Live read of one employee by its HRMS employee id; `null` when the HRMS has none. */
  getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null>;
}

/** Builds a connector for an `hrms_id` (decisions §5: `reference` is always supported). */
export type ConnectorFactory = (credentials: HrmsCredentials, options?: ConnectorOptions) => HrmsConnector;
