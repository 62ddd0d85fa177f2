/**
 * Connector for `hrms_id` `darwinbox` (docs/hrms/connectors.md; the sources in src/hrms/darwinbox/README.md).
 *
 * Auth: HTTP Basic with the API user and its password, plus `api_key` and the dataset's
 * `datasetKey` in the JSON body (https://api-docs.darwinbox.com/view/metadata/SWDzg2Pp). A bad
 * key is answered HTTP 200 `{status: 0, message}` or 401/403: both are `HrmsError('auth')`.
 *
 * Listing: `POST /masterapi/employee` answers a whole dataset (`employees_active`, then
 * `employees_inactive` when configured) in one response, with no paging: it is parsed as a
 * stream (`dataset-stream.ts`) and yielded in pages of `pageSize` employees. The cursor is
 * `<api_id>:<offset>`; resuming (or retrying a page after a broken connection) re-requests the
 * dataset and skips `offset` employees. A server that refuses POST (405) is asked with GET and a
 * JSON body, which some clients use (research: S).
 *
 * Incremental: `last_modified` `dd-mm-yyyy HH:MM:SS`. Whether Darwinbox reads it as IST or UTC is
 * not known (research `?`): hrx sends `since` as UTC wall-clock time, which under either reading
 * asks for at least every change since `since` (IST read: 5.5 h more). Darwinbox lists no
 * removals: a full sync (daily) finds them.
 *
 * Salary (`payroll.ts`): with an `api_configs` entry `payroll`, the listed employees' ids go to
 * `POST /payrollapi/ctcbreakup` 500 at a time (pages are held until their employees' salaries are
 * in: at most 500 + `pageSize` employees), through the same client and request budget. An
 * incremental listing asks for the changed employees' salaries only, so a salary change alone
 * waits for the daily full sync. A refused payroll key (or no payroll API: 404), or an answer of
 * unknown shape, leaves salary empty and reports `api_configs.payroll` through `onWarning`; the
 * employees still sync. Throttling and 5xx are retried like the other calls and, once exhausted,
 * fail the listing (a salary is never emptied because the HRMS was briefly unavailable).
 * setup-config's credential check asks for the first employee's CTC, so a wrong payroll key is a
 * 400 naming `api_configs.<i>.access_credentials.api_key` (`HrmsFieldError`).
 */
import {
  HrmsError,
  HrmsFieldError,
  type ConnectorFactory,
  type ConnectorOptions,
  type EmployeePage,
  type HrmsAccess,
  type HrmsConnector,
  type ListOptions,
} from '../connector';
import { offsetCursor } from '../cursor';
import { warnOnce, type FieldWarner } from '../decode';
import { basicAuth, HrmsHttpClient, parseJson, statusError, type HrmsStreamResponse } from '../http-client';
import type { PartialEmployeeRecord } from '../../domain/record';
import { DatasetStream } from '../dataset-stream';
import { readStream, streamedPages } from '../stream';
import { mapDarwinboxEmployee } from './mapping';
import { PAYROLL_BATCH, PAYROLL_SINCE, readPayrollAnswer } from './payroll';

/** The `api_configs` id of the payroll API key (docs/hrms/connectors.md). */
export const DARWINBOX_PAYROLL = 'payroll';
type Salaries = ReturnType<typeof readPayrollAnswer>;

/** `api_configs` ids naming the datasets, in listing order (docs/hrms/connectors.md). */
export const DARWINBOX_DATASETS = ['employees_active', 'employees_inactive'] as const;
type DatasetId = (typeof DARWINBOX_DATASETS)[number];

/** Darwinbox clients wait up to 120 s for a large dataset's first byte (research: S); used unless the caller sets `timeoutMs`. */
export const DARWINBOX_TIMEOUT_MS = 120_000;

/** `d` as `dd-mm-yyyy HH:MM:SS` in UTC (the `last_modified` filter; see the module comment for the zone). */
export function lastModified(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}-${p(d.getUTCMonth() + 1)}-${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** The dataset and offset a cursor names. */
function parseCursor(cursor: string | undefined): { dataset: DatasetId; offset: number } {
  if (cursor === undefined) return { dataset: 'employees_active', offset: 0 };
  const { word, offset } = CURSOR.decode(cursor);
  return { dataset: word, offset };
}
/** `<dataset>:<employees of it already yielded>`. */
const CURSOR = offsetCursor<DatasetId>(DARWINBOX_DATASETS, 'the Darwinbox connector');

class DarwinboxConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private method: 'POST' | 'GET' = 'POST';
  /** Set once the payroll API refused the key or has no route: no more salary requests. */
  private payrollOff = false;
  private readonly warnValue: FieldWarner;
  private readonly warnRefused: FieldWarner;
  private readonly warnShape: FieldWarner;

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient({ ...options, timeoutMs: options.timeoutMs ?? DARWINBOX_TIMEOUT_MS }, 'hrx-darwinbox-connector');
    this.warnValue = warnOnce(options.onWarning, 'salary left empty: a CTC value the connector cannot read');
    this.warnRefused = warnOnce(options.onWarning, 'salary left empty: the payroll API refused the payroll API key (or has no ctcbreakup route)');
    this.warnShape = warnOnce(options.onWarning, 'salary left empty: the payroll API answered in a shape the connector does not know');
  }

  /** The `payroll` entry's index in `api_configs`, or -1 (none, or no key: salary stays empty). */
  private payrollIndex(): number {
    return this.access.apiConfigs.findIndex((a) => a.api_id === DARWINBOX_PAYROLL && !!a.access_credentials.api_key);
  }

  /** One ctcbreakup request for `ids` (≤ 500), retried on throttling and 5xx; the parsed answer's salaries. */
  private async ctcBreakup(ids: string[]): Promise<Salaries> {
    const c = this.access.credentials;
    const entry = this.access.apiConfigs[this.payrollIndex()]!.access_credentials;
    if (!c.client_id || !c.client_secret) throw new HrmsError('auth', 'darwinbox needs client_id and client_secret');
    const what = 'CTC breakup';
    // The main hrms_host, as for the dataset entries (an entry's own hrms_host is not called).
    const url = this.client.url(c.hrms_host, 'payrollapi/ctcbreakup');
    const body = await this.client.withRetry(async () => {
      const res = await this.client.request(url, what, {
        method: 'POST',
        headers: { authorization: basicAuth(c.client_id!, c.client_secret!) },
        json: { api_key: entry.api_key, employee_no: ids, last_modified: PAYROLL_SINCE, proration_type: 'monthly' },
      });
      if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
      return parseJson(res, what);
    });
    return readPayrollAnswer(body, new Set(ids), this.warnValue);
  }

  /**
   * The salaries of `ids` in requests of 500; empty without a payroll entry. A refusal (401/403,
   * `status: 0`) or 404 stops salary requests for this connector, an unknown shape leaves that
   * batch empty: both reported as `api_configs.payroll`. Other errors are thrown.
   */
  private async salaries(ids: string[]): Promise<Salaries> {
    const out: Salaries = new Map();
    for (let i = 0; i < ids.length && this.payrollIndex() >= 0 && !this.payrollOff; i += PAYROLL_BATCH) {
      try {
        for (const [id, s] of await this.ctcBreakup(ids.slice(i, i + PAYROLL_BATCH))) out.set(id, s);
      } catch (err) {
        if (!(err instanceof HrmsError) || !['auth', 'not_found', 'bad_response'].includes(err.kind)) throw err;
        if (err.kind === 'bad_response') this.warnShape(`api_configs.${DARWINBOX_PAYROLL}`);
        else {
          this.payrollOff = true;
          this.warnRefused(`api_configs.${DARWINBOX_PAYROLL}`);
        }
      }
    }
    return out;
  }

  /**
   * `pages` with each employee's salary set, the ids asked 500 at a time: a page is held until all
   * its employees are looked up, so at most 500 + one page of employees wait; cursors unchanged.
   */
  private async *withSalaries(pages: AsyncIterable<EmployeePage>): AsyncGenerator<EmployeePage> {
    const held: EmployeePage[] = [];
    let waiting: PartialEmployeeRecord[] = [];
    let ready = 0; // employees at the front of `held` whose salaries are in
    const lookUp = async (all: boolean): Promise<void> => {
      while (waiting.length >= PAYROLL_BATCH || (all && waiting.length > 0)) {
        const batch = waiting.slice(0, PAYROLL_BATCH);
        waiting = waiting.slice(PAYROLL_BATCH);
        const found = await this.salaries(batch.map((e) => e.employeeId));
        for (const e of batch) {
          const s = found.get(e.employeeId);
          if (s) e.salaryDetails = s;
        }
        ready += batch.length;
      }
    };
    const release = function* (): Generator<EmployeePage> {
      while (held.length > 0 && held[0]!.employees.length <= ready) {
        ready -= held[0]!.employees.length;
        yield held.shift()!;
      }
    };
    for await (const page of pages) {
      held.push(page);
      waiting.push(...page.employees);
      await lookUp(false);
      yield* release();
    }
    await lookUp(true);
    yield* release();
  }

  /** The datasetKey of `dataset`, or undefined when not configured. */
  private datasetKey(dataset: DatasetId): string | undefined {
    return this.access.apiConfigs.find((a) => a.api_id === dataset)?.access_credentials.api_key || undefined;
  }

  /** The configured datasets from `from` on, in listing order. */
  private datasets(from: DatasetId = 'employees_active'): DatasetId[] {
    return DARWINBOX_DATASETS.slice(DARWINBOX_DATASETS.indexOf(from)).filter((d) => this.datasetKey(d) !== undefined);
  }

  /** One streamed Employee Master request on `dataset` (405 to POST: asked again with GET + body). */
  private async open(dataset: DatasetId, what: string, filter: { since?: Date; ids?: string[] }, skip = 0): Promise<DatasetStream> {
    const c = this.access.credentials;
    const key = this.datasetKey(dataset);
    if (!c.client_id || !c.client_secret || !c.api_key || !key)
      throw new HrmsError('auth', 'darwinbox needs client_id, client_secret, api_key and an employees_active datasetKey');
    const body = {
      api_key: c.api_key,
      datasetKey: key,
      employee_ids: filter.ids ?? [],
      ...(filter.since ? { last_modified: lastModified(filter.since) } : {}),
    };
    const url = this.client.url(c.hrms_host, 'masterapi/employee');
    const ask = (method: 'POST' | 'GET'): Promise<HrmsStreamResponse> =>
      this.client.requestStream(url, what, {
        method,
        headers: { authorization: basicAuth(c.client_id!, c.client_secret!) },
        json: body,
      });
    let res = await ask(this.method);
    if (res.statusCode === 405 && this.method === 'POST') {
      res.close();
      this.method = 'GET';
      res = await ask('GET');
    }
    if (res.statusCode !== 200) {
      res.close();
      throw statusError(res.statusCode, what, res.headers['retry-after']);
    }
    return new DatasetStream(res, what, skip);
  }

  /**
   * One call: the active dataset's answer, read only as far as its status and first employee;
   * with a payroll entry, a second: that employee's CTC. A refused payroll key (or no payroll API)
   * is an `HrmsFieldError` naming the entry's `api_key`; an answer of unknown shape passes (the
   * sync reports it).
   */
  async verifyCredentials(): Promise<void> {
    const [row] = await readStream(
      () => this.open('employees_active', 'credential check', {}),
      async (stream) => (await stream.take(1)).items,
    );
    const first = row === undefined ? undefined : mapDarwinboxEmployee(row).employeeId;
    const i = this.payrollIndex();
    if (i < 0 || first === undefined) return;
    try {
      await this.ctcBreakup([first]);
    } catch (err) {
      if (err instanceof HrmsError && (err.kind === 'auth' || err.kind === 'not_found'))
        throw new HrmsFieldError(
          `api_configs.${i}.access_credentials.api_key`,
          'Darwinbox refused this payroll API key (or has no payroll API at this address)',
        );
      if (!(err instanceof HrmsError && err.kind === 'bad_response')) throw err;
    }
  }

  /**
   * Every configured dataset from the cursor's on (`listDatasets`), with salaries when a payroll
   * entry is configured (`withSalaries`).
   */
  listEmployees(options: ListOptions = {}): AsyncIterable<EmployeePage> {
    const pages = this.listDatasets(options);
    return this.payrollIndex() >= 0 ? this.withSalaries(pages) : pages;
  }

  /**
   * Every configured dataset from the cursor's on, each streamed and cut into pages of
   * `pageSize`. A page that fails (stall, broken connection, throttling) is retried by
   * re-requesting its dataset and skipping the employees already yielded: none lost or repeated.
   */
  private async *listDatasets(options: ListOptions): AsyncGenerator<EmployeePage> {
    const start = parseCursor(options.cursor);
    const datasets = this.datasets(start.dataset);
    const size = this.client.opts.pageSize;
    let yielded = false;
    for (const [n, dataset] of datasets.entries()) {
      const what = `${dataset} dataset`;
      const pages = streamedPages({
        open: (skip) => this.open(dataset, what, options.since ? { since: options.since } : {}, skip),
        from: n === 0 ? start.offset : 0,
        pageSize: size,
        retry: (attempt) => this.client.withRetry(attempt),
      });
      for await (const page of pages) {
        const following = page.done ? datasets[n + 1] : dataset;
        if (page.items.length > 0 || (page.done && !following && !yielded)) {
          yielded = true;
          yield {
            employees: page.items.map(mapDarwinboxEmployee),
            ...(following ? { next: CURSOR.encode(following, following === dataset ? page.offset : 0) } : {}),
          };
        }
      }
    }
    if (!yielded) yield { employees: [] };
  }

  /** Live read: `employee_ids: [id]` on the active dataset, then the inactive one; only a row with that id counts. */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (id === '') return null;
    for (const dataset of this.datasets()) {
      const found = await this.client.withRetry(() =>
        readStream(
          () => this.open(dataset, 'employee lookup', { ids: [id] }),
          async (stream) => {
            for (;;) {
              const batch = await stream.take(50);
              const hit = batch.items.map(mapDarwinboxEmployee).find((e) => e.employeeId === id);
              if (hit || batch.done) return hit ?? null;
            }
          },
        ),
      );
      if (found) {
        const salary = (await this.salaries([found.employeeId])).get(found.employeeId);
        return salary ? { ...found, salaryDetails: salary } : found;
      }
    }
    return null;
  }
}

/**
 * Builds the connector for `hrms_id` `darwinbox`. Never throws itself: missing credentials
 * surface as `HrmsError('auth')`, a refused host as `host_not_allowed`, on first use.
 */
export const createDarwinboxConnector: ConnectorFactory = (access, options = {}) => new DarwinboxConnector(access, options);
