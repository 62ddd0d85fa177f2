/**
 * Connector for `hrms_id` `adp_wfn`: ADP Workforce Now's Worker Management API v2
 * (src/hrms/adp_wfn/README.md "How hrx reads it"; the rules, each with its sample file and line,
 * in `openapi/rules.yaml`, from github `adpllc/marketplace-sample-payloads`, `wfn/`).
 *
 * - Token: `POST {token host}/auth/oauth/v2/token`, form `grant_type=client_credentials&client_id&client_secret`
 *   (the samples' "Access token" request, `wfn/hr/workers-v2/postman-collection`) → `{access_token,
 *   expires_in}`; a 400/401 is `auth`. Token host: the `api_configs` entry `token`, else
 *   `https://accounts.adp.com` for `https://api.adp.com`, else `hrms_host` itself (the samples'
 *   test host `iat-api.adp.com` serves both). Tokens are cached per process ({@link TokenCache}).
 * - Full listing: `GET /hr/v2/workers?$top=<size>&$skip=<offset>` (the samples' "Retrieve the worker
 *   response using top and Skip parameters") → `{workers: [...]}`; every worker whatever its status
 *   (the samples' unfiltered listing holds `T` Terminated assignments). The listing ends on HTTP 204
 *   or an empty `workers`, never on a short page (a server may answer fewer than `$top`).
 *   Cursor: `skip:<workers already yielded>` (`offsetCursor`).
 * - Live read: `GET /hr/v2/workers/{associateOID}` → `{workers: [one]}`; 204 and 404 are null.
 * - No change-time filter in the samples: full syncs only (`incremental: false`).
 * - Pay months: the Payroll Output API v2's completed runs, one request per run (`payroll.ts`;
 *   README.md "Pay history"); amounts only with the `api_configs` entry `payroll_inr`.
 * - Errors: ADP's `confirmMessage` body (`wfn/hr/Worker-read/errors/…-http-400-response.json`) is
 *   never quoted: a status is answered as every product's (`statusError`): 401/403 `auth` (after
 *   one new token), 429 waits `Retry-After`, 5xx retried.
 * - Mutual TLS: ADP's production hosts ask for the client certificate ADP issued (README.md "Mutual
 *   TLS"); given (`tls_client_cert`, `tls_client_key`), the HTTP client presents it on every
 *   request, token requests included. A handshake ADP ends over the certificate is an
 *   `HrmsFieldError` naming `access_credentials.tls_client_cert`.
 */
import { z } from 'zod';
import {
  apiConfigHost,
  HrmsError,
  type ConnectorFactory,
  type ConnectorOptions,
  type EmployeePage,
  type HrmsAccess,
  type HrmsConnector,
  type ListOptions,
  type PayMonthsOptions,
  type PayMonthsPage,
} from '../connector';
import { offsetCursor } from '../cursor';
import { HrmsHttpClient, parseJson, statusError, type HrmsResponse } from '../http-client';
import { isObj, warnOnce, type FieldWarner } from '../decode';
import { clientCertificateOf } from '../tls-client';
import { TokenCache } from '../token-cache';
import { cachedTokens, TokenSession } from '../token-session';
import type { PartialEmployeeRecord } from '../../domain/record';
import { mapAdpWfnWorker } from './mapping';
import { adpPayMonths } from './payroll';

/** The most workers one page holds: `$top` at most 100 (known second-hand, not in the samples, which page by 5 and 50: B:323, B:510). */
export const ADP_WFN_MAX_PAGE = 100;
/** ADP's API host, shared by every company (so the tenant is the host plus the client id). */
export const ADP_API_HOST = 'https://api.adp.com';
/** ADP's token host for {@link ADP_API_HOST}. */
export const ADP_TOKEN_HOST = 'https://accounts.adp.com';
const WORKERS = 'hr/v2/workers';
/** An associate OID as the samples write it (`G3CHQPRW483NMFGA`): letters and digits only. */
const AOID = /^[A-Za-z0-9]{1,64}$/;
/** `skip:<workers already yielded>`. */
const CURSOR = offsetCursor(['skip'] as const, 'the ADP Workforce Now connector');

const tokens = new TokenCache();
const TokenResponse = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive().optional() });
const WorkersResponse = z.object({ workers: z.array(z.unknown()) });

class AdpWfnConnector implements HrmsConnector {
  private readonly session = new TokenSession(cachedTokens(tokens, { key: () => this.tokenKey(), issue: () => this.requestToken() }));
  private readonly client: HrmsHttpClient;
  private readonly warn: FieldWarner;

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-adp-wfn-connector', clientCertificateOf(access.credentials));
    this.warn = warnOnce(options.onWarning);
  }

  private get creds() {
    return this.access.credentials;
  }

  private tokenHost(): string {
    return apiConfigHost(this.access, 'token', (hostname) => (hostname === new URL(ADP_API_HOST).hostname ? ADP_TOKEN_HOST : this.creds.hrms_host));
  }

  private tokenKey(): string {
    return TokenCache.keyOf('adp_wfn', this.tokenHost(), this.creds.client_id ?? '', this.creds.client_secret ?? '');
  }

  /**
   * The client-credentials token request. 400/401 (RFC 6749 §5.2) are `auth`; an answer that is not
   * a token (an HTML page, no `access_token`) is `bad_response` with its status, never quoted.
   */
  private async requestToken(): Promise<{ value: string; ttlMs: number }> {
    const { client_id: id, client_secret: secret } = this.creds;
    if (!id || !secret) throw new HrmsError('auth', 'ADP Workforce Now needs a client id and a client secret');
    const what = 'token request';
    const res = await this.client.tokenRequest(this.client.url(this.tokenHost(), 'auth/oauth/v2/token'), {
      grant_type: 'client_credentials',
      client_id: id,
      client_secret: secret,
    });
    if (res.statusCode === 400 || res.statusCode === 401) {
      throw new HrmsError('auth', `ADP refused the client credentials (HTTP ${res.statusCode})`, res.statusCode);
    }
    if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
    const parsed = TokenResponse.safeParse(parseJson(res, what));
    if (!parsed.success) throw new HrmsError('bad_response', 'ADP token response lacks an access_token', res.statusCode);
    return { value: parsed.data.access_token, ttlMs: (parsed.data.expires_in ?? 3_600) * 1000 };
  }

  /** GET with the cached token; a 401 drops it and the call is made once more with a new one. */
  private get(url: URL, what: string): Promise<HrmsResponse> {
    return this.session.bearerGet(this.client, url, what, { accept: 'application/json' });
  }

  /** The `workers` of one answer, retried; `[]` for 204 (and for `emptyOn`'s statuses); `bad_response` for another shape. */
  private workers(url: URL, what: string, emptyOn: readonly number[] = []): Promise<unknown[]> {
    return this.client.withRetry(async () => {
      const res = await this.get(url, what);
      if (res.statusCode === 204 || emptyOn.includes(res.statusCode)) return [];
      if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
      const parsed = WorkersResponse.safeParse(parseJson(res, what));
      if (!parsed.success) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`, res.statusCode);
      return parsed.data.workers;
    });
  }

  private pageUrl(skip: number, top: number): URL {
    const url = this.client.url(this.creds.hrms_host, WORKERS);
    url.searchParams.set('$top', String(top));
    url.searchParams.set('$skip', String(skip));
    return url;
  }

  /** A token and a one-worker page, which checks the API address too; no retries (docs/behaviour.md "Sync"). */
  async verifyCredentials(): Promise<void> {
    const what = 'credential check';
    const res = await this.get(this.pageUrl(0, 1), what);
    if (res.statusCode === 204) return;
    if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
    parseJson(res, what);
  }

  /** Every worker, `$top` at a time, until ADP answers 204 or no workers; `since` is not ADP's to filter (full listing). */
  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    let skip = CURSOR.offsetIn(options.cursor, 'skip');
    const top = Math.min(ADP_WFN_MAX_PAGE, this.client.opts.pageSize);
    for (;;) {
      const workers = await this.workers(this.pageUrl(skip, top), `worker page at ${skip}`);
      if (workers.length === 0) {
        yield { employees: [] };
        return;
      }
      skip += workers.length;
      yield { employees: this.mapped(workers), next: CURSOR.encode('skip', skip) };
    }
  }

  private mapped(workers: unknown[]): PartialEmployeeRecord[] {
    return workers.filter(isObj).flatMap((w) => {
      const record = mapAdpWfnWorker(w, this.warn);
      if (record.employeeId) return [record];
      this.warn('associateOID', 'record without an id left out');
      return [];
    });
  }

  /** The pay months of the newest `months` months of completed payroll runs (payroll.ts; README.md "Pay history"). */
  listPayMonths(options: PayMonthsOptions): AsyncGenerator<PayMonthsPage> {
    return adpPayMonths(
      {
        json: (url, what) =>
          this.client.withRetry(async () => {
            const res = await this.get(url, what);
            if (res.statusCode === 204) return undefined;
            if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
            return parseJson(res, what);
          }),
        url: (path) => this.client.url(this.creds.hrms_host, path),
        inr: paysInRupees(this.access),
        warn: this.warn,
      },
      options,
    );
  }

  /** Live read by associate OID; null for 204/404 and, without a call, for an id that is no AOID. */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (!AOID.test(id)) return null;
    const workers = await this.workers(this.client.url(this.creds.hrms_host, `${WORKERS}/${id}`), 'worker lookup', [404]);
    const match = workers.filter(isObj).find((w) => w.associateOID === id);
    return match ? mapAdpWfnWorker(match, this.warn) : null;
  }
}

/**
 * The `api_configs` entry by which the employer declares its ADP payroll paid in rupees (README.md
 * "Pay history"); kept for the setups made with it. The Connect page's field is `payroll_currency`.
 */
export const ADP_PAYROLL_INR = 'payroll_inr';

/** Whether the employer declared its ADP payroll paid in rupees: `payroll_currency` `INR` or the `payroll_inr` entry. */
export function paysInRupees(access: HrmsAccess): boolean {
  return access.credentials.payroll_currency?.trim().toUpperCase() === 'INR' || access.apiConfigs.some((a) => a.api_id === ADP_PAYROLL_INR);
}

/** Builds the connector for `hrms_id` `adp_wfn`. Never throws itself: missing credentials are `HrmsError('auth')` on first use. */
export const createAdpWfnConnector: ConnectorFactory = (access, options = {}) => new AdpWfnConnector(access, options);
