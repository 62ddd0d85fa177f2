/**
 * The HRMS connector contract. A connector talks to one kind of HRMS over HTTP and turns its
 * native employee data into partial employee records. It knows nothing of the store or of hrx's
 * HTTP routes (docs/architecture.md).
 */
import type { DeepPartial, MonthlyDetails, PartialEmployeeRecord } from '../domain/record';
import type { HostPolicy } from '../outbound/host-policy';

/** Access credentials as stored from setup-config (docs/api.md "Setup config"; docs/hrms/connectors.md says which field holds what for each product). */
export interface HrmsCredentials {
  /** Base URL of the HRMS, e.g. `http://127.0.0.1:9100`. */
  hrms_host: string;
  /** The product's grant (docs/behaviour.md "Sync", docs/hrms/connectors.md): `client_credentials`, `api_key`, `kekaapi`, `basic`, `refresh_token`, `saml2_bearer`. */
  grant_type: string;
  client_id?: string;
  client_secret?: string;
  api_key?: string;
  /**
   * Label tables for numeric enumerations (the products that take them say so on their page, docs/hrms/README.md): per
   * product field, code → hrx word. The setup-config counterpart of `ConnectorOptions.enumLabels`.
   */
  enum_labels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /**
   * The TLS client certificate hrx presents to the HRMS (mutual TLS, RFC 8446 §4.4.2), PEM; with
   * `tls_client_key`. Only the products whose page says so take it (src/hrms/tls-client.ts checks it).
   */
  tls_client_cert?: string;
  /** The private key of `tls_client_cert`, PEM (PKCS#8 or PKCS#1/SEC1), unencrypted. A secret. */
  tls_client_key?: string;
  /**
   * The currency the HRMS's payroll pays in, as the employer declares it (ISO 4217): hrx stores pay
   * amounts only in rupees (docs/hrms/connectors.md "Values keep their meaning"), so only the
   * products whose page offers it take it, and only `INR`.
   */
  payroll_currency?: string;
}

/** One `api_configs` entry of setup-config: another endpoint of the same HRMS, named by `api_id` (docs/hrms/connectors.md). */
export interface HrmsApiConfig {
  api_id: string;
  access_credentials: HrmsCredentials;
}

/** Everything a connector is bound to: the main credentials and the `api_configs` entries. */
export interface HrmsAccess {
  credentials: HrmsCredentials;
  apiConfigs: readonly HrmsApiConfig[];
}

/**
 * The `hrms_host` of the `api_configs` entry named `apiId`, else `fallback(hostname)`: the
 * product's own default for that endpoint (e.g. Keka's token service, Zoho's Accounts host,
 * greytHR's data API), derived from the hostname of the main `hrms_host` (null when that is not
 * a URL) where the product ties the two (docs/hrms/connectors.md).
 */
export function apiConfigHost(access: HrmsAccess, apiId: string, fallback: (hostname: string | null) => string): string {
  const configured = access.apiConfigs.find((a) => a.api_id === apiId)?.access_credentials.hrms_host;
  if (configured) return configured;
  let hostname: string | null = null;
  try {
    hostname = new URL(access.credentials.hrms_host).hostname;
  } catch {
    // Not a URL: the product's plain default (setup-config refuses such a host before any call).
  }
  return fallback(hostname);
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

/**
 * An `auth` error one setup-config field is to blame for (a product's second key, e.g. Darwinbox's
 * payroll API key at `api_configs.<i>.access_credentials.api_key`): setup-config answers 400
 * naming `field`. `message` never carries the key.
 */
export class HrmsFieldError extends HrmsError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('auth', message);
    this.name = 'HrmsFieldError';
  }
}

/** One page of employees as the connector yields it (contract v2: opaque cursors, no page numbers). */
export interface EmployeePage {
  /** Employees of this page, mapped into partial records (docs/hrms/connectors.md: nothing guessed). */
  employees: PartialEmployeeRecord[];
  /**
   * HRMS employee ids the HRMS reports as gone (deleted, or left the listed population) since
   * `ListOptions.since`; only on incremental listings of products that can tell (else absent).
   */
  removedIds?: string[];
  /** Total employees the HRMS reports for the listing, when it does. */
  total?: number;
  /**
   * Opaque cursor that resumes the listing right after this page (`ListOptions.cursor`);
   * absent on the last page. Only the connector that made it understands it.
   */
  next?: string;
}

/**
 * One pay month of one employee as a product's payroll API reports it (docs/sync.md "Pay history"):
 * the record's `monthly` shape, `month` and `year` required, everything the API does not give
 * left out (never guessed).
 */
export interface PayMonthEntry {
  /** The HRMS employee id, as `listEmployees` yields it. */
  employeeId: string;
  month: DeepPartial<MonthlyDetails> & { month: number; year: number };
}

/** One page of pay months (`HrmsConnector.listPayMonths`). */
export interface PayMonthsPage {
  entries: PayMonthEntry[];
  /** Opaque cursor resuming after this page; absent on the last page. */
  next?: string;
}

/** Which pay months to read: the `months` most recent pay periods the payroll has closed. */
export interface PayMonthsOptions {
  /** How many months back from the latest closed one (24 on the first full sync, 2 after). */
  months: number;
  cursor?: string;
}

/** How to list (contract v2). */
export interface ListOptions {
  /** Resume after the page that returned this `next` cursor; absent: from the start. */
  cursor?: string;
  /**
   * Incremental listing: only employees changed at or after this instant, plus `removedIds`.
   * Only passed to connectors whose definition has `incremental: true`.
   */
  since?: Date;
}

/**
 * The request budget of one HRMS tenant, shared by every hrx worker (docs/behaviour.md "Live reads and the HRMS budget"). The
 * connector calls `take` before every HTTP request to the HRMS and `holdOff` when the HRMS says
 * to stop (429/lock-out with a known wait), so no worker asks again before then.
 */
/** Reports a budgeted request answered or failed (never throws). */
export type BudgetDone = () => Promise<void>;

export interface RequestBudget {
  /**
   * Resolves when one request may be made; waits (never fails) unless `signal` aborts. May
   * resolve with `done`, to call once that request was answered or failed: its slot then counts
   * from that instant rather than from the take's bound (docs/behaviour.md "Live reads and the
   * HRMS budget": the sliding window).
   */
  take(signal?: AbortSignal): Promise<BudgetDone | void>;
  /** Nobody calls this tenant for `ms` milliseconds (a longer hold already set wins). */
  holdOff(ms: number): Promise<void>;
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
   * Told how the HRMS is doing, for a sync's stall guard (docs/behaviour.md "Waiting is not
   * stalling"): `answered` on every answer (any HTTP status, or a chunk of a streamed body),
   * `waiting` when a wait after an answer begins (the backoff the HRMS asked for: a throttling
   * signal, a `Retry-After`, a 5xx) and `resumed` when it ends. Must not throw.
   */
  onActivity?: (event: 'answered' | 'waiting' | 'resumed') => void;
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
   * Largest response body accepted, in bytes after decompression (default 64 MiB,
   * docs/limits.md); a larger one aborts that request as `HrmsError('bad_response')`, not retried.
   */
  maxResponseBytes?: number;
  /**
   * Largest streamed response body (a whole dataset read chunk by chunk, Darwinbox), in bytes
   * after decompression (default 1 GiB). Memory stays flat whatever its size, so this only stops
   * an answer that never ends; past it: `HrmsError('bad_response')`, not retried.
   */
  maxStreamedBytes?: number;
  /** The tenant's shared request budget (docs/behaviour.md "Live reads and the HRMS budget"); absent: unlimited (tests, live reads' one call). */
  budget?: RequestBudget;
  /**
   * Called when the connector leaves a field empty because it cannot translate the HRMS's value
   * (docs/hrms/connectors.md: e.g. a number it has no label for), at most once per field per connector
   * instance. `field` names the product's field (e.g. `gender`), never the value.
   */
  onWarning?: (warning: { field: string; reason: string }) => void;
  /**
   * Label tables for enumerations a product sends as numbers whose meaning it does not publish
   * (Keka): per product field, code → hrx word (for Keka's `groupType`: the record field the
   * group fills). A table given for a field replaces the product's default table for that field;
   * each connector documents its fields and defaults.
   */
  enumLabels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** A connector bound to one client org's credentials. */
export interface HrmsConnector {
  /**
   * Checks the credentials with one call (token request or one cheap read), within the
   * configured timeout. Throws `HrmsError` (`auth` when the HRMS rejects them).
   */
  verifyCredentials(): Promise<void>;
  /**
   * Streams every employee (or, with `since`, every changed one), page by page, in a stable
   * order. Each page request is retried on its own (429 honouring `Retry-After`, 5xx, network
   * errors, an expired token refreshed once), so a transient failure neither loses nor repeats a
   * page. Throws `HrmsError` once retries are exhausted or on `auth`.
   */
  listEmployees(options?: ListOptions): AsyncIterable<EmployeePage>;
  /** Live read of one employee by its HRMS employee id; `null` when the HRMS has none. */
  getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null>;
  /**
   * Pay months from the product's payroll API, page by page, through the same budget, retries and
   * cancellation as `listEmployees`. Present only on products whose definition names a `payroll`
   * source. Throws `HrmsError` as `listEmployees` does.
   */
  listPayMonths?(options: PayMonthsOptions): AsyncIterable<PayMonthsPage>;
}

/** Builds a connector for an `hrms_id` bound to one org's access (docs/behaviour.md "Sync": `reference` is always supported). */
export type ConnectorFactory = (access: HrmsAccess, options?: ConnectorOptions) => HrmsConnector;

/** A problem with setup-config's credentials for a product: `field` is the body path, e.g. `access_credentials.api_key`. */
export interface CredentialProblem {
  field: string;
  message: string;
}

/**
 * Everything hrx knows of one HRMS product's connector (docs/hrms/connectors.md). The registry holds one per
 * `hrms_id`; setup-config checks credentials with `checkCredentials`, the sync builds the
 * tenant's shared budget from `budget` and `tenantOf`, and runs incremental syncs when
 * `incremental` is true.
 */
export interface HrmsConnectorDefinition {
  hrmsId: string;
  /**
   * Problems of `access` for this product, in body order, each naming its field (e.g.
   * `access_credentials.api_key` "required for <hrms_id>"); empty when usable. Shape only: no call.
   */
  checkCredentials(access: HrmsAccess): CredentialProblem[];
  /** The product's published request limit for one tenant: `requests` per `windowMs`. */
  budget: { requests: number; windowMs: number };
  /** A stable key of the tenant `access` addresses (e.g. the host), scoping the shared budget. Holds no secret. */
  tenantOf(access: HrmsAccess): string;
  /** Whether `listEmployees({ since })` lists changes since an instant. */
  incremental: boolean;
  /**
   * Whether an incremental listing reports removed employees (`EmployeePage.removedIds`); absent
   * means it does. A product that cannot (Keka, Zoho People, Darwinbox: a deleted employee simply stops
   * being listed, and an exit is a change) leaves removals to the next full sync, which runs at
   * least daily (docs/hrms/connectors.md).
   */
  reportsRemovals?: boolean;
  /**
   * The product's payroll API that backfills pay history (docs/sync.md "Pay history"), as its
   * README names it (e.g. Keka's pay register); absent: the product publishes none, and pay months
   * come only from the synced record's `monthly` and the update webhook.
   */
  payroll?: { source: string };
  create: ConnectorFactory;
}
