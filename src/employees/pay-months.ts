/**
 * Pay history at rest (docs/pay-history.md "What is kept"): at most one pay month per employee
 * per (`year`, `month`), the record's `monthly` shape (with `netPay` and `paidOn`), kept
 * `PAY_MONTHS_KEPT` months back from the employee's latest. Each value is an AES-256-GCM envelope
 * (crypto/field-cipher) bound to its row by `pay-month:<orgId>:<employee row id>:<year>-<month>`,
 * so it cannot be copied onto another month or employee, plus a keyed digest (HMAC-SHA256 under
 * `derivedKeys('pay-month-digest')`) of the same binding and value: the write itself tells a
 * rewrite of an equal value (nothing happens) from a correction, without reading values back.
 * Rows go with their employee row (`on delete cascade`): erasure and the retention purge reach them.
 *
 * The read path (`latest`) and the writes of the sync and the update webhook go straight to `pg`,
 * one statement each for a whole batch, like the employee store.
 */
import { createHmac } from 'node:crypto';
import type pg from 'pg';
import { queryableOf, type Tx } from '../db/tx';
import type { FieldCipher } from '../crypto/field-cipher';
import { normalizeRecord, type DeepPartial, type MonthlyDetails } from '../domain/record';

/** How many months back from an employee's latest pay month are kept (docs/pay-history.md "What is kept"). */
export const PAY_MONTHS_KEPT = 36;

/** One pay month as stored and served: the `monthly` shape with `month` and `year` set. */
export type PayMonth = MonthlyDetails & { month: number; year: number };

/** A pay month to record for one employee (its store row id and HRMS `employeeId`). */
export interface PayMonthWrite {
  employeeRowId: string;
  employeeId: string;
  /** A partial `monthly` with `month` (1..12) and `year`; absent fields are stored empty. */
  month: DeepPartial<MonthlyDetails> & { month: number; year: number };
}

/** A pay month a write recorded: new (`correction` false) or replacing a different value (true). */
export interface RecordedPayMonth {
  employeeRowId: string;
  employeeId: string;
  year: number;
  month: number;
  correction: boolean;
}

export interface PayMonthStore {
  /**
   * Records `writes` of org `orgId` (the employee rows must exist), in `tx` when given: new months
   * are inserted, a different value replaces the stored one, an equal one changes nothing; then
   * each written employee keeps only its `PAY_MONTHS_KEPT` newest months. Returns the months
   * recorded (new or corrected) that are still kept, in input order. A month named twice for
   * the same employee counts once, the later value.
   */
  record(orgId: number, writes: readonly PayMonthWrite[], tx?: Tx): Promise<RecordedPayMonth[]>;
  /**
   * The `n` newest pay months of employee row `employeeRowId` of org `orgId`, decrypted, newest
   * first, with `as_of`, the org's last successful sync (null when none). Throws
   * `DecryptionError` when an envelope does not open.
   */
  latestWithAsOf(orgId: number, employeeRowId: string, n: number): Promise<{ asOf: Date | null; months: PayMonth[] }>;
  /** `latestWithAsOf` without `as_of`: the API other features call (e.g. an income credential). */
  latestPayMonths(orgId: number, employeeRowId: string, n: number): Promise<PayMonth[]>;
}

/** Associated data binding a pay month's envelope (and its digest) to its row. */
export function payMonthAad(orgId: number, employeeRowId: string, year: number, month: number): string {
  return `pay-month:${orgId}:${employeeRowId}:${year}-${month}`;
}

/** The full pay month of a partial one: absent fields at their empty value (docs/data-points.md). */
export function normalizePayMonth(partial: PayMonthWrite['month']): PayMonth {
  const monthly = normalizeRecord({ employeeId: '-', salaryDetails: { monthly: partial } }, '-').salaryDetails.monthly;
  return { ...monthly, month: partial.month, year: partial.year };
}

/**
 * The write of a batch of months: `$1` the org, then one array per column. An equal digest leaves
 * the row as it is (and out of `returning`); `xmax` is 0 on a row this statement inserted, so
 * `correction` is true exactly for a replaced value.
 */
const UPSERT_SQL = `insert into pay_months (employee_row_id, org_id, year, month, value_enc, value_digest, recorded_at)
  select r.id, $1, r.y, r.m, r.enc, r.digest, now()
    from unnest($2::uuid[], $3::int[], $4::int[], $5::text[], $6::text[]) as r(id, y, m, enc, digest)
  on conflict (employee_row_id, year, month) do update
    set value_enc = excluded.value_enc, value_digest = excluded.value_digest, recorded_at = excluded.recorded_at
    where pay_months.value_digest <> excluded.value_digest
  returning employee_row_id, year, month, (xmax::text <> '0') as correction`;

/**
 * Keeps each named employee's months within `$2` of its latest, counted on one line
 * (year × 12 + month − 1), so a gap in the pay months does not stretch the window.
 */
const TRIM_SQL = `delete from pay_months p
  using (select employee_row_id, max(year * 12 + month - 1) as latest from pay_months
          where employee_row_id = any($1::uuid[]) group by employee_row_id) l
  where p.employee_row_id = l.employee_row_id and p.year * 12 + p.month - 1 <= l.latest - $2::int
  returning p.employee_row_id, p.year, p.month`;

/**
 * The read: the org's last successful sync (as the freshness answer computes it) and the `$3`
 * newest months of one employee row, newest first, by the primary key read backward.
 */
const LATEST_SQL = `select a.as_of, p.year, p.month, p.value_enc
  from (select greatest((select h.last_success_at from org_health h where h.org_id = $1),
                        (select max(s.finished_at) from sync_runs s where s.org_id = $1 and s.status = 'succeeded')) as as_of) a
  left join lateral (select year, month, value_enc from pay_months
                      where employee_row_id = $2 and org_id = $1
                      order by year desc, month desc limit $3) p on true`;

/** Builds the pay month store over `pool` (calls given a `Tx` run on its connection instead). */
export function createPayMonthStore(pool: pg.Pool, cipher: FieldCipher, digestKey: Buffer): PayMonthStore {
  const digest = (aad: string, json: string): string => createHmac('sha256', digestKey).update(aad).update('\n').update(json).digest('base64url');
  const key = (id: string, y: number, m: number) => `${id}|${y}|${m}`;

  async function latestWithAsOf(orgId: number, employeeRowId: string, n: number) {
    const res = await pool.query(LATEST_SQL, [orgId, employeeRowId, n]);
    const rows = res.rows as { as_of: Date | null; year: number | null; month: number | null; value_enc: string | null }[];
    const months: PayMonth[] = [];
    for (const r of rows) {
      if (r.value_enc === null || r.year === null || r.month === null) continue;
      const value = JSON.parse(cipher.decrypt(r.value_enc, payMonthAad(orgId, employeeRowId, r.year, r.month))) as PayMonth;
      months.push(value);
    }
    return { asOf: rows[0]?.as_of ?? null, months };
  }

  return {
    async record(orgId, writes, tx) {
      if (writes.length === 0) return [];
      // The later value of a month named twice (ON CONFLICT cannot touch a row twice in one statement).
      const byKey = new Map<string, PayMonthWrite>();
      for (const w of writes) byKey.set(key(w.employeeRowId, w.month.year, w.month.month), w);
      const ids: string[] = [];
      const years: number[] = [];
      const months: number[] = [];
      const encs: string[] = [];
      const digests: string[] = [];
      for (const w of byKey.values()) {
        const value = normalizePayMonth(w.month);
        const aad = payMonthAad(orgId, w.employeeRowId, value.year, value.month);
        const json = JSON.stringify(value);
        ids.push(w.employeeRowId);
        years.push(value.year);
        months.push(value.month);
        encs.push(cipher.encrypt(json, aad));
        digests.push(digest(aad, json));
      }
      const db = await queryableOf(pool, tx);
      const written = await db.query(UPSERT_SQL, [orgId, ids, years, months, encs, digests]);
      const trimmed = await db.query(TRIM_SQL, [[...new Set(ids)], PAY_MONTHS_KEPT]);
      const gone = new Set((trimmed.rows as { employee_row_id: string; year: number; month: number }[]).map((r) => key(r.employee_row_id, r.year, r.month)));
      const recorded = new Map<string, boolean>();
      for (const r of written.rows as { employee_row_id: string; year: number; month: number; correction: boolean }[]) {
        const k = key(r.employee_row_id, r.year, r.month);
        if (!gone.has(k)) recorded.set(k, r.correction);
      }
      const out: RecordedPayMonth[] = [];
      for (const [k, w] of byKey) {
        const correction = recorded.get(k);
        if (correction === undefined) continue;
        out.push({ employeeRowId: w.employeeRowId, employeeId: w.employeeId, year: w.month.year, month: w.month.month, correction });
      }
      return out;
    },
    latestWithAsOf,
    async latestPayMonths(orgId, employeeRowId, n) {
      return (await latestWithAsOf(orgId, employeeRowId, n)).months;
    },
  };
}
