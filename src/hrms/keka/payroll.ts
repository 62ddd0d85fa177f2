/**
 * Keka's pay register as pay months (src/hrms/keka/README.md "Pay history"; docs/sync.md "Pay
 * history"), from Keka's published description (`api/openapi.yaml` of github
 * `konfig-sdks/keka-hr-java-sdk`, lines cited as `K:<line>`, encoded in `openapi/rules.yaml`):
 *
 * - `GET /api/v1/payroll/paygroups?pageNumber&pageSize` (K:1262-1304): every pay group.
 * - `GET /api/v1/payroll/paygroups/{payGroupId}/paycycles?runStatus=Finalized&pageNumber&pageSize`
 *   (K:1305-1363; `runStatus` "allowed values are Pending, Finalized, Partial", K:1317-1318): the
 *   group's closed pay cycles; the newest `months` by `endDate` are read.
 * - `GET /api/v1/payroll/paygroups/{payGroupId}/paycycles/{payCycleId}/payregister?pageNumber&pageSize`
 *   (K:1364-1421): one `APIPayRegisterView` (K:5560-5800) per employee paid in that cycle.
 *
 * Every list is Keka's paged envelope (`pageSize` at most 200, K:1275-1276), followed as the
 * employee listing is (a `nextPage` link on the Keka host, else `pageNumber`/`totalPages`). Each
 * request goes through the connector's budget, retries and cancellation (`KekaPayrollIo.page`).
 */
import { z } from 'zod';
import { HrmsError, type PayMonthEntry, type PayMonthsOptions, type PayMonthsPage } from '../connector';
import { jsonCursor } from '../cursor';
import type { FieldWarner } from '../decode';
import { kekaDate } from './mapping';

const PAYROLL_PATH = 'api/v1/payroll/paygroups';
/** The `runStatus` filter word of a closed payroll run (K:1317-1318). */
const FINALIZED = 'Finalized';
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** What the listing reads of one page of Keka's paged envelope (the connector checks the rest). */
export interface KekaPage {
  data: unknown[] | null;
  pageNumber?: number | undefined;
  totalPages?: number | undefined;
  nextPage?: string | null | undefined;
}

/** What the pay month listing needs of the Keka connector. */
export interface KekaPayrollIo {
  /** One page of a Keka paged list, fetched through the budget with retries; `bad_response` when not Keka's envelope. */
  page(url: URL, what: string): Promise<KekaPage>;
  /** A path or page link under the Keka URL (another host is `bad_response`). */
  url(link: string): URL;
  /** Page size to ask for (at most 200). */
  pageSize: number;
  warn: FieldWarner;
}

/** Where a listing resumes: the pay group and cycle, and the register page link when mid-cycle. */
interface PayCursor {
  g: string;
  c: string;
  link?: string;
}

const CURSORS = jsonCursor<PayCursor>(
  z.object({ g: z.string().min(1), c: z.string().min(1), link: z.string().startsWith('/').optional() }),
  'the keka connector',
);

/** One pay cycle to read: its pay group, its id and its end (`YYYY-MM-DD`). */
interface Cycle {
  g: string;
  c: string;
  end: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** `url` with Keka's paging parameters set (a `nextPage` link keeps its page number, hrx's size wins). */
function paged(url: URL, pageSize: number): URL {
  if (!url.searchParams.has('pageNumber')) url.searchParams.set('pageNumber', '1');
  url.searchParams.set('pageSize', String(pageSize));
  return url;
}

/** Every page of a Keka list from `first`, each with the URL of the page after it (absent on the last). */
async function* pagesOf(io: KekaPayrollIo, first: URL, what: string): AsyncGenerator<{ page: KekaPage; next?: URL }> {
  let url = paged(first, io.pageSize);
  for (let n = 1; ; n++) {
    const page = await io.page(url, `${what} ${n}`);
    let next: URL | undefined;
    const rows = page.data?.length ?? 0;
    if (typeof page.nextPage === 'string' && page.nextPage.trim() !== '') {
      next = paged(io.url(page.nextPage.trim()), io.pageSize);
      if (next.href === url.href) throw new HrmsError('bad_response', `Keka pointed to the same page again at ${what} ${n}`);
    } else if (page.nextPage !== null && rows > 0) {
      const current = page.pageNumber ?? Number(url.searchParams.get('pageNumber') ?? 1);
      if (page.totalPages !== undefined ? current < page.totalPages : rows >= io.pageSize) {
        next = new URL(url.href);
        next.searchParams.set('pageNumber', String(current + 1));
      }
    }
    yield { page, ...(next && rows > 0 ? { next } : {}) };
    if (!next || rows === 0) return;
    url = next;
  }
}

/** An object row of a Keka list; anything else means the answer is not the described one. */
function row(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HrmsError('bad_response', `Keka sent an unexpected shape for ${what}`);
  return v as Record<string, unknown>;
}

/** Every pay group's id (`APIPayGroupView.identifier`, K:5461-5463). */
async function payGroups(io: KekaPayrollIo): Promise<string[]> {
  const ids: string[] = [];
  for await (const { page } of pagesOf(io, io.url(`${PAYROLL_PATH}`), 'pay group page')) {
    for (const g of page.data ?? []) {
      const id = text(row(g, 'pay groups').identifier);
      if (id === undefined) io.warn('identifier', 'pay group without an identifier skipped');
      else ids.push(id);
    }
  }
  return ids;
}

/** The newest `months` finalized cycles of group `g`, newest first, by `endDate` (K:5358-5360). */
async function newestCycles(io: KekaPayrollIo, g: string, months: number): Promise<Cycle[]> {
  const url = io.url(`${PAYROLL_PATH}/${encodeURIComponent(g)}/paycycles`);
  url.searchParams.set('runStatus', FINALIZED);
  const cycles: Cycle[] = [];
  for await (const { page } of pagesOf(io, url, 'pay cycle page')) {
    for (const raw of page.data ?? []) {
      const c = row(raw, 'pay cycles');
      const id = text(c.identifier);
      const end = kekaDate(c.endDate);
      if (id === undefined) io.warn('identifier', 'pay cycle without an identifier skipped');
      else if (end === undefined) io.warn('endDate', 'pay cycle without a readable end date skipped');
      else cycles.push({ g, c: id, end });
    }
  }
  return cycles.sort((a, b) => (a.end < b.end ? 1 : a.end > b.end ? -1 : 0)).slice(0, months);
}

/**
 * The pay month of `cycleMonthName` (K:5716-5719: the month's name; an English name or its first
 * three letters) with `cycleYear` (K:5723-5725). `cycleMonth` (K:5720-5722) is an int32 whose base
 * (0 or 1) the description does not give, so it is not read: nothing is guessed.
 */
function monthOf(r: Record<string, unknown>, warn: FieldWarner): { month: number; year: number } | undefined {
  const name = text(r.cycleMonthName)?.toLowerCase();
  const month = name === undefined ? -1 : MONTH_NAMES.findIndex((m) => name.startsWith(m)) + 1;
  if (month < 1) {
    warn('cycleMonthName', 'pay register row without a month name skipped');
    return undefined;
  }
  const year = r.cycleYear;
  if (typeof year !== 'number' || !Number.isInteger(year) || year < 1990 || year > 2200) {
    warn('cycleYear', 'pay register row without a readable year skipped');
    return undefined;
  }
  return { month, year };
}

/** A money field of the register: a finite number, else left out with a warning naming `field` (never the value). */
function amount(r: Record<string, unknown>, field: string, warn: FieldWarner): number | undefined {
  const v = r[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  warn(field, 'not a number: left empty');
  return undefined;
}

/**
 * One register row as a pay month (the mapping table of src/hrms/keka/README.md "Pay history"):
 * `employeeNumber` (hrx's employee id), the month, `grossAmount` → `grossPay`, `netAmount` →
 * `netPay`, `totalReimbursements` → `reimbursements`. A row without an employee number or a
 * readable month is skipped with a warning.
 */
export function kekaPayMonth(raw: unknown, warn: FieldWarner): PayMonthEntry | undefined {
  const r = row(raw, 'the pay register');
  const employeeId = text(r.employeeNumber);
  if (employeeId === undefined) {
    warn('employeeNumber', 'pay register row without an employee number skipped');
    return undefined;
  }
  const when = monthOf(r, warn);
  if (!when) return undefined;
  const money: Record<string, number> = {};
  for (const [field, key] of [
    ['grossAmount', 'grossPay'],
    ['netAmount', 'netPay'],
    ['totalReimbursements', 'reimbursements'],
  ] as const) {
    const v = amount(r, field, warn);
    if (v !== undefined) money[key] = v;
  }
  // `netPay` is a key of the pay month (docs/sync.md "Pay history") that `MonthlyDetails` does not
  // carry yet: the entry is built as a plain object and typed as the seam's entry.
  const month: PayMonthEntry['month'] = { ...when, ...money };
  return { employeeId, month };
}

/**
 * The pay months of the newest `options.months` finalized pay cycles of every pay group, one
 * page per pay register page, newest cycle first within a group. `next` resumes at a register
 * page (or the next cycle); a cursor whose cycle Keka no longer lists among the newest is
 * `bad_response`. Throws `HrmsError` as the connector's listing does.
 */
export async function* kekaPayMonths(io: KekaPayrollIo, options: PayMonthsOptions): AsyncGenerator<PayMonthsPage> {
  const months = Math.floor(options.months);
  if (!(months > 0)) return;
  const start = options.cursor === undefined ? undefined : CURSORS.decode(options.cursor);
  const plan: Cycle[] = [];
  for (const g of await payGroups(io)) plan.push(...(await newestCycles(io, g, months)));
  let from = 0;
  if (start) {
    from = plan.findIndex((c) => c.g === start.g && c.c === start.c);
    if (from < 0) throw new HrmsError('bad_response', 'Keka no longer lists the pay cycle the cursor resumes at');
  }
  for (let k = from; k < plan.length; k++) {
    const { g, c } = plan[k]!;
    const first =
      start && k === from && start.link
        ? io.url(start.link)
        : io.url(`${PAYROLL_PATH}/${encodeURIComponent(g)}/paycycles/${encodeURIComponent(c)}/payregister`);
    for await (const { page, next } of pagesOf(io, first, 'pay register page')) {
      const entries = (page.data ?? []).flatMap((r) => kekaPayMonth(r, io.warn) ?? []);
      const after = plan[k + 1];
      const cursor = next ? CURSORS.encode({ g, c, link: next.pathname + next.search }) : after ? CURSORS.encode({ g: after.g, c: after.c }) : undefined;
      yield { entries, ...(cursor ? { next: cursor } : {}) };
    }
  }
}
