/**
 * Connector for `hrms_id` `bamboohr` (src/hrms/bamboohr/README.md "The published description"):
 * every request is one BambooHR's own OpenAPI description (`openapi/public.yaml`, "Y:<line>")
 * allows with the API key, i.e. an operation whose security lists `basic`.
 *
 * Auth: HTTP Basic with the API key as user name and `x` as password (`basic`, Y:16162-16164);
 * 401/403 are `HrmsError('auth')`. Base: `{hrms_host}/api/v1/…`; a host that answers 404 there is
 * asked through the legacy gateway `/api/gateway.php/{companyDomain}/v1/…` (companyDomain: the
 * host's first label), and an `hrms_host` that already names the gateway is used as given.
 *
 * - Credential check: `GET /v1/employees/changed?since=<now>` (get-changed-employee-ids,
 *   Y:8398-8447, `basic` allowed at Y:8444): one cheap call that needs a valid key.
 * - Full listing: `POST /v1/reports/custom?format=json` with `{fields}` (request-custom-report,
 *   Y:8512-8590, `basic` allowed at Y:8585; "includes all employees regardless of status"), the whole
 *   company in one answer, read as a stream (`dataset-stream.ts`) and yielded `pageSize`
 *   employees at a time. Cursor: `report:<employees already yielded>` (a resumed listing asks again
 *   and skips them). The description marks the report deprecated for the Datasets API
 *   (`POST /v1/datasets/{datasetName}`, Y:2662-2722, `basic` allowed too, its own field names):
 *   moving to it is left for later. `GET /v1/employees` (list-employees) is not used: it accepts OAuth only
 *   (Y:4934-4949) and its `fields` names 27 fields (`EmployeeOptionalField`, Y:14368).
 * - Incremental: `GET /v1/employees/changed?since=<ISO 8601>`: `Deleted` ids are `removedIds`;
 *   inserted and updated ones are read `pageSize` at a time through the custom report with
 *   `filters.employeeIds` (Y:12084-12088).
 * - Live read: `GET /v1/employees/{id}?fields=…` (get-employee, Y:7772-7830, `basic` allowed at Y:7822),
 *   the same fields as the report, so a synced record holds what a live read holds.
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
import { offsetCursor } from '../cursor';
import { basicAuth, HrmsHttpClient, parseRetryAfter, statusError, type HrmsResponse, type HrmsStreamResponse } from '../http-client';
import { DatasetStream, type DatasetShape } from '../dataset-stream';
import { readStream, streamedPages } from '../stream';
import type { PartialEmployeeRecord } from '../../domain/record';
import { warnOnce, type FieldWarner } from '../decode';
import { BAMBOOHR_FIELDS, mapBambooHrEmployee } from './mapping';

/** The most employees one page (and one `filters.employeeIds` report) holds. */
export const BAMBOOHR_MAX_PAGE = 2500;
const FIELDS = BAMBOOHR_FIELDS.join(',');
/** The custom report's answer: `{title, fields, employees: [...]}` (Y:8570-8575). */
const REPORT: DatasetShape = { arrayKey: 'employees', product: 'BambooHR' };
const REPORT_PATH = 'reports/custom?format=json';

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

/** `report:<employees already yielded>` (a full listing), `changes:<changed ids already read>` (an incremental one). */
const CURSOR = offsetCursor(['report', 'changes'] as const, OF);

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

  private authorization(): string {
    const key = this.access.credentials.api_key;
    if (!key) throw new HrmsError('auth', 'bamboohr needs an api_key');
    return basicAuth(key, 'x');
  }

  /**
   * `ask` at the settled API root, or at each candidate root until one answers other than 404
   * (which settles it). `statusOf` reads the answer's status; `drop` releases an answer passed over.
   */
  private async atRoot<T>(ask: (root: string) => Promise<T>, statusOf: (r: T) => number, drop: (r: T) => void = () => {}): Promise<T> {
    const candidates = this.root ? [this.root] : this.roots();
    for (const [i, root] of candidates.entries()) {
      const res = await ask(root);
      if (statusOf(res) !== 404 || i === candidates.length - 1) {
        if (statusOf(res) !== 404) this.root ??= root;
        return res;
      }
      drop(res);
    }
    throw new HrmsError('bad_response', 'no BambooHR API root');
  }

  /** One authenticated GET of `path` (relative to the API root). */
  private get(path: string, what: string): Promise<HrmsResponse> {
    const authorization = this.authorization();
    return this.atRoot(
      (root) => this.client.request(this.client.url(root, path), what, { headers: { authorization } }),
      (r) => r.statusCode,
    );
  }

  /**
   * The custom report of {@link BAMBOOHR_FIELDS} (`ids`: only those employees) as a stream of its
   * employees, `skip` of them dropped. Sent as `application/json` exactly, as the report asks (its description, Y:8518).
   */
  private report(what: string, ids?: string[], skip = 0): Promise<DatasetStream> {
    const authorization = this.authorization();
    const body = { title: 'hrx', fields: [...BAMBOOHR_FIELDS], ...(ids ? { filters: { employeeIds: ids.map(Number) } } : {}) };
    return this.client.withRetry(async () => {
      const res = await this.atRoot<HrmsStreamResponse>(
        (root) => this.client.requestStream(this.client.url(root, REPORT_PATH), what, { method: 'POST', headers: { authorization }, json: body }),
        (r) => r.statusCode,
        (r) => r.close(),
      );
      if (res.statusCode !== 200) {
        res.close();
        throw bambooError({ statusCode: res.statusCode, headers: res.headers, body: '' }, what);
      }
      return new DatasetStream(res, what, skip, REPORT);
    });
  }

  /** A GET retried on throttling and 5xx, answering the parsed JSON body of a 200 (null on 404 when `allow404`). */
  private getJson(path: string, what: string, allow404 = false): Promise<unknown> {
    return this.client.retriedJson(() => this.get(path, what), what, { nullOn: allow404 ? [404] : [], fail: (res) => bambooError(res, what) });
  }

  private pageSize(): number {
    return Math.min(BAMBOOHR_MAX_PAGE, this.client.opts.pageSize);
  }

  /** The changed-employees list since `since` (second precision, as BambooHR writes it). */
  private changedSince(since: Date, what: string): Promise<unknown> {
    return this.getJson(`employees/changed?since=${encodeURIComponent(since.toISOString().replace(/\.\d{3}Z$/, 'Z'))}`, what);
  }

  /** One call: the changes since now (none), which needs a valid key. */
  async verifyCredentials(): Promise<void> {
    await this.changedSince(new Date(), 'credential check');
  }

  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    if (options.since) {
      yield* this.changes(options.since, options.cursor);
      return;
    }
    const pages = streamedPages({
      open: (skip) => this.report('employee report', undefined, skip),
      from: CURSOR.offsetIn(options.cursor, 'report'),
      pageSize: this.pageSize(),
    });
    for await (const page of pages) {
      yield { employees: page.items.map((e) => this.map(e)), ...(page.done ? {} : { next: CURSOR.encode('report', page.offset) }) };
    }
  }

  /** Every employee of a custom report of `ids` (a few thousand at most). */
  private async reportOf(ids: string[]): Promise<PartialEmployeeRecord[]> {
    const { items } = await readStream(
      () => this.report('changed employee report', ids),
      (stream) => stream.take(ids.length + 1),
    );
    return items.map((e) => this.map(e));
  }

  /**
   * Changes since `since`: deleted ids as `removedIds` on the first page, then the inserted and
   * updated employees read `pageSize` ids at a time (`filters.employeeIds`). The cursor is the
   * count of changed ids already yielded.
   */
  private async *changes(since: Date, cursor: string | undefined): AsyncGenerator<EmployeePage> {
    const skip = CURSOR.offsetIn(cursor, 'changes');
    const body = await this.changedSince(since, 'changed employees');
    const listed = isObj(body) && isObj(body.employees) ? Object.values(body.employees).filter(isObj) : null;
    if (!listed) throw new HrmsError('bad_response', 'HRMS sent an unexpected shape for changed employees');
    const idOf = (c: Record<string, unknown>): string => (typeof c.id === 'string' || typeof c.id === 'number' ? String(c.id) : '');
    const ids = (deleted: boolean) =>
      listed
        .filter((c) => (c.action === 'Deleted') === deleted)
        .map(idOf)
        .filter((id) => /^\d{1,18}$/.test(id));
    const removedIds = ids(true);
    const changed = ids(false);
    const size = this.pageSize();
    let first = skip === 0;
    for (let at = skip; at < changed.length || first; at += size) {
      const chunk = changed.slice(at, at + size);
      const employees = chunk.length ? await this.reportOf(chunk) : [];
      const next = at + size < changed.length ? CURSOR.encode('changes', at + size) : undefined;
      yield { employees, ...(first && removedIds.length ? { removedIds } : {}), ...(next ? { next } : {}) };
      first = false;
    }
  }

  /**
   * Live read: `GET /v1/employees/{id}?fields=…`; 404 gives null, and so does, without a call, an id that is not
   * a BambooHR id as BambooHR writes it (decimal digits, no leading zero: `007` names no employee, docs/hrms/connectors.md
   * "Employee ids in live reads").
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (!/^(0|[1-9]\d{0,17})$/.test(id)) return null;
    const body = await this.getJson(`employees/${id}?fields=${FIELDS}`, 'employee lookup', true);
    if (body === null) return null;
    return this.map(isObj(body) && body.id === undefined ? { ...body, id } : body);
  }
}

/**
 * Builds the connector for `hrms_id` `bamboohr`. Never throws itself: a missing key surfaces as
 * `HrmsError('auth')`, a refused host as `host_not_allowed`, on first use.
 */
export const createBambooHrConnector: ConnectorFactory = (access, options = {}) => new BambooHrConnector(access, options);
