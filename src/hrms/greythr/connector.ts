/**
 * Connector for `hrms_id` `greythr` (docs/hrms/connectors.md; the sources in src/hrms/greythr/README.md).
 *
 * Auth: `POST {hrms_host}/uas/v1/oauth2/client-token` with HTTP Basic (the API user and its
 * password, RFC 7617) and the form `grant_type=client_credentials` some clients send; the answer's
 * `access_token` goes in an `ACCESS-TOKEN` header (no `Bearer`) on every data call, with
 * `x-greythr-domain` = the tenant host. Data calls go to the `api_configs` entry `api` (default
 * https://api.greythr.com). greytHR answers a missing, expired or wrong token with **HTTP 200 and
 * its HTML login page**: the connector checks the content type (and the body's first character)
 * of every answer and never reads HTML as data; such an answer drops the token and the call is
 * made once more with a new one, and a second login page is `HrmsError('auth')`.
 *
 * Listing: the `employees` list drives the pages; every other section (sections.ts) is joined on
 * `employeeId`, lookups resolve numeric ids (mapping.ts). greytHR has no change listing (the sources in
 * src/hrms/greythr/README.md: `lastModified` is on the record, no server-side filter was seen), so the definition is not
 * incremental and `since` is never passed. A section the API user may not read (403) or that the
 * tenant lacks (404) leaves its fields empty, with a warning naming the section.
 */
import { z } from 'zod';
import { apiConfigHost, HrmsError, type ConnectorFactory, type ConnectorOptions, type EmployeePage, type HrmsAccess, type HrmsConnector } from '../connector';
import { basicAuth, HrmsHttpClient, parseJson, statusError, type HrmsRequestInit, type HrmsResponse } from '../http-client';
import type { PartialEmployeeRecord } from '../../domain/record';
import { LOV_KEYS, mapGreythrEmployee, parseCategories, parseLovs, type GreythrLookups, type GreythrParts, type Warn } from './mapping';
import { idOf, JoinedSection, Pager, type PagerState } from './sections';
import { jsonCursor } from '../cursor';
import { TokenCache } from '../token-cache';
import { cachedTokens, TokenSession } from '../token-session';

/** Default host of greytHR's data API (docs/behaviour.md "HRMS hosts": `api_configs` entry `api`). */
export const GREYTHR_API_HOST = 'https://api.greythr.com';
/** Largest page greytHR serves (the sources in src/hrms/greythr/README.md: 200 in two independent clients). */
export const GREYTHR_MAX_PAGE = 200;
/** Token lifetime when the answer gives none: a week (Airbyte caches greytHR tokens for P1W). */
const DEFAULT_TOKEN_TTL_MS = 7 * 86_400_000;
const BASE = 'employee/v2/employees';
/** The sections joined to `employees`, and their paths under it. */
const SECTIONS = [
  ['personal', '/personal'],
  ['statutory', '/statutory/india'],
  ['pf', '/pf'],
  ['bank', '/bank'],
  ['separation', '/separation'],
  ['categories', '/categories'],
  ['addresses', '/addresses'],
] as const;
type SectionName = (typeof SECTIONS)[number][0];

/**
 * greytHR tokens shared by every connector of this process (a sync, each live read), keyed by a
 * digest of the token URL and the API user's credentials: one token request per ~45 days of
 * token life instead of one per connector.
 */
const TOKENS = new TokenCache();

const TokenResponse = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive().optional() });
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether an answer is greytHR's HTML login page rather than data. */
export function isLoginPage(res: HrmsResponse): boolean {
  const type = String(res.headers['content-type'] ?? '').toLowerCase();
  return type.includes('text/html') || /^\s*</.test(res.body);
}

/** The resumable position of a listing (`EmployeePage.next`), base64url JSON. */
interface Cursor {
  core: PagerState;
  last: number;
  sections: Partial<Record<SectionName, PagerState & { bulk?: true }>>;
}
/** Whether `s` holds a C0 control character (U+0000..U+001F). */
const hasControlChar = (s: string): boolean => [...s].some((ch) => ch < ' ');

const CursorShape = z.object({
  core: z.object({ page: z.number().int().min(0), start: z.union([z.literal(0), z.literal(1)]).optional(), done: z.boolean().optional() }),
  last: z.number().int(),
  sections: z.record(
    z.string(),
    z.object({
      page: z.number().int().min(0),
      start: z.union([z.literal(0), z.literal(1)]).optional(),
      done: z.boolean().optional(),
      bulk: z.literal(true).optional(),
    }),
  ),
});
const CURSORS = jsonCursor<Cursor>(CursorShape, 'the greytHR connector');

class GreythrConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private readonly tenantHost: string;
  private readonly apiHost: string;
  /** The token this connector holds (from `TOKENS`); dropped when greytHR refuses it. */
  private readonly session = new TokenSession(cachedTokens(TOKENS, { key: () => this.tokenKey(), issue: () => this.requestToken() }), true);
  private lookups: GreythrLookups | undefined;
  private readonly warned = new Set<string>();

  constructor(
    private readonly access: HrmsAccess,
    private readonly options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-greythr-connector');
    this.tenantHost = access.credentials.hrms_host;
    this.apiHost = apiConfigHost(access, 'api', () => GREYTHR_API_HOST);
  }

  /** Once per field and connector: the field's name, never its value (docs/hrms/connectors.md). */
  private readonly warn: Warn = (field) => {
    if (this.warned.has(field)) return;
    this.warned.add(field);
    try {
      this.options.onWarning?.({ field, reason: 'value the connector cannot translate' });
    } catch {
      /* a logger must not stop the listing */
    }
  };

  private domain(): string {
    try {
      return new URL(this.tenantHost).host;
    } catch {
      throw new HrmsError('host_not_allowed', 'HRMS host is not a valid URL');
    }
  }

  private tokenKey(): string {
    const { client_id: user = '', client_secret: password = '' } = this.access.credentials;
    return TokenCache.keyOf('greythr', this.tenantHost, user, password);
  }

  private async requestToken(): Promise<{ value: string; ttlMs: number }> {
    const { client_id: user, client_secret: password } = this.access.credentials;
    if (!user || !password) throw new HrmsError('auth', 'greytHR needs the API user and its password');
    const what = 'token request';
    const res = await this.client.tokenRequest(
      this.client.url(this.tenantHost, 'uas/v1/oauth2/client-token'),
      { grant_type: 'client_credentials' },
      { authorization: basicAuth(user, password) },
    );
    if ([400, 401, 403].includes(res.statusCode) || (res.statusCode === 200 && isLoginPage(res))) {
      throw new HrmsError('auth', `HRMS rejected the API user (HTTP ${res.statusCode})`, res.statusCode);
    }
    if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
    const parsed = TokenResponse.safeParse(parseJson(res, what));
    if (!parsed.success) throw new HrmsError('bad_response', 'HRMS token response lacks an access_token', res.statusCode);
    return { value: parsed.data.access_token, ttlMs: parsed.data.expires_in !== undefined ? parsed.data.expires_in * 1000 : DEFAULT_TOKEN_TTL_MS };
  }

  /** One data call with the token; a login page (or 401) gets one new token and one more try. */
  private async call(path: string, what: string, init: HrmsRequestInit = {}): Promise<HrmsResponse> {
    const url = this.client.url(this.apiHost, path);
    const domain = this.domain();
    const sent = await this.session.send(
      (token) => this.client.request(url, what, { ...init, headers: { 'access-token': token, 'x-greythr-domain': domain } }),
      (res) => res.statusCode === 401 || (res.statusCode === 200 && isLoginPage(res)),
    );
    if (sent.refused) throw new HrmsError('auth', `HRMS answered ${what} with its login page: the token is refused`, sent.answer.statusCode);
    return sent.answer;
  }

  /** JSON of a data call, retried; `null` for an optional resource greytHR lacks (404) or withholds (403). */
  private getJson(path: string, what: string, optional: boolean, init: HrmsRequestInit = {}): Promise<unknown> {
    return this.client.retriedJson(() => this.call(path, what, init), what, { nullOn: optional ? [404, 403] : [] });
  }

  private pageSize(): number {
    return Math.min(this.client.opts.pageSize, GREYTHR_MAX_PAGE);
  }

  /** A pager over section `path` (`''`: the employees list); sections other than `employees` are optional. */
  private pager(name: string, path: string, state?: PagerState): Pager {
    const size = this.pageSize();
    const extra = name === 'categories' ? '&descRequired=true' : '';
    return new Pager(
      async (page) => {
        const body = await this.getJson(`${BASE}${path}?page=${page}&size=${size}${extra}`, `${name} page ${page}`, name !== 'employees');
        if (body === null) {
          this.warn(`section.${name}`);
          return null;
        }
        if (!isObj(body) || !Array.isArray(body.data)) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${name} page ${page}`);
        const pages = isObj(body.pages) ? body.pages : {};
        const records = body.data.filter(isObj);
        return { records, hasNext: typeof pages.hasNext === 'boolean' ? pages.hasNext : records.length >= size };
      },
      state ? { ...state } : { page: 0 },
    );
  }

  /** The lists of values, once per connector; categories only when some entry came without its description. */
  private async loadLookups(needCategories: boolean): Promise<GreythrLookups> {
    if (!this.lookups) {
      const lov = await this.getJson('hr/v2/lov', 'lists of values', true, { method: 'POST', json: LOV_KEYS });
      this.lookups = { lovs: parseLovs(lov), categories: new Map() };
    }
    if (needCategories && this.lookups.categories.size === 0) {
      this.lookups.categories = parseCategories(await this.getJson('hr/v2/categories', 'categories', true));
    }
    return this.lookups;
  }

  private async assemble(core: Obj[], bySection: (name: SectionName, id: number) => Obj | undefined): Promise<PartialEmployeeRecord[]> {
    const needCategories = core.some((e) => {
      const list = bySection('categories', idOf(e) ?? NaN)?.categoryList;
      return Array.isArray(list) && list.some((c) => isObj(c) && (c.categoryDesc === undefined || c.valueDesc === undefined));
    });
    const lookups = await this.loadLookups(needCategories);
    const today = new Date().toISOString().slice(0, 10);
    return core.flatMap((e) => {
      const id = idOf(e);
      const parts: GreythrParts = { employees: e };
      if (id !== undefined)
        for (const [name] of SECTIONS) {
          const r = bySection(name, id);
          if (r) parts[name] = r;
        }
      const mapped = mapGreythrEmployee(parts, lookups, this.warn, today);
      if (!mapped) this.warn('employees.employeeNo');
      return mapped ? [mapped] : [];
    });
  }

  /** A fresh token request (docs/behaviour.md "Setup config": one call; never a cached token): the tenant host also names the domain. */
  async verifyCredentials(): Promise<void> {
    await this.requestToken();
  }

  /**
   * Pages of `employees` with each section joined in; `next` resumes after the page. `since` is
   * ignored: greytHR cannot list changes (the definition says so).
   */
  async *listEmployees(options: { cursor?: string } = {}): AsyncGenerator<EmployeePage> {
    const from = options.cursor ? CURSORS.decode(options.cursor) : undefined;
    const core = this.pager('employees', '', from?.core);
    const sections = SECTIONS.map(([name, path]) => new JoinedSection(name, (s) => this.pager(name, path, s), this.pager(name, path, from?.sections[name])));
    for (const s of sections) if (from?.sections[s.name as SectionName]?.bulk) await s.loadWhole();
    let last = from?.last ?? -Infinity;
    for (let records = await core.next(); ; records = await core.next()) {
      const done = records === null || core.state.done === true;
      if (records === null || records.length === 0) {
        // An empty page (page 0 of an endpoint that starts at 1, or a repeated one) is skipped; the end is said once.
        if (!done) continue;
        yield { employees: [] };
        return;
      }
      const ids = records.map(idOf).filter((x): x is number => x !== undefined);
      // The merge join needs ascending ids; otherwise every section is read whole (sections.ts).
      if (ids.some((id, k) => id <= (k ? ids[k - 1]! : last))) for (const s of sections) await s.loadWhole();
      const max = Math.max(...ids, last),
        wanted = new Set(ids);
      const joined = new Map<SectionName, Map<number, Obj>>();
      for (const s of sections) joined.set(s.name as SectionName, await s.take(wanted, max));
      const employees = await this.assemble(records, (name, id) => joined.get(name)?.get(id));
      last = max;
      const cursor: Cursor = { core: { ...core.state }, last, sections: Object.fromEntries(sections.map((s) => [s.name, s.resumeState()])) };
      yield { employees, ...(done ? {} : { next: CURSORS.encode(cursor) }) };
      if (done) return;
    }
  }

  /**
   * Live read by `employeeNo`: `GET /employee/v2/employees/lookup?q=` for the numeric id, then each
   * section's one-employee endpoint (`/employee/v2/employees/{id}/...`; an absent one is empty).
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const no = employeeId.trim();
    if (no === '' || no.length > 100 || hasControlChar(no)) return null;
    const found = await this.getJson(`${BASE}/lookup?q=${encodeURIComponent(no)}`, 'employee lookup', true);
    const list = Array.isArray(found) ? found : isObj(found) && Array.isArray(found.data) ? found.data : [found];
    const core = list.filter(isObj).find((e) => e.employeeNo === no);
    const id = core && idOf(core);
    if (!core || id === undefined) return null;
    const parts = new Map<SectionName, Obj>();
    for (const [name, path] of SECTIONS) {
      const extra = name === 'categories' ? '?descRequired=true' : '';
      const body = await this.getJson(`${BASE}/${id}${path}${extra}`, `employee ${name}`, true);
      const rec = isObj(body) && isObj(body.data) ? body.data : body;
      // One employee's categories come as a bare array of `{category, value}` ids (README "Requests").
      if (name === 'categories' && Array.isArray(rec)) parts.set(name, { categoryList: rec });
      else if (isObj(rec)) parts.set(name, rec);
    }
    const [mapped] = await this.assemble([core], (name) => parts.get(name));
    return mapped ?? null;
  }
}

/**
 * Builds the connector for `hrms_id` `greythr`. Never throws itself: missing credentials surface
 * as `HrmsError('auth')`, a refused host as `HrmsError('host_not_allowed')`, on first use.
 */
export const createGreythrConnector: ConnectorFactory = (access, options = {}) => new GreythrConnector(access, options);
