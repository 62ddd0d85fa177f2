/**
 * Connector for `hrms_id` `reference`: the reference HRMS simulator's API (`src/hrms/sim/server.ts`).
 * HTTP through got (one attempt per call, `throwHttpErrors: false`, explicit status handling);
 * retries through p-retry with exponential backoff that honours `Retry-After` (RFC 9110 §10.2.3).
 * Auth: OAuth2 client credentials (RFC 6749 §4.4, client authenticated with HTTP Basic per §2.3.1),
 * token cached until shortly before `expires_in` and refreshed once on a 401; or an `X-Api-Key`.
 * Error messages name the operation and the HTTP status only: never credentials, tokens, hosts
 * or employee values.
 */
import { z } from 'zod';
import {
  HrmsError,
  type ConnectorFactory,
  type ConnectorOptions,
  type EmployeePage,
  type HrmsAccess,
  type HrmsConnector,
  type HrmsCredentials,
  type ListOptions,
  type PayMonthEntry,
  type PayMonthsOptions,
  type PayMonthsPage,
} from '../connector';
import { basicAuth, CONNECTOR_DEFAULTS, HrmsHttpClient, parseJson, statusError, type HrmsResponse } from '../http-client';
import { matchCursor } from '../cursor';
import { TokenCache, type IssuedToken } from '../token-cache';
import { cachedTokens, TokenSession } from '../token-session';
import type { PartialEmployeeRecord } from '../../domain/record';
import { mapEmployee, mapPayMonth } from './mapping';

/** Defaults of `ConnectorOptions` (connector.ts documents each). */
export const REFERENCE_DEFAULTS = CONNECTOR_DEFAULTS;

/** OAuth2 error codes of RFC 6749 §5.2: safe to quote in messages (they carry no secrets). */
const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope']);

const TokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer'),
  expires_in: z.number().positive().optional(),
});

const Meta = z
  .object({
    page: z.number().optional(),
    per_page: z.number().int().positive().optional(),
    total: z.number().int().nonnegative().optional(),
    total_pages: z.number().int().nonnegative().optional(),
  })
  .optional();

const PayrollResponse = z.object({ pay_months: z.array(z.unknown()), meta: Meta });

const PageResponse = z.object({ employees: z.array(z.unknown()), meta: Meta });

function oauthError(res: HrmsResponse): string {
  try {
    const err = (JSON.parse(res.body) as { error?: unknown }).error;
    return typeof err === 'string' && OAUTH_ERRORS.has(err) ? ` ${err}` : '';
  } catch {
    return '';
  }
}

/** The page a reference cursor names: the decimal page number it holds (contract v2 keeps it opaque to callers). */
function pageOf(cursor: string | undefined): number {
  if (cursor === undefined) return 1;
  return Number(matchCursor(cursor, /^[1-9]\d{0,8}$/, 'the reference HRMS')[0]);
}

class ReferenceConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private readonly creds: HrmsCredentials;
  /** This connector's own token (the reference HRMS is a trial: no token is shared across connectors). */
  private readonly tokens = new TokenCache(1);
  private readonly session = new TokenSession(cachedTokens(this.tokens, { key: () => 'reference', issue: () => this.requestToken() }));

  constructor(access: HrmsAccess, options: ConnectorOptions) {
    this.creds = access.credentials;
    this.client = new HrmsHttpClient(options, 'hrx-reference-connector');
  }

  private url(path: string): URL {
    return this.client.url(this.creds.hrms_host, path);
  }

  private checkGrant(): 'client_credentials' | 'api_key' {
    const { grant_type: grant, client_id: id, client_secret: secret, api_key: key } = this.creds;
    if (grant === 'client_credentials') {
      if (!id || !secret) throw new HrmsError('auth', 'client_credentials needs client_id and client_secret');
      return grant;
    }
    if (grant === 'api_key') {
      if (!key) throw new HrmsError('auth', 'api_key grant needs an api_key');
      return grant;
    }
    throw new HrmsError('auth', 'unsupported grant_type for the reference HRMS');
  }

  /** Token request of RFC 6749 §4.4.2; the session caches the token until 10% (at most 60 s) before expiry. */
  private async requestToken(): Promise<IssuedToken> {
    const what = 'token request';
    const res = await this.client.tokenRequest(
      this.url('oauth/token'),
      { grant_type: 'client_credentials' },
      { authorization: basicAuth(this.creds.client_id ?? '', this.creds.client_secret ?? '', true) },
    );
    if (res.statusCode === 400 || res.statusCode === 401 || res.statusCode === 403) {
      throw new HrmsError('auth', `HRMS rejected the client credentials (HTTP ${res.statusCode}${oauthError(res)})`, res.statusCode);
    }
    if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
    const parsed = TokenResponse.safeParse(parseJson(res, what));
    if (!parsed.success) throw new HrmsError('bad_response', 'HRMS token response lacks a bearer access_token', res.statusCode);
    return { value: parsed.data.access_token, ttlMs: (parsed.data.expires_in ?? 3600) * 1000 };
  }

  /** Authenticated GET; with client credentials a 401 drops the token and is retried once with a new one. */
  private async apiGet(path: string, what: string): Promise<HrmsResponse> {
    if (this.checkGrant() === 'api_key') return this.client.request(this.url(path), what, { headers: { 'x-api-key': this.creds.api_key! } });
    return this.session.bearerGet(this.client, this.url(path), what);
  }

  /** One attempt, no retries (docs/behaviour.md "Setup config": one call, no retry): a token request, or one 1-item page with an API key. */
  async verifyCredentials(): Promise<void> {
    if (this.checkGrant() === 'client_credentials') {
      this.tokens.clear();
      await this.session.token();
      return;
    }
    const res = await this.apiGet('api/v1/employees?page=1&per_page=1', 'credential check');
    if (res.statusCode !== 200) throw statusError(res.statusCode, 'credential check', res.headers['retry-after']);
  }

  /**
   * Pages from the cursor's (1 when absent) to total_pages, each fetched (and retried) only when
   * the consumer asks for it; each page's `next` cursor is the following page number. The
   * reference API has no change listing: `since` is ignored (its definition says so).
   */
  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    let previousFirst: string | undefined;
    for (let page = pageOf(options.cursor); ; page++) {
      const what = `employee page ${page}`;
      const data = await this.client.withRetry(async () => {
        const res = await this.apiGet(`api/v1/employees?page=${page}&per_page=${this.client.opts.pageSize}`, what);
        if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
        const parsed = PageResponse.safeParse(parseJson(res, what));
        if (!parsed.success) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`, res.statusCode);
        return parsed.data;
      });
      const employees = data.employees.map((e) => mapEmployee(e));
      const first = employees[0]?.employeeId;
      if (page > 1 && employees.length > 0 && first === previousFirst) {
        throw new HrmsError('bad_response', `HRMS repeated the previous page at ${what}`);
      }
      previousFirst = first;
      if (employees.length === 0 && page > 1) return;
      const totalPages = data.meta?.total_pages;
      const done =
        employees.length === 0 || (totalPages !== undefined ? page >= totalPages : employees.length < (data.meta?.per_page ?? this.client.opts.pageSize));
      yield { employees, ...(data.meta?.total !== undefined ? { total: data.meta.total } : {}), ...(done ? {} : { next: String(page + 1) }) };
      if (done) return;
    }
  }

  /**
   * The reference payroll API (`GET /api/v1/payroll/months?months=K`, docs/pay-history.md "Where
   * months come from"): pages of employees' `months` newest pay months, paged as the employee
   * list (the cursor is the page number), each page retried on its own. A page names at most
   * `pageSize` employees and about {@link PAY_PAGE_MONTHS} months (fewer employees the more
   * months each carries), so a backfill holds no more at once than an employee page does
   * (docs/sync.md "Memory and throughput"). An entry naming no employee or no valid month is left out.
   */
  async *listPayMonths(options: PayMonthsOptions): AsyncGenerator<PayMonthsPage> {
    const months = Math.min(36, Math.max(1, Math.floor(options.months)));
    const perPage = Math.max(1, Math.min(this.client.opts.pageSize, Math.floor(PAY_PAGE_MONTHS / months)));
    for (let page = pageOf(options.cursor); ; page++) {
      const what = `payroll page ${page}`;
      const data = await this.client.withRetry(async () => {
        const res = await this.apiGet(`api/v1/payroll/months?months=${months}&page=${page}&per_page=${perPage}`, what);
        if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
        const parsed = PayrollResponse.safeParse(parseJson(res, what));
        if (!parsed.success) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`, res.statusCode);
        return parsed.data;
      });
      const entries: PayMonthEntry[] = [];
      for (const raw of data.pay_months) {
        const mapped = mapPayMonth(raw);
        if (mapped) entries.push({ employeeId: mapped.employeeId, month: { ...mapped.month, month: mapped.month.month!, year: mapped.month.year! } });
      }
      const totalPages = data.meta?.total_pages ?? page;
      const done = page >= totalPages;
      yield { entries, ...(done ? {} : { next: String(page + 1) }) };
      if (done) return;
    }
  }

  /**
   * `GET /api/v1/employees/{id}` with retries; 404 gives `null`, and so does, without any call,
   * an id that cannot name one employee: blank, holding NUL, or made only of dots (`.` and `..`
   * are dot-segments that URL resolution would turn into the collection or its parent).
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (id === '' || /^\.+$/.test(id) || id.includes('\u0000')) return null;
    const what = 'employee lookup';
    const native = await this.client.retriedJson(() => this.apiGet(`api/v1/employees/${encodeURIComponent(id)}`, what), what, { nullOn: [404] });
    return native === null ? null : mapEmployee(native);
  }
}

/** About how many pay months one payroll page carries at most (24-month backfill: pages of 41 employees). */
export const PAY_PAGE_MONTHS = 1000;

/**
 * Builds the connector for `hrms_id` `reference`. Never throws itself: bad credentials shapes
 * (unknown grant_type, missing secret) surface as `HrmsError('auth')`, an invalid or refused
 * host as `HrmsError('host_not_allowed')`, on first use.
 */
export const createReferenceConnector: ConnectorFactory = (access, options = {}) => new ReferenceConnector(access, options);
