/**
 * Connector for `hrms_id` `zoho_people` (docs/hrms/connectors.md): Zoho People's forms API.
 *
 * - Token (https://www.zoho.com/accounts/protocol/oauth/web-apps/access-token-expiry.html):
 *   `POST {accounts}/oauth/v2/token`, form `grant_type=refresh_token&client_id&client_secret&refresh_token`
 *   (`api_key` holds the refresh token) → `{access_token, expires_in: 3600, api_domain, token_type}`.
 *   Zoho answers refusals as `{"error": "invalid_client" | "invalid_code" | …}`, with HTTP 200
 *   or 400 (both taken); `Access Denied` "too many requests" (more than 10 tokens per refresh
 *   token in 10 minutes) is a rate limit, not a refusal. Accounts host: the `api_configs` entry
 *   `token`, else the one of the data centre of `hrms_host` (`people.zoho.com` →
 *   `accounts.zoho.com`), else `https://accounts.zoho.in`. Tokens are cached per process
 *   ({@link TokenCache}), so syncs and live reads do not spend that allowance.
 * - Data (https://www.zoho.com/people/api/bulk-records.html): `GET {hrms_host}/people/api/forms/employee/getRecords?sIndex&limit`
 *   with `Authorization: Zoho-oauthtoken`; `sIndex` 1-based, `limit` at most 200 (error 7021
 *   above); `{"response": {"result": [{"<record id>": [ {fields} ]}], …}}` ({@link zohoRecords});
 *   no total: a page shorter than `limit` is the last, and after the last page Zoho may answer
 *   an empty or absent `result` or error 7024 "no records" (research `?`: all three end the listing).
 * - Errors come in the body, `response.errors` `{code, message}` (an object or a list), whatever
 *   the HTTP status: 7209 (400 requests a minute exceeded: the API is locked for 5 minutes)
 *   is waited out, longer and longer up to the lock period and held on the tenant's budget
 *   ({@link ThrottleWaits}: Zoho names no wait); an invalid token (HTTP 401, or code 7218 / an "OAuth token" message,
 *   I) is refreshed once; other codes are `bad_response` quoting only the code.
 * - Incremental: `modifiedtime` = epoch ms, "records added & modified after" it (D). Client code
 *   sends `dd-MMM-yyyy` instead (S): when Zoho refuses the ms value with an error code, the
 *   connector asks once more with the day before `since` (a superset, never fewer). Zoho lists
 *   no deletions: an exit is the record listed with its exit status and date; a deleted record
 *   is found by the next full sync only, so `removedIds` is never reported.
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
} from '../connector';
import { HrmsHttpClient, parseJson, parseRetryAfter, statusError, type HrmsResponse } from '../http-client';
import { ThrottleWaits } from '../throttle';
import { matchCursor } from '../cursor';
import { TokenCache } from '../token-cache';
import { cachedTokens, TokenSession } from '../token-session';
import type { PartialEmployeeRecord } from '../../domain/record';
import { mapZohoEmployee, zohoRecords } from './mapping';

/** Zoho's `limit` maximum. */
export const ZOHO_MAX_LIMIT = 200;
/** Zoho's lock period after the threshold (400 requests a minute) is exceeded: the longest wait after 7209. */
export const ZOHO_LOCKOUT_MS = 5 * 60_000;
/** Zoho Accounts' token allowance window (10 tokens per refresh token per 10 minutes): the longest wait after "too many requests". */
export const ZOHO_TOKEN_WAIT_MS = 10 * 60_000;
const DEFAULT_ACCOUNTS = 'https://accounts.zoho.in';
const RECORDS_PATH = 'people/api/forms/employee/getRecords';
/** Error codes (Zoho People API): threshold exceeded, invalid OAuth token (I), no records (I), limit over 200. */
const CODE = { locked: 7209, badToken: 7218, noRecords: 7024, overLimit: 7021 } as const;
const MONTH_ABBR = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const tokens = new TokenCache();

const TokenAnswer = z.object({ access_token: z.string().min(1).optional(), expires_in: z.number().positive().optional(), error: z.unknown().optional() });
const ErrorItem = z.object({ code: z.union([z.number(), z.string()]).optional(), message: z.unknown().optional() });
const Envelope = z.object({
  response: z.object({
    result: z.unknown().optional(),
    errors: z.union([ErrorItem, z.array(ErrorItem)]).optional(),
  }),
});

/** Product-specific tuning, for tests and benchmarks against a simulator with shortened windows. */
export interface ZohoTuning {
  /** Longest wait after error 7209, ms (default {@link ZOHO_LOCKOUT_MS}). */
  lockoutMs?: number;
  /** Longest wait after Zoho Accounts' "too many requests", ms (default {@link ZOHO_TOKEN_WAIT_MS}). */
  tokenWaitMs?: number;
}

/** One answer of `getRecords`: its records, or the error Zoho put in the body. */
type RecordsAnswer = { records: Record<string, unknown>[] } | { code: number | undefined; tokenInvalid: boolean };

/** `dd-MMM-yyyy` of the UTC day before `d` (the fallback `modifiedtime`). */
function dayBefore(d: Date): string {
  const x = new Date(d.getTime() - 86_400_000);
  return `${String(x.getUTCDate()).padStart(2, '0')}-${MONTH_ABBR[x.getUTCMonth()]}-${x.getUTCFullYear()}`;
}

/** Cursor: the next `sIndex`, with `d` when the listing switched `modifiedtime` to a date. */
function decodeCursor(cursor: string | undefined): { sIndex: number; dateMode: boolean } {
  if (cursor === undefined) return { sIndex: 1, dateMode: false };
  const m = matchCursor(cursor, /^([1-9]\d{0,8})(d?)$/, 'the zoho_people connector');
  return { sIndex: Number(m[1]), dateMode: m[2] === 'd' };
}

class ZohoPeopleConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private readonly session = new TokenSession(cachedTokens(tokens, { key: () => this.tokenKey(), issue: () => this.requestToken() }));
  private readonly locked: ThrottleWaits;
  private readonly tokenDenied: ThrottleWaits;

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
    tuning: ZohoTuning,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-zoho-people-connector');
    this.locked = new ThrottleWaits(this.client.opts.minRetryDelayMs, tuning.lockoutMs ?? ZOHO_LOCKOUT_MS);
    this.tokenDenied = new ThrottleWaits(this.client.opts.minRetryDelayMs, tuning.tokenWaitMs ?? ZOHO_TOKEN_WAIT_MS);
  }

  private get creds() {
    return this.access.credentials;
  }

  private accountsHost(): string {
    return apiConfigHost(this.access, 'token', (hostname) => {
      const dc = /^people\.zoho\.([a-z.]+)$/i.exec(hostname ?? '');
      return dc ? `https://accounts.zoho.${dc[1]!.toLowerCase()}` : DEFAULT_ACCOUNTS;
    });
  }

  private tokenKey(): string {
    const c = this.creds;
    return TokenCache.keyOf('zoho_people', this.accountsHost(), c.client_id ?? '', c.client_secret ?? '', c.api_key ?? '');
  }

  /** The refresh-token grant. Zoho's `error` answers are `auth`, except "too many requests". */
  private async requestToken(): Promise<{ value: string; ttlMs: number }> {
    const { client_id: id, client_secret: secret, api_key: refresh } = this.creds;
    if (!id || !secret || !refresh) throw new HrmsError('auth', 'zoho_people needs client_id, client_secret and the refresh token (api_key)');
    const what = 'token request';
    const form = { grant_type: 'refresh_token', client_id: id, client_secret: secret, refresh_token: refresh };
    const res = await this.client.tokenRequest(this.client.url(this.accountsHost(), 'oauth/v2/token'), form);
    if (res.statusCode >= 500 || res.statusCode === 429) throw statusError(res.statusCode, what, res.headers['retry-after']);
    let answer: z.infer<typeof TokenAnswer> | undefined;
    try {
      answer = TokenAnswer.safeParse(JSON.parse(res.body)).data;
    } catch {
      /* below */
    }
    if (answer?.error !== undefined) {
      const err = typeof answer.error === 'string' ? answer.error : JSON.stringify(answer.error);
      if (/access denied/i.test(err) || /too many requests/i.test(res.body)) {
        throw new HrmsError('rate_limited', 'Zoho Accounts limited token requests', res.statusCode, this.tokenDenied.next());
      }
      const code = /^[a-z_]{3,40}$/.test(err) ? ` ${err}` : '';
      throw new HrmsError('auth', `Zoho refused the client or refresh token (HTTP ${res.statusCode}${code})`, res.statusCode);
    }
    if (res.statusCode === 400 || res.statusCode === 401 || res.statusCode === 403)
      throw new HrmsError('auth', `Zoho refused the token request (HTTP ${res.statusCode})`, res.statusCode);
    if (res.statusCode !== 200 || !answer?.access_token) throw new HrmsError('bad_response', 'Zoho token response lacks an access_token', res.statusCode);
    this.tokenDenied.reset();
    return { value: answer.access_token, ttlMs: (answer.expires_in ?? 3600) * 1000 };
  }

  /** Reads one `getRecords` answer: records, or the body's error (any HTTP status Zoho used). */
  private read(res: HrmsResponse, what: string): RecordsAnswer {
    if (res.statusCode === 429)
      throw new HrmsError(
        'rate_limited',
        `Zoho People rate-limited ${what} (HTTP 429)`,
        429,
        parseRetryAfter(res.headers['retry-after']) ?? this.locked.next(),
      );
    if (res.statusCode >= 500 || res.statusCode === 408) throw statusError(res.statusCode, what, res.headers['retry-after']);
    let env: z.infer<typeof Envelope> | undefined;
    try {
      env = Envelope.safeParse(JSON.parse(res.body)).data;
    } catch {
      /* below */
    }
    if (!env) {
      if (res.statusCode === 401) return { code: undefined, tokenInvalid: true };
      if (res.statusCode !== 200) throw statusError(res.statusCode, what);
      parseJson(res, what);
      throw new HrmsError('bad_response', `Zoho People sent an unexpected shape for ${what}`, res.statusCode);
    }
    const errors = env.response.errors;
    const err = Array.isArray(errors) ? errors[0] : errors;
    if (err === undefined) {
      // An absent `result` ends a listing (seen in client code); one that is not a list must not
      // (a full sync ended early would remove everyone not yet listed).
      if (env.response.result !== undefined && !Array.isArray(env.response.result)) {
        throw new HrmsError('bad_response', `Zoho People sent an unexpected shape for ${what}`, res.statusCode);
      }
      this.locked.reset();
      return { records: zohoRecords(env.response.result) };
    }
    const code = Number.isInteger(Number(err.code)) ? Number(err.code) : undefined;
    const message = typeof err.message === 'string' ? err.message : '';
    if (code === CODE.locked) throw new HrmsError('rate_limited', `Zoho People locked the API (error 7209) on ${what}`, res.statusCode, this.locked.next());
    this.locked.reset();
    if (code === CODE.noRecords || /no\s+records/i.test(message)) return { records: [] };
    return { code, tokenInvalid: res.statusCode === 401 || code === CODE.badToken || /oauth\s*token/i.test(message) };
  }

  /** One `getRecords` call with the cached token; an invalid token is refreshed once. */
  private async records(params: Record<string, string>, what: string): Promise<RecordsAnswer> {
    const url = this.client.url(this.creds.hrms_host, RECORDS_PATH);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const sent = await this.session.send(
      async (token) => this.read(await this.client.request(url, what, { headers: { authorization: `Zoho-oauthtoken ${token}` } }), what),
      (answer) => 'tokenInvalid' in answer && answer.tokenInvalid,
    );
    if (!sent.refused) return sent.answer;
    // A fresh token refused too is not kept for the next connector.
    this.session.forget(sent.token);
    throw new HrmsError('auth', `Zoho People refused the access token on ${what}`);
  }

  /** `records` with retries, throwing for any error left (quoting its code only). */
  private fetch(params: Record<string, string>, what: string): Promise<RecordsAnswer> {
    return this.client.withRetry(() => this.records(params, what));
  }

  private static fail(answer: RecordsAnswer, what: string): never {
    const code = 'code' in answer && answer.code !== undefined ? ` ${answer.code}` : '';
    throw new HrmsError('bad_response', `Zoho People answered ${what} with error${code}`);
  }

  /** A token (requested, or cached for these exact credentials) and a one-record read; no retries. */
  async verifyCredentials(): Promise<void> {
    const answer = await this.records({ sIndex: '1', limit: '1' }, 'credential check');
    if (!('records' in answer)) ZohoPeopleConnector.fail(answer, 'credential check');
  }

  /**
   * Pages of `limit` records from the cursor's `sIndex` (1 when absent) until a short or empty
   * page, each fetched (and retried) when the consumer asks for it.
   */
  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    let { sIndex, dateMode } = decodeCursor(options.cursor);
    const limit = Math.min(this.client.opts.pageSize, ZOHO_MAX_LIMIT);
    let previousFirst: string | undefined;
    for (;;) {
      const what = `records from ${sIndex}`;
      const params = (): Record<string, string> => ({
        sIndex: String(sIndex),
        limit: String(limit),
        ...(options.since ? { modifiedtime: dateMode ? dayBefore(options.since) : String(Math.max(0, options.since.getTime() - 1)) } : {}),
      });
      let answer = await this.fetch(params(), what);
      if (!('records' in answer) && options.since && !dateMode) {
        dateMode = true;
        answer = await this.fetch(params(), what);
      }
      if (!('records' in answer)) ZohoPeopleConnector.fail(answer, what);
      const employees = answer.records.map(mapZohoEmployee);
      if (employees.length === 0 && sIndex > 1) return;
      if (sIndex > 1 && employees[0]!.employeeId === previousFirst) throw new HrmsError('bad_response', `Zoho People repeated the previous page at ${what}`);
      previousFirst = employees[0]?.employeeId;
      const full = employees.length >= limit;
      yield { employees, ...(full ? { next: `${sIndex + limit}${dateMode ? 'd' : ''}` } : {}) };
      if (!full) return;
      sIndex += limit;
    }
  }

  /** Live read: `SearchColumn=EMPLOYEEID&SearchValue=<id>`; `null` when Zoho has no such record. */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (id === '' || id.includes('\u0000')) return null;
    const what = 'employee lookup';
    const answer = await this.fetch({ SearchColumn: 'EMPLOYEEID', SearchValue: id }, what);
    // 7042 "search value is invalid" is how Zoho answers an id it does not have.
    if (!('records' in answer)) return answer.code === 7042 ? null : ZohoPeopleConnector.fail(answer, what);
    const match = answer.records.find((r) => (typeof r.EmployeeID === 'string' || typeof r.EmployeeID === 'number') && String(r.EmployeeID).trim() === id);
    return match ? mapZohoEmployee(match) : null;
  }
}

/**
 * Builds the connector for `hrms_id` `zoho_people`. Never throws itself: missing credentials
 * surface as `HrmsError('auth')`, a refused host as `host_not_allowed`, on first use.
 */
export const createZohoPeopleConnector = (access: HrmsAccess, options: ConnectorOptions = {}, tuning: ZohoTuning = {}): HrmsConnector =>
  new ZohoPeopleConnector(access, options, tuning);

/** {@link createZohoPeopleConnector} as the registry's factory (default tuning). */
export const zohoPeopleFactory: ConnectorFactory = (access, options) => createZohoPeopleConnector(access, options);
