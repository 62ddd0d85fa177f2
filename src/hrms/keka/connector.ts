/**
 * Connector for `hrms_id` `keka` (docs/hrms/connectors.md): Keka HR's public API.
 *
 * - Token (https://developers.keka.com/reference, Airbyte `source-keka`): `POST {token host}/connect/token`,
 *   form `grant_type=kekaapi&scope=kekaapi&client_id&client_secret&api_key` → `{access_token,
 *   expires_in, token_type}`; a refusal is HTTP 400 `{"error": …}`. Token host: the `api_configs`
 *   entry `token`, else `https://login.keka.com` (`https://login.kekademo.com` for a
 *   `*.kekademo.com` sandbox). Tokens (24 h) are cached per process ({@link TokenCache}).
 * - Data: `GET {hrms_host}/api/v1/hris/employees?employmentStatus=…&pageNumber&pageSize[&lastModified]`
 *   with `Authorization: Bearer`; envelope `{succeeded, message, errors, data[], pageNumber,
 *   pageSize, totalPages, totalRecords, nextPage, previousPage}`. `pageSize` at most 200.
 *   `nextPage` (an absolute URL, or null on the last page) is followed only on `hrms_host`'s
 *   origin (HrmsHttpClient.url); absent, `pageNumber`/`totalPages` (or a short page) end the listing.
 * - Two listings, `employmentStatus=Working` then `Relieved` (documented filter values): every
 *   employee whatever Keka's unfiltered default is, and `status` from the filter (Keka's numeric
 *   `employmentStatus` has no published meaning).
 * - Incremental: `lastModified` (ISO 8601 with offset) on both listings. Keka has no listing of
 *   deleted employees: an exit shows as the employee listed under `Relieved` with its exit date;
 *   a deletion is found by the next full sync only, so `removedIds` is never reported.
 * - Throttling: 50 requests a minute, refilled every 60 s; over it HTTP 429 (`rateLimitExceeded`)
 *   with no documented `Retry-After` (https://developers.keka.com/reference/rate-limit): the wait
 *   is the header when sent, else longer and longer up to a refill interval ({@link ThrottleWaits}),
 *   held on the tenant's budget.
 * - Keka asks non-browser clients to send a `User-Agent` (HrmsHttpClient always does).
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
import { HrmsHttpClient, parseJson, parseRetryAfter, statusError, type HrmsResponse } from '../http-client';
import { jsonCursor } from '../cursor';
import { warnOnce } from '../decode';
import { ThrottleWaits } from '../throttle';
import { TokenCache } from '../token-cache';
import { cachedTokens, TokenSession } from '../token-session';
import type { PartialEmployeeRecord } from '../../domain/record';
import { kekaLabels, mapKekaEmployee, type KekaMappingContext } from './mapping';
import { kekaPayMonths } from './payroll';

/** Keka's page size limit (`pageSize`, "Max is 200"). */
export const KEKA_MAX_PAGE_SIZE = 200;
/** Keka's refill interval: the longest wait after a 429 without `Retry-After` ({@link ThrottleWaits}). */
export const KEKA_REFILL_MS = 60_000;
const PRODUCTION_TOKEN_HOST = 'https://login.keka.com';
const SANDBOX_TOKEN_HOST = 'https://login.kekademo.com';
const EMPLOYEES_PATH = 'api/v1/hris/employees';
/** The two documented `employmentStatus` filter values, in listing order, and the hrx status each means. */
const LISTINGS = [
  { filter: 'Working', status: 'Active' },
  { filter: 'Relieved', status: 'Inactive' },
] as const;
const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope']);

const tokens = new TokenCache();

const TokenResponse = z.object({ access_token: z.string().min(1), expires_in: z.number().positive().optional() });
const PageResponse = z.object({
  succeeded: z.boolean().optional(),
  data: z.array(z.unknown()).nullable(),
  pageNumber: z.number().int().optional(),
  pageSize: z.number().int().optional(),
  totalPages: z.number().int().nonnegative().optional(),
  totalRecords: z.number().int().nonnegative().optional(),
  nextPage: z.string().nullable().optional(),
});
type Page = z.infer<typeof PageResponse>;

/** Product-specific tuning, for tests and benchmarks against a simulator with a shortened window. */
export interface KekaTuning {
  /** Longest wait after a 429 without `Retry-After`, ms (default {@link KEKA_REFILL_MS}). */
  refillMs?: number;
}

/** Where a listing resumes: listing index (0 Working, 1 Relieved) and the page link, if mid-listing. */
interface KekaCursor {
  listing: number;
  link?: string;
}

const CURSORS = jsonCursor<KekaCursor>(
  z.object({ listing: z.union([z.literal(0), z.literal(1)]), link: z.string().startsWith('/').optional() }),
  'the keka connector',
);

/** ISO 8601 with an offset and whole seconds, rounded down (Keka's `lastModified` format). */
function isoSeconds(d: Date): string {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(/\.000Z$/, '+00:00');
}

class KekaConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private readonly ctx: KekaMappingContext;
  private readonly throttled: ThrottleWaits;
  private readonly session = new TokenSession(cachedTokens(tokens, { key: () => this.tokenKey(), issue: () => this.requestToken() }));

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
    tuning: KekaTuning,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-keka-connector');
    this.ctx = { labels: kekaLabels({ ...access.credentials.enum_labels, ...options.enumLabels }), warn: warnOnce(options.onWarning) };
    this.throttled = new ThrottleWaits(this.client.opts.minRetryDelayMs, tuning.refillMs ?? KEKA_REFILL_MS);
  }

  private get creds() {
    return this.access.credentials;
  }

  private tokenHost(): string {
    return apiConfigHost(this.access, 'token', (hostname) => (hostname?.endsWith('.kekademo.com') ? SANDBOX_TOKEN_HOST : PRODUCTION_TOKEN_HOST));
  }

  private tokenKey(): string {
    const c = this.creds;
    return TokenCache.keyOf('keka', this.tokenHost(), c.client_id ?? '', c.client_secret ?? '', c.api_key ?? '');
  }

  /** The token request; a 400/401/403 is `auth` (quoting only an RFC 6749 §5.2 error code). */
  private async requestToken(): Promise<{ value: string; ttlMs: number }> {
    const { client_id: id, client_secret: secret, api_key: key } = this.creds;
    if (!id || !secret || !key) throw new HrmsError('auth', 'keka needs client_id, client_secret and api_key');
    const what = 'token request';
    const res = await this.client.tokenRequest(this.client.url(this.tokenHost(), 'connect/token'), {
      grant_type: 'kekaapi',
      scope: 'kekaapi',
      client_id: id,
      client_secret: secret,
      api_key: key,
    });
    if (res.statusCode === 400 || res.statusCode === 401 || res.statusCode === 403) {
      let code = '';
      try {
        const err = (JSON.parse(res.body) as { error?: unknown }).error;
        if (typeof err === 'string' && OAUTH_ERRORS.has(err)) code = ` ${err}`;
      } catch {
        /* no code to quote */
      }
      throw new HrmsError('auth', `Keka refused the API credentials (HTTP ${res.statusCode}${code})`, res.statusCode);
    }
    if (res.statusCode !== 200) throw this.failure(res, what);
    const parsed = TokenResponse.safeParse(parseJson(res, what));
    if (!parsed.success) throw new HrmsError('bad_response', 'Keka token response lacks an access_token', res.statusCode);
    return { value: parsed.data.access_token, ttlMs: (parsed.data.expires_in ?? 86_400) * 1000 };
  }

  /**
   * The `HrmsError` for a failed data or token answer: a 429 waits `Retry-After`, else longer
   * and longer up to a refill interval ({@link ThrottleWaits}).
   */
  private failure(res: HrmsResponse, what: string): HrmsError {
    if (res.statusCode === 429) {
      const wait = parseRetryAfter(res.headers['retry-after']) ?? this.throttled.next();
      return new HrmsError('rate_limited', `Keka rate-limited ${what} (HTTP 429)`, 429, wait);
    }
    return statusError(res.statusCode, what, res.headers['retry-after']);
  }

  /** GET with the cached token; a 401 drops it and the call is made once more with a new one. */
  private get(url: URL, what: string): Promise<HrmsResponse> {
    return this.session.bearerGet(this.client, url, what);
  }

  private async page(url: URL, what: string): Promise<Page> {
    return this.client.withRetry(async () => {
      const res = await this.get(url, what);
      if (res.statusCode !== 200) throw this.failure(res, what);
      this.throttled.reset();
      const parsed = PageResponse.safeParse(parseJson(res, what));
      // `data: null` is an empty page only when Keka says there is nothing: a glitch must never
      // end a full listing early (the full sync would then remove everyone not yet listed).
      if (!parsed.success || parsed.data.succeeded === false || (parsed.data.data === null && parsed.data.totalRecords !== 0)) {
        throw new HrmsError('bad_response', `Keka sent an unexpected shape for ${what}`, res.statusCode);
      }
      return parsed.data;
    });
  }

  /** The page URL with hrx's filters set on it (a `nextPage` link keeps Keka's paging, hrx's filters win). */
  private listUrl(link: string, filter: string, since: Date | undefined, pageSize: number): URL {
    const url = this.client.url(this.creds.hrms_host, link);
    url.searchParams.set('employmentStatus', filter);
    url.searchParams.set('pageSize', String(pageSize));
    if (since) url.searchParams.set('lastModified', isoSeconds(since));
    else url.searchParams.delete('lastModified');
    return url;
  }

  /** The next page's URL: `nextPage` when Keka sent one, else the next `pageNumber` while pages remain. */
  private nextUrl(page: Page, current: URL, filter: string, since: Date | undefined, pageSize: number): URL | undefined {
    if (typeof page.nextPage === 'string' && page.nextPage.trim() !== '') {
      const next = this.listUrl(page.nextPage.trim(), filter, since, pageSize);
      if (next.href === current.href) throw new HrmsError('bad_response', 'Keka pointed to the same page again');
      return next;
    }
    if (page.nextPage === null) return undefined;
    const n = page.pageNumber ?? Number(current.searchParams.get('pageNumber') ?? 1);
    const more = page.totalPages !== undefined ? n < page.totalPages : (page.data?.length ?? 0) >= pageSize;
    if (!more) return undefined;
    const next = new URL(current.href);
    next.searchParams.set('pageNumber', String(n + 1));
    return next;
  }

  /**
   * A token (requested, or cached for these exact credentials) and a one-employee page, which
   * checks the Keka URL too; no retries (docs/behaviour.md "Sync").
   */
  async verifyCredentials(): Promise<void> {
    const what = 'credential check';
    const res = await this.get(this.listUrl(`${EMPLOYEES_PATH}?pageNumber=1`, 'Working,Relieved', undefined, 1), what);
    if (res.statusCode !== 200) throw this.failure(res, what);
    parseJson(res, what);
  }

  /**
   * The `Working` listing, then the `Relieved` one, page by page, each page fetched (and retried)
   * when the consumer asks for it. `next` resumes inside a listing (the page link) or at the
   * start of the next one. `total` is Keka's `totalRecords` of both listings, on the second one's
   * pages when this call saw the first.
   */
  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    const start: KekaCursor = options.cursor === undefined ? { listing: 0 } : CURSORS.decode(options.cursor);
    const pageSize = Math.min(this.client.opts.pageSize, KEKA_MAX_PAGE_SIZE);
    let firstTotal: number | undefined;
    for (let listing = start.listing; listing < LISTINGS.length; listing++) {
      const { filter, status } = LISTINGS[listing]!;
      let url = this.listUrl(listing === start.listing && start.link ? start.link : `${EMPLOYEES_PATH}?pageNumber=1`, filter, options.since, pageSize);
      let previousFirst: string | undefined;
      for (let n = 1; ; n++) {
        const what = `employee page ${n} (${filter})`;
        const page = await this.page(url, what);
        const employees = (page.data ?? []).map((e) => mapKekaEmployee(e, this.ctx, status));
        if (n > 1 && employees.length > 0 && employees[0]!.employeeId === previousFirst)
          throw new HrmsError('bad_response', `Keka repeated the previous page at ${what}`);
        previousFirst = employees[0]?.employeeId;
        const next = employees.length > 0 ? this.nextUrl(page, url, filter, options.since, pageSize) : undefined;
        if (listing === 0) firstTotal = page.totalRecords;
        const total = listing === 1 && firstTotal !== undefined && page.totalRecords !== undefined ? firstTotal + page.totalRecords : undefined;
        const cursor = next
          ? CURSORS.encode({ listing, link: next.pathname + next.search })
          : listing + 1 < LISTINGS.length
            ? CURSORS.encode({ listing: listing + 1 })
            : undefined;
        yield { employees, ...(total !== undefined ? { total } : {}), ...(cursor ? { next: cursor } : {}) };
        if (!next) break;
        url = next;
      }
    }
  }

  /**
   * Live read by employee number (`employeeNumbers` filter), in the `Working` listing and, when
   * not there, the `Relieved` one (which gives its status); `null` when in neither. An id that
   * cannot be one employee number (blank, holding a comma: the filter's separator) is `null`
   * without a call.
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (id === '' || id.includes(',') || id.includes('\u0000')) return null;
    for (const { filter, status } of LISTINGS) {
      const url = this.listUrl(`${EMPLOYEES_PATH}?pageNumber=1`, filter, undefined, KEKA_MAX_PAGE_SIZE);
      url.searchParams.set('employeeNumbers', id);
      const page = await this.page(url, `employee lookup (${filter})`);
      const match = (page.data ?? []).find((e) => typeof e === 'object' && e !== null && (e as { employeeNumber?: unknown }).employeeNumber === id);
      if (match) return mapKekaEmployee(match, this.ctx, status);
    }
    return null;
  }

  /** The pay register of the newest `months` finalized pay cycles (payroll.ts; src/hrms/keka/README.md "Pay history"). */
  listPayMonths(options: PayMonthsOptions): AsyncGenerator<PayMonthsPage> {
    return kekaPayMonths(
      {
        page: (url, what) => this.page(url, what),
        url: (link) => this.client.url(this.creds.hrms_host, link),
        pageSize: Math.min(this.client.opts.pageSize, KEKA_MAX_PAGE_SIZE),
        warn: this.ctx.warn,
      },
      options,
    );
  }
}

/**
 * Builds the connector for `hrms_id` `keka`. Never throws itself: missing credentials surface as
 * `HrmsError('auth')`, a refused host as `host_not_allowed`, on first use.
 */
export const createKekaConnector = (access: HrmsAccess, options: ConnectorOptions = {}, tuning: KekaTuning = {}): HrmsConnector =>
  new KekaConnector(access, options, tuning);

/** {@link createKekaConnector} as the registry's factory (default tuning). */
export const kekaFactory: ConnectorFactory = (access, options) => createKekaConnector(access, options);
