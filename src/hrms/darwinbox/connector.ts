/**
 * Connector for `hrms_id` `darwinbox` (decisions §14; research hrms-dialects.md §2).
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
import { basicAuth, HrmsHttpClient, statusError, type HrmsStreamResponse } from '../http-client';
import type { PartialEmployeeRecord } from '../../domain/record';
import { DatasetStream } from './dataset-stream';
import { mapDarwinboxEmployee } from './mapping';

/** `api_configs` ids naming the datasets, in listing order (decisions §14). */
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
  const m = /^(employees_active|employees_inactive):(\d{1,9})$/.exec(cursor);
  if (!m) throw new HrmsError('bad_response', 'not a cursor of the Darwinbox connector');
  return { dataset: m[1] as DatasetId, offset: Number(m[2]) };
}

class DarwinboxConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private method: 'POST' | 'GET' = 'POST';

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient({ ...options, timeoutMs: options.timeoutMs ?? DARWINBOX_TIMEOUT_MS }, 'hrx-darwinbox-connector');
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

  /** One call: the active dataset's answer, read only as far as its status or first employee. */
  async verifyCredentials(): Promise<void> {
    const stream = await this.open('employees_active', 'credential check', {});
    try {
      await stream.take(0);
    } finally {
      stream.close();
    }
  }

  /**
   * Every configured dataset from the cursor's on, each streamed and cut into pages of
   * `pageSize`. A page that fails (stall, broken connection, throttling) is retried by
   * re-requesting its dataset and skipping the employees already yielded: none lost or repeated.
   */
  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    const start = parseCursor(options.cursor);
    const datasets = this.datasets(start.dataset);
    const size = this.client.opts.pageSize;
    let yielded = false;
    for (const [n, dataset] of datasets.entries()) {
      let offset = n === 0 ? start.offset : 0;
      let stream: DatasetStream | undefined;
      try {
        for (;;) {
          const what = `${dataset} dataset`;
          const batch = await this.client.withRetry(async () => {
            try {
              stream ??= await this.open(dataset, what, options.since ? { since: options.since } : {}, offset);
              return await stream.take(size);
            } catch (err) {
              stream?.close();
              stream = undefined;
              throw err;
            }
          });
          offset += batch.items.length;
          const following = batch.done ? datasets[n + 1] : dataset;
          if (batch.items.length > 0 || (batch.done && !following && !yielded)) {
            yielded = true;
            yield { employees: batch.items.map(mapDarwinboxEmployee), ...(following ? { next: `${following}:${following === dataset ? offset : 0}` } : {}) };
          }
          if (batch.done) break;
        }
      } finally {
        stream?.close();
      }
    }
    if (!yielded) yield { employees: [] };
  }

  /** Live read: `employee_ids: [id]` on the active dataset, then the inactive one; only a row with that id counts. */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (id === '') return null;
    for (const dataset of this.datasets()) {
      const found = await this.client.withRetry(async () => {
        const stream = await this.open(dataset, 'employee lookup', { ids: [id] });
        try {
          for (;;) {
            const batch = await stream.take(50);
            const hit = batch.items.map(mapDarwinboxEmployee).find((e) => e.employeeId === id);
            if (hit || batch.done) return hit ?? null;
          }
        } finally {
          stream.close();
        }
      });
      if (found) return found;
    }
    return null;
  }
}

/**
 * Builds the connector for `hrms_id` `darwinbox`. Never throws itself: missing credentials
 * surface as `HrmsError('auth')`, a refused host as `host_not_allowed`, on first use.
 */
export const createDarwinboxConnector: ConnectorFactory = (access, options = {}) => new DarwinboxConnector(access, options);
