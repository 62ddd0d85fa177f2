/**
 * Reading greytHR's list endpoints ("sections") and joining them on `employeeId` without holding
 * the organisation in memory (docs/behaviour.md "Sync": pages stream through).
 *
 * Paging (the sources in src/hrms/greythr/README.md): `page` + `size`, `{data, pages: {hasNext}}`, and a start page of 0 on some
 * endpoints and 1 on others, which greytHR does not document. `Pager` asks page 0 first: a 400
 * means the endpoint starts at 1; a page 1 that repeats page 0's first record means page 0 was
 * answered as page 1 (it is dropped); an empty last page 0 is checked against page 1.
 *
 * Joining: every section lists employees in the same order (ascending `employeeId` as seen), so a
 * section is read just far enough to cover the current page of `employees` (a merge join, one
 * page of each section in memory). A section that turns out not to be in ascending order (or an
 * `employees` list that is not) is read whole into a map instead: correct whatever the order, at
 * the cost of memory for that section.
 */
import { HrmsError } from '../connector';

type Obj = Record<string, unknown>;
/** One page as a section answered it; `null` when the section does not exist for this API user (404/403). */
export type FetchPage = (page: number) => Promise<{ records: Obj[]; hasNext: boolean } | null>;

/** Where a pager stands: the next page to ask and the start page once known. */
export interface PagerState {
  page: number;
  start?: 0 | 1;
  done?: boolean;
}

/** The numeric `employeeId` of a record, or `undefined`. */
export const idOf = (r: Obj): number | undefined => {
  const v = typeof r.employeeId === 'string' ? Number(r.employeeId) : r.employeeId;
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
};

/** Pages of one section in the endpoint's order, whichever page it starts at. */
export class Pager {
  private aliasOf: number | undefined;

  constructor(
    private readonly fetch: FetchPage,
    readonly state: PagerState = { page: 0 },
  ) {}

  /** The next page's records (possibly empty), or `null` once the section is exhausted (or absent). */
  async next(): Promise<Obj[] | null> {
    const s = this.state;
    if (s.done) return null;
    if (s.start === undefined && s.page === 0) return this.first();
    const got = await this.fetch(s.page);
    if (!got) {
      s.done = true;
      return null;
    }
    s.page += 1;
    let { records } = got;
    if (this.aliasOf !== undefined) {
      // Page 1 repeating page 0: the endpoint starts at 1 and answered page 0 as page 1.
      const repeated = records.length > 0 && idOf(records[0]!) === this.aliasOf;
      this.aliasOf = undefined;
      s.start = repeated ? 1 : 0;
      if (repeated) records = [];
    }
    if (!got.hasNext) s.done = true;
    return records;
  }

  private async first(): Promise<Obj[] | null> {
    const s = this.state;
    let got;
    try {
      got = await this.fetch(0);
    } catch (err) {
      // A 400 for page 0 (not the token's refusal, which is `auth`): the endpoint starts at 1.
      if (!(err instanceof HrmsError && err.kind === 'bad_response' && err.status === 400)) throw err;
      s.start = 1;
      s.page = 1;
      return this.next();
    }
    if (!got) {
      s.done = true;
      return null;
    }
    s.page = 1;
    if (got.records.length === 0) {
      // An empty page 0 of an endpoint that starts at 1 says nothing: page 1 decides.
      s.start = got.hasNext ? undefined : 1;
      return got.hasNext ? [] : this.next();
    }
    this.aliasOf = got.hasNext ? idOf(got.records[0]!) : undefined;
    if (!got.hasNext) s.done = true;
    return got.records;
  }
}

/** A section joined to pages of `employees`: records by `employeeId`. */
export class JoinedSection {
  private buffer: { rec: Obj; id: number; page: number }[] = [];
  private last: number | undefined;
  private bulk: Map<number, Obj> | undefined;

  /** @param open a fresh pager of the section from `state` (or its start) */
  constructor(
    readonly name: string,
    private readonly open: (state?: PagerState) => Pager,
    private pager: Pager = open(),
  ) {}

  /** Reads the whole section into a map: for a section (or an `employees` list) not in ascending order. */
  async loadWhole(): Promise<void> {
    if (this.bulk) return;
    const all = new Map<number, Obj>();
    const pager = this.open();
    for (let recs = await pager.next(); recs !== null; recs = await pager.next())
      for (const r of recs) {
        const id = idOf(r);
        if (id !== undefined) all.set(id, r);
      }
    this.bulk = all;
    this.buffer = [];
  }

  /** The section's records of `ids` (ascending, largest `maxId`), reading just far enough. */
  async take(ids: ReadonlySet<number>, maxId: number): Promise<Map<number, Obj>> {
    if (!this.bulk) {
      while (!this.pager.state.done && (this.buffer.length === 0 || this.buffer[this.buffer.length - 1]!.id < maxId)) {
        const page = this.pager.state.page;
        const recs = await this.pager.next();
        if (recs === null) break;
        for (const rec of recs) {
          const id = idOf(rec);
          if (id === undefined) continue;
          if (this.last !== undefined && id <= this.last) {
            await this.loadWhole();
            return this.take(ids, maxId);
          }
          this.last = id;
          this.buffer.push({ rec, id, page });
        }
      }
    }
    const out = new Map<number, Obj>();
    if (this.bulk) {
      for (const id of ids) {
        const r = this.bulk.get(id);
        if (r) out.set(id, r);
      }
      return out;
    }
    let k = 0;
    for (; k < this.buffer.length && this.buffer[k]!.id <= maxId; k++) if (ids.has(this.buffer[k]!.id)) out.set(this.buffer[k]!.id, this.buffer[k]!.rec);
    this.buffer = this.buffer.slice(k);
    return out;
  }

  /** Where to resume this section after the current `employees` page: the page of its first unread record. */
  resumeState(): PagerState & { bulk?: true } {
    if (this.bulk) return { page: 0, bulk: true };
    const s = this.pager.state;
    return this.buffer.length ? { page: this.buffer[0]!.page, ...(s.start !== undefined ? { start: s.start } : {}) } : { ...s };
  }
}
