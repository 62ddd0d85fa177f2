/**
 * Connector for `hrms_id` `bamboohr` (decisions §14; research hrms-dialects.md §5).
 *
 * Auth: HTTP Basic with the API key as user name and `x` as password
 * (https://documentation.bamboohr.com/docs/getting-started); 401/403 are `HrmsError('auth')`.
 * Base: `{hrms_host}/api/v1/…` (https://documentation.bamboohr.com/docs/api-details); a host
 * that answers 404 there is asked through the legacy gateway `/api/gateway.php/{companyDomain}/v1/…`
 * (companyDomain: the host's first label), and an `hrms_host` that already names the gateway is
 * used as given.
 *
 * Listing: `GET /v1/employees?fields=…&filter[status]=active|inactive&page[limit]=…&page[after]=…`
 * with `meta.page.nextCursor` (https://documentation.bamboohr.com/reference/list-employees). Whether
 * the list has inactive employees without a status filter is not known (research `?`), so the
 * active and the inactive ones are listed each with its filter. Cursor: `<status>:<nextCursor>`.
 *
 * Incremental: `GET /v1/employees/changed?since=<ISO 8601>`
 * (https://documentation.bamboohr.com/reference/get-changed-employee-ids): `Deleted` ids are
 * `removedIds`; inserted and updated ones are read with `filter[ids]`.
 *
 * Throttling (https://documentation.bamboohr.com/docs/planned-changes-to-the-api): 429 with
 * `Retry-After`, and before 2026-09-16 503: a 503 carrying `Retry-After` is taken as throttling
 * (the tenant's budget held off), a bare 503 as unavailable; both are retried.
 */
import {
  HrmsError,
  type ConnectorFactory,
  type ConnectorOptions,
  type EmployeePage,
  type HrmsAccess,
  type HrmsConnector,
  type ListOptions,
} from '../connector';
import { matchCursor } from '../cursor';
import { basicAuth, HrmsHttpClient, parseRetryAfter, statusError, type HrmsResponse } from '../http-client';
import type { PartialEmployeeRecord } from '../../domain/record';
import { warnOnce, type FieldWarner } from '../decode';
import { BAMBOOHR_FIELDS, mapBambooHrEmployee } from './mapping';

/** BambooHR's largest `page[limit]` (list-employees reference). */
export const BAMBOOHR_MAX_PAGE = 2500;
const STATUSES = ['active', 'inactive'] as const;
type Status = (typeof STATUSES)[number];
const FIELDS = BAMBOOHR_FIELDS.join(',');

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `HrmsError` of a non-200 answer; a 503 with `Retry-After` is BambooHR's (old) throttling signal. */
function bambooError(res: HrmsResponse, what: string): HrmsError {
  const retryAfter = res.headers['retry-after'];
  if (res.statusCode === 503 && retryAfter !== undefined) {
    return new HrmsError('rate_limited', `HRMS rate-limited ${what} (HTTP 503)`, 503, parseRetryAfter(retryAfter));
  }
  return statusError(res.statusCode, what, retryAfter);
}

/** Whose cursors these are, in the error for one it did not make. */
const OF = 'the BambooHR connector';

/** The status and BambooHR cursor a connector cursor names. */
function parseCursor(cursor: string | undefined): { status: Status; after?: string } {
  if (cursor === undefined) return { status: 'active' };
  const m = matchCursor(cursor, /^(active|inactive):(.{0,512})$/s, OF);
  return { status: m[1] as Status, ...(m[2] ? { after: m[2] } : {}) };
}

class BambooHrConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  /** The API root (`…/api/v1/` or the gateway's `…/v1/`), settled on the first answer. */
  private root: string | undefined;
  /** Reports a salary left empty (not INR, or not per year or month), once per field. */
  private readonly warn: FieldWarner;

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-bamboohr-connector');
    this.warn = warnOnce(options.onWarning, 'salary left empty: payRate not in INR, or payPer not Year or Month');
  }

  private map(native: unknown): PartialEmployeeRecord {
    return mapBambooHrEmployee(native, this.warn);
  }

  private roots(): string[] {
    const host = this.access.credentials.hrms_host.replace(/\/+$/, '');
    if (/\/api\/gateway\.php\/[^/]+$/.test(host)) return [`${host}/v1/`];
    let domain = '';
    try {
      domain = new URL(host).hostname.split('.')[0] ?? '';
    } catch {
      /* the client refuses the host below */
    }
    return [`${host}/api/v1/`, `${host}/api/gateway.php/${encodeURIComponent(domain)}/v1/`];
  }

  /** One authenticated GET of `path` (relative to the API root); a 404 on an unsettled root tries the gateway. */
  private async get(path: string, what: string): Promise<HrmsResponse> {
    const key = this.access.credentials.api_key;
    if (!key) throw new HrmsError('auth', 'bamboohr needs an api_key');
    const candidates = this.root ? [this.root] : this.roots();
    let res: HrmsResponse | undefined;
    for (const root of candidates) {
      res = await this.client.request(this.client.url(root, path), what, { headers: { authorization: basicAuth(key, 'x') } });
      if (res.statusCode !== 404) {
        this.root ??= root;
        break;
      }
    }
    return res!;
  }

  /** A GET retried on throttling and 5xx, answering the parsed JSON body of a 200 (null on 404 when `allow404`). */
  private getJson(path: string, what: string, allow404 = false): Promise<unknown> {
    return this.client.retriedJson(() => this.get(path, what), what, { nullOn: allow404 ? [404] : [], fail: (res) => bambooError(res, what) });
  }

  private pageSize(): number {
    return Math.min(BAMBOOHR_MAX_PAGE, this.client.opts.pageSize);
  }

  /** One page of the list: its employees and the next BambooHR cursor. */
  private async page(query: Record<string, string>, what: string): Promise<{ employees: PartialEmployeeRecord[]; after?: string }> {
    const qs = new URLSearchParams({ fields: FIELDS, 'page[limit]': String(this.pageSize()), ...query });
    const body = await this.getJson(`employees?${qs.toString()}`, what);
    const data = isObj(body) ? body.data : undefined;
    if (!Array.isArray(data)) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`);
    const page = isObj(body) && isObj(body.meta) && isObj(body.meta.page) ? body.meta.page : {};
    const next = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
    return { employees: data.map((e) => this.map(e)), ...(next ? { after: next } : {}) };
  }

  /** One call: a one-employee page. */
  async verifyCredentials(): Promise<void> {
    const res = await this.get(`employees?fields=status&page%5Blimit%5D=1`, 'credential check');
    if (res.statusCode !== 200) throw bambooError(res, 'credential check');
  }

  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    if (options.since) {
      yield* this.changes(options.since, options.cursor);
      return;
    }
    const start = parseCursor(options.cursor);
    for (const status of STATUSES.slice(STATUSES.indexOf(start.status))) {
      let after = status === start.status ? start.after : undefined;
      for (;;) {
        const got = await this.page({ 'filter[status]': status, ...(after ? { 'page[after]': after } : {}) }, `${status} employee page`);
        after = got.after;
        const following = after ? `${status}:${after}` : status === 'active' ? 'inactive:' : undefined;
        yield { employees: got.employees, ...(following ? { next: following } : {}) };
        if (!after) break;
      }
    }
  }

  /**
   * Changes since `since`: deleted ids as `removedIds` on the first page, then the inserted and
   * updated employees read `pageSize` ids at a time (`filter[ids]`; ids missing from that answer
   * are asked again with `filter[status]=inactive`, in case the list leaves inactive ones out).
   * The cursor is the count of changed ids already yielded.
   */
  private async *changes(since: Date, cursor: string | undefined): AsyncGenerator<EmployeePage> {
    const skip = cursor === undefined ? 0 : Number(matchCursor(cursor, /^changes:(\d{1,9})$/, OF)[1]);
    const body = await this.getJson(`employees/changed?since=${encodeURIComponent(since.toISOString().replace(/\.\d{3}Z$/, 'Z'))}`, 'changed employees');
    const listed = isObj(body) && isObj(body.employees) ? Object.values(body.employees).filter(isObj) : null;
    if (!listed) throw new HrmsError('bad_response', 'HRMS sent an unexpected shape for changed employees');
    const idOf = (c: Record<string, unknown>): string => (typeof c.id === 'string' || typeof c.id === 'number' ? String(c.id) : '');
    const removedIds = listed
      .filter((c) => c.action === 'Deleted')
      .map(idOf)
      .filter(Boolean);
    const changed = listed
      .filter((c) => c.action !== 'Deleted')
      .map(idOf)
      .filter(Boolean);
    const size = this.pageSize();
    let first = skip === 0;
    for (let at = skip; at < changed.length || first; at += size) {
      const ids = changed.slice(at, at + size);
      const employees = ids.length ? (await this.page({ 'filter[ids]': ids.join(',') }, 'changed employee page')).employees : [];
      const missing = ids.filter((id) => !employees.some((e) => e.employeeId === id));
      if (missing.length)
        employees.push(...(await this.page({ 'filter[ids]': missing.join(','), 'filter[status]': 'inactive' }, 'changed employee page')).employees);
      const next = at + size < changed.length ? `changes:${at + size}` : undefined;
      yield { employees, ...(first && removedIds.length ? { removedIds } : {}), ...(next ? { next } : {}) };
      first = false;
    }
  }

  /** Live read: `GET /v1/employees/{id}?fields=…`; 404 gives null, and so does an id that is not a BambooHR id (digits). */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (!/^\d{1,18}$/.test(id)) return null;
    const body = await this.getJson(`employees/${id}?fields=${FIELDS}`, 'employee lookup', true);
    if (body === null) return null;
    return this.map(isObj(body) && body.id === undefined && body.employeeId === undefined ? { ...body, id } : body);
  }
}

/**
 * Builds the connector for `hrms_id` `bamboohr`. Never throws itself: a missing key surfaces as
 * `HrmsError('auth')`, a refused host as `host_not_allowed`, on first use.
 */
export const createBambooHrConnector: ConnectorFactory = (access, options = {}) => new BambooHrConnector(access, options);
