/**
 * Connector for `hrms_id` `hibob` (src/hrms/hibob/README.md "How hrx reads it"): every request
 * is the one operation of HiBob's published description hrx uses, `POST /v1/people/search`
 * (`openapi/rules.yaml`, "H:<line>" its lines).
 *
 * Auth: HTTP Basic with the service user's id (`client_id`) and token (`client_secret`) (H:13369-13372);
 * 401 and 403 (H:8555-8558: the service user may not see the employees) are `HrmsError('auth')`.
 * - Credential check: a search of `root.id` only, read as a stream and closed after its first
 *   employee: one call that needs a valid service user, whatever the company's size.
 * - Full listing: the search answers the whole company in one answer (H:7728-7733: no paging), read as a
 *   stream (`dataset-stream.ts`) and yielded `pageSize` employees at a time. Cursor:
 *   `search:<employees already yielded>` (a resumed listing asks again and skips them). First
 *   one search of `root.id` without `showInactive` gives the active employees' ids; the listing
 *   itself asks with `showInactive: true` (H:7756-7761), so exited employees come too, each
 *   `Inactive` (mapping.ts "Status"). Two requests a sync.
 * - No incremental listing: the search filters on `root.id` and `root.email` only (H:7737-7742),
 *   never on a change time; every sync is full.
 * - Live read: the same search and fields with the one filter `root.id equals <id>`
 *   (H:7728-7754), first without `showInactive` (found: `Active`, one call), then with it.
 *
 * Throttling: 50 searches a minute (https://apidocs.hibob.com/docs/rate-limit), 429 beyond it:
 * the wait is `Retry-After` when sent, else `X-RateLimit-Reset` (a reset time in epoch seconds,
 * or seconds to wait), else growing waits up to the minute (`throttle.ts`). 5xx are retried by
 * the shared client.
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
import { DatasetStream, type DatasetShape } from '../dataset-stream';
import { isObj, text, warnOnce, type FieldWarner } from '../decode';
import { basicAuth, HrmsHttpClient, parseRetryAfter, statusError } from '../http-client';
import { readStream, streamedPages } from '../stream';
import { ThrottleWaits } from '../throttle';
import type { PartialEmployeeRecord } from '../../domain/record';
import { HIBOB_FIELDS, mapHibobEmployee } from './mapping';

/** The most employees one page holds (the answer has no pages of its own: this bounds memory only). */
export const HIBOB_MAX_PAGE = 1000;
/** HiBob's rate-limit window: 50 searches a minute (https://apidocs.hibob.com/docs/rate-limit). */
const WINDOW_MS = 60_000;
/** The search's answer: `{employees: [...]}` (H:7780-7786). */
const ANSWER: DatasetShape = { arrayKey: 'employees', product: 'HiBob' };
/** `search:<employees already yielded>`. */
const CURSOR = offsetCursor(['search'] as const, 'the HiBob connector');
/** HiBob ids are backend ids, decimal digits without a leading zero (H:6242-6243 "3332883884017713238"): any other spelling names no employee. */
const ID = /^[1-9]\d{0,23}$/;

/** A search body (H:7708-7773); `humanReadable` is never sent: machine format. */
interface SearchBody {
  fields: readonly string[];
  showInactive?: boolean;
  filters?: { fieldPath: 'root.id'; operator: 'equals'; values: string[] }[];
}

/**
 * The wait of a 429 from `X-RateLimit-Reset`: an epoch-seconds reset time (past 10^9) or seconds
 * to wait, at most the window; `undefined` when absent or not a number.
 */
export function rateLimitResetWait(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v || !/^\d+(\.\d+)?$/.test(v)) return undefined;
  const n = Number(v);
  const ms = n > 1e9 ? n * 1000 - now : n * 1000;
  return Math.min(WINDOW_MS, Math.max(0, Math.ceil(ms)));
}

class HibobConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private readonly warn: FieldWarner;
  private readonly waits: ThrottleWaits;

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-hibob-connector');
    this.warn = warnOnce(options.onWarning);
    this.waits = new ThrottleWaits(this.client.opts.minRetryDelayMs, WINDOW_MS);
  }

  private authorization(): string {
    const { client_id: id, client_secret: token } = this.access.credentials;
    if (!id || !token) throw new HrmsError('auth', 'hibob needs a service user id and token');
    return basicAuth(id, token);
  }

  /** The `HrmsError` of a non-200 answer: a 429 carries the wait HiBob names, or the next growing one. */
  private failure(status: number, headers: Record<string, string | string[] | undefined>, what: string): HrmsError {
    if (status !== 429) return statusError(status, what, headers['retry-after']);
    const wait = parseRetryAfter(headers['retry-after']) ?? rateLimitResetWait(headers['x-ratelimit-reset']) ?? this.waits.next();
    return new HrmsError('rate_limited', `HRMS rate-limited ${what} (HTTP 429)`, 429, wait);
  }

  /** One search as a stream of its employees, `skip` of them dropped; retried on throttling and 5xx. */
  private search(body: SearchBody, what: string, skip = 0): Promise<DatasetStream> {
    const authorization = this.authorization();
    const url = this.client.url(this.access.credentials.hrms_host, 'v1/people/search');
    return this.client.withRetry(async () => {
      const res = await this.client.requestStream(url, what, { method: 'POST', headers: { authorization }, json: body });
      if (res.statusCode !== 200) {
        res.close();
        throw this.failure(res.statusCode, res.headers, what);
      }
      this.waits.reset();
      return new DatasetStream(res, what, skip, ANSWER);
    });
  }

  private pageSize(): number {
    return Math.min(HIBOB_MAX_PAGE, this.client.opts.pageSize);
  }

  /** One call: the first employee's id, which needs a valid service user. */
  async verifyCredentials(): Promise<void> {
    await readStream(
      () => this.search({ fields: ['root.id'] }, 'credential check'),
      (stream) => stream.take(1),
    );
  }

  /** The ids the search lists without `showInactive`: the active employees. */
  private async activeIds(): Promise<Set<string>> {
    const ids = new Set<string>();
    await readStream(
      () => this.search({ fields: ['root.id'], showInactive: false }, 'active employee ids'),
      async (stream) => {
        for (let done = false; !done;) {
          const batch = await stream.take(HIBOB_MAX_PAGE);
          for (const e of batch.items) if (isObj(e) && text(e.id)) ids.add(text(e.id)!);
          done = batch.done;
        }
      },
    );
    return ids;
  }

  /** Every employee, exited ones included, in pages of `pageSize`; `since` is not HiBob's (full listing). */
  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    const from = CURSOR.offsetIn(options.cursor, 'search');
    const active = await this.activeIds();
    const pages = streamedPages({
      open: (skip) => this.search({ fields: HIBOB_FIELDS, showInactive: true }, 'employee search', skip),
      from,
      pageSize: this.pageSize(),
    });
    for await (const page of pages) {
      const employees = page.items.filter(isObj).map((e) => mapHibobEmployee(e, active.has(text(e.id) ?? ''), this.warn));
      yield { employees, ...(page.done ? {} : { next: CURSOR.encode('search', page.offset) }) };
    }
  }

  /** The employee `id` as the search with `showInactive` (or without) answers it, or null. */
  private async one(id: string, showInactive: boolean): Promise<Record<string, unknown> | null> {
    const body: SearchBody = { fields: HIBOB_FIELDS, showInactive, filters: [{ fieldPath: 'root.id', operator: 'equals', values: [id] }] };
    const { items } = await readStream(
      () => this.search(body, 'employee lookup'),
      (stream) => stream.take(2),
    );
    return items.filter(isObj).find((e) => text(e.id) === id) ?? null;
  }

  /**
   * Live read; null for an id HiBob does not list and, without a call, for one that is not a
   * HiBob id (decimal digits: docs/hrms/connectors.md "Employee ids in live reads").
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (!ID.test(id)) return null;
    const active = await this.one(id, false);
    if (active) return mapHibobEmployee(active, true, this.warn);
    const any = await this.one(id, true);
    return any ? mapHibobEmployee(any, false, this.warn) : null;
  }
}

/**
 * Builds the connector for `hrms_id` `hibob`. Never throws itself: missing credentials surface as
 * `HrmsError('auth')`, a refused host as `host_not_allowed`, on first use.
 */
export const createHibobConnector: ConnectorFactory = (access, options = {}) => new HibobConnector(access, options);
