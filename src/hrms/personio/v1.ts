/**
 * Listing Personio v1 employees (`GET /v1/company/employees`,
 * https://developer.personio.de/v1.0/reference/get_company-employees): `limit` (at most 100) and
 * `offset`, `{metadata: {total_elements, current_page, total_pages}, data}`.
 *
 * Two things Personio leaves open, both accepted:
 * - whether `offset` counts rows (the docs: "the starting position") or pages (what users report of
 *   other v1 endpoints): the second page is asked as rows; an empty page while `total_pages` says
 *   there are more, or a `current_page` that did not move by one, means pages, and it is asked again;
 * - `updated_since` "ignores limit and offset" (the docs) and answers every change at once: an
 *   answer longer than `limit`, one page in all, or a page repeating the previous one ends the
 *   listing, so nothing is listed twice.
 */
import { HrmsError, type EmployeePage } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { mapPersonioV1 } from './mapping';

/** What the listing needs of the connector. */
export interface PersonioCalls {
  /** JSON of a GET under the Personio host (retried); `null` for a 404 when `notFound` is `null`. */
  getJson(path: string, what: string, notFound?: 'null'): Promise<unknown>;
  pageSize(max: number): number;
  /** Reports a record left out (no id) or a value left empty: its field name (and why), never a value. */
  warn(field: string, reason?: string): void;
}

/** Largest v1 page (enforced since 2025-01-31, https://developer.personio.de/docs/pagination-adoption-guide-for-v1-get-employees-endpoint). */
export const V1_MAX_LIMIT = 100;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `updated_since` as Personio's examples write it: `2022-12-24T08:15:30`, here in UTC (a server reading it as Berlin time only lists more). */
export const sinceParam = (since: Date): string => since.toISOString().slice(0, 19);

/** Where a v1 listing resumes: offset meaning (once known) and the 0-based page. */
export interface V1Position {
  mode?: 'rows' | 'pages';
  page: number;
}

/** v1 records → records, each without an id reported and left out. */
export function v1Records(data: unknown[], calls: PersonioCalls): PartialEmployeeRecord[] {
  return data.flatMap((e) => {
    const r = mapPersonioV1(e, (field, reason) => calls.warn(field, reason));
    if (!r) calls.warn('employee.id');
    return r ? [r] : [];
  });
}

/** Pages of v1 employees from `at`; with `since`, only those changed since. `cursorOf` makes each page's `next`. */
export async function* listV1(
  calls: PersonioCalls,
  at: V1Position,
  since: Date | undefined,
  cursorOf: (p: V1Position) => string,
): AsyncGenerator<EmployeePage> {
  const limit = calls.pageSize(V1_MAX_LIMIT);
  let { mode, page } = at;
  let firstCurrent: number | undefined;
  let previousFirst: unknown;
  for (;;) {
    const offset = mode === 'pages' ? page : page * limit;
    const what = `employee page ${page + 1}`;
    const body = await calls.getJson(`v1/company/employees?limit=${limit}&offset=${offset}${since ? `&updated_since=${sinceParam(since)}` : ''}`, what);
    if (!isObj(body) || !Array.isArray(body.data) || body.success === false) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`);
    const meta = isObj(body.metadata) ? body.metadata : {};
    const totalPages = num(meta.total_pages),
      current = num(meta.current_page);
    const data = body.data;
    if (page === 0) firstCurrent = current;
    if (page > 0 && mode === undefined) {
      const pages =
        (data.length === 0 && totalPages !== undefined && page < totalPages) ||
        (current !== undefined && firstCurrent !== undefined && current !== firstCurrent + page);
      mode = pages ? 'pages' : 'rows';
      if (pages) continue;
    }
    const firstId = isObj(data[0]) && isObj(data[0].attributes) ? JSON.stringify(data[0].attributes.id) : undefined;
    // The same answer again (updated_since ignoring offset, exactly `limit` changes): already listed.
    if (page > 0 && firstId !== undefined && firstId === previousFirst) return;
    previousFirst = firstId;
    const done = data.length === 0 || data.length > limit || (totalPages !== undefined ? page + 1 >= totalPages : data.length < limit);
    const total = num(meta.total_elements);
    yield {
      employees: v1Records(data, calls),
      ...(total !== undefined && !since ? { total } : {}),
      ...(done ? {} : { next: cursorOf({ ...(mode ? { mode } : {}), page: page + 1 }) }),
    };
    if (done) return;
    page += 1;
  }
}
