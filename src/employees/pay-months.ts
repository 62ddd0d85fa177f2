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
 * The read path (`latestWithAsOf`) and the writes of the sync and the update webhook go straight to
 * `pg`, like the employee store: concurrent reads share one prepared statement (batched), and a
 * write is one read of the page's stored digests, one statement per `PAY_WRITE_CHUNK` new or
 * changed months, and one trim, never a round trip per employee or month.
 */
import { createHmac } from 'node:crypto';
import DataLoader from 'dataloader';
import type pg from 'pg';
import { lastSuccessSql } from '../db/sql';
import { pgClientOf, type Queryable, type Tx } from '../db/tx';
import type { FieldCipher } from '../crypto/field-cipher';
import { normalizeRecord, type DeepPartial, type MonthlyDetails, type PayMonth } from '../domain/record';
import { lockPayEnvelopes, writePayEnvelopes } from './pay-envelope';

/** How many months back from an employee's latest pay month are kept (docs/pay-history.md "What is kept"). */
export const PAY_MONTHS_KEPT = 36;

export type { PayMonth } from '../domain/record';

/** A pay month to record for one employee (its store row id and HRMS `employeeId`). */
export interface PayMonthWrite {
  employeeRowId: string;
  employeeId: string;
  /** A partial `monthly` with `month` (1..12) and `year`; absent fields are stored empty. */
  month: DeepPartial<MonthlyDetails> & { month: number; year: number };
}

/** A sync's write: `writtenUpTo`, the `EmployeeStore.writeMark()` taken before its page was asked for. */
export interface PayWriteGuard {
  writtenUpTo: string;
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
   * Records `writes` of org `orgId` (the employee rows must exist), in `tx` when given (else in a
   * transaction of its own), with each written employee's pay envelope (employees/pay-envelope.ts): new months
   * are inserted, a different value replaces the stored one, an equal one changes nothing; then
   * each written employee keeps only its `PAY_MONTHS_KEPT` newest months. Returns the months
   * recorded (new or corrected) that are still kept, in input order. A month named twice for
   * the same employee counts once, the later value. Without `guard` the write is the update
   * webhook's (stamped with the next `employee_write_seq`); with it, a sync's, which leaves alone
   * a month the webhook wrote after `guard.writtenUpTo` (docs/pay-history.md "A sync never
   * reverts the webhook"). One read of the named employees' digests, then one statement per
   * `PAY_WRITE_CHUNK` months that are new or changed, then one trim.
   */
  record(orgId: number, writes: readonly PayMonthWrite[], tx?: Tx, guard?: PayWriteGuard): Promise<RecordedPayMonth[]>;
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

/** Rows one write statement carries at most: a payroll page (500 employees × 24 months) is several. */
export const PAY_WRITE_CHUNK = 1000;

/**
 * What is stored of the named employees' months: `$1` the org, `$2` the employee row ids. One
 * read per page (the primary key's prefix), so that a rewrite of an equal value is neither
 * encrypted nor sent, and a month the webhook wrote after the page's mark is left out.
 */
const STORED_SQL = `select employee_row_id, year, month, value_digest, webhook_seq::text as webhook_seq
  from pay_months where org_id = $1 and employee_row_id = any($2::uuid[])`;

/**
 * The write of a chunk of months: `$1` the org, then one array per column, `$7` the sync's write
 * mark (null: the update webhook's write, stamped with the next `employee_write_seq`). An equal
 * digest leaves the row as it is (and out of `returning`), and so does, for a sync's write, a row
 * the webhook wrote after the mark (checked on the row itself, so a concurrent webhook write that
 * the read before missed still wins); `xmax` is 0 on a row this statement inserted, so
 * `correction` is true exactly for a replaced value.
 */
const UPSERT_SQL = `insert into pay_months (employee_row_id, org_id, year, month, value_enc, value_digest, recorded_at, webhook_seq)
  select r.id, $1, r.y, r.m, r.enc, r.digest, now(), case when $7::bigint is null then nextval('employee_write_seq') end
    from unnest($2::uuid[], $3::int[], $4::int[], $5::text[], $6::text[]) as r(id, y, m, enc, digest)
  on conflict (employee_row_id, year, month) do update
    set value_enc = excluded.value_enc, value_digest = excluded.value_digest, recorded_at = excluded.recorded_at,
        webhook_seq = excluded.webhook_seq
    where pay_months.value_digest <> excluded.value_digest
      and ($7::bigint is null or pay_months.webhook_seq is null or pay_months.webhook_seq <= $7::bigint)
  returning employee_row_id, year, month, (xmax::text <> '0') as correction`;

/**
 * Keeps each named employee's months within `$2` of its latest, counted on one line
 * (year × 12 + month − 1), so a gap in the pay months does not stretch the window. One statement
 * for the whole page (the primary key's prefix per employee).
 */
const TRIM_SQL = `delete from pay_months p
  using (select employee_row_id, max(year * 12 + month - 1) as latest from pay_months
          where employee_row_id = any($1::uuid[]) group by employee_row_id) l
  where p.employee_row_id = l.employee_row_id and p.year * 12 + p.month - 1 <= l.latest - $2::int
  returning p.employee_row_id, p.year, p.month`;

/**
 * The read, for a batch of reads (one array element each, `ord` their order): each org's last
 * successful sync (as the freshness answer computes it) and the `n` newest months of each
 * employee row, newest first, by the primary key read backward.
 */
const LATEST_SQL = `select t.ord::int as ord, a.as_of, p.year, p.month, p.value_enc
  from unnest($1::int[], $2::uuid[], $3::int[]) with ordinality as t(org_id, row_id, n, ord)
  cross join lateral (select ${lastSuccessSql('t.org_id')} as as_of) a
  left join lateral (select year, month, value_enc from pay_months
                      where employee_row_id = t.row_id and org_id = t.org_id
                      order by year desc, month desc limit t.n) p on true
  order by t.ord, p.year desc, p.month desc`;

/** The name the read's statement is prepared under, once per connection (as the employee lookup's). */
export const PAY_LATEST_STATEMENT = 'hrx_pay_latest';

/** One read of `latestWithAsOf`. */
interface LatestAsk {
  orgId: number;
  employeeRowId: string;
  n: number;
}

/** The stored rows of one read, before decryption. */
interface LatestRows {
  asOf: Date | null;
  rows: { year: number; month: number; value_enc: string }[];
}

/** Builds the pay month store over `pool` (calls given a `Tx` run on its connection instead). */
export function createPayMonthStore(pool: pg.Pool, cipher: FieldCipher, digestKey: Buffer): PayMonthStore {
  const digest = (aad: string, json: string): string => createHmac('sha256', digestKey).update(aad).update('\n').update(json).digest('base64url');
  const key = (id: string, y: number, m: number) => `${id}|${y}|${m}`;
  // Reads wait for the next turn of the event loop so concurrent requests share one statement,
  // as the employee lookup does (employees/store.ts); no cache: every read asks the store.
  const reads = new DataLoader<LatestAsk, LatestRows>(
    async (asks) => {
      const res = await pool.query({
        name: PAY_LATEST_STATEMENT,
        text: LATEST_SQL,
        values: [asks.map((a) => a.orgId), asks.map((a) => a.employeeRowId), asks.map((a) => a.n)],
      });
      const out: LatestRows[] = asks.map(() => ({ asOf: null, rows: [] }));
      for (const r of res.rows as { ord: number; as_of: Date | null; year: number | null; month: number | null; value_enc: string | null }[]) {
        const one = out[r.ord - 1]!;
        one.asOf = r.as_of;
        if (r.value_enc !== null && r.year !== null && r.month !== null) one.rows.push({ year: r.year, month: r.month, value_enc: r.value_enc });
      }
      return out;
    },
    { cache: false, maxBatchSize: 200, batchScheduleFn: (run) => setImmediate(run) },
  );

  async function latestWithAsOf(orgId: number, employeeRowId: string, n: number) {
    const { asOf, rows } = await reads.load({ orgId, employeeRowId, n });
    const months = rows.map((r) => JSON.parse(cipher.decrypt(r.value_enc, payMonthAad(orgId, employeeRowId, r.year, r.month))) as PayMonth);
    return { asOf, months };
  }

  /** `record` on `db`, a transaction's connection (the envelopes' locks hold until it ends). */
  async function recordIn(db: Queryable, orgId: number, writes: readonly PayMonthWrite[], guard?: PayWriteGuard): Promise<RecordedPayMonth[]> {
    // The later value of a month named twice (ON CONFLICT cannot touch a row twice in one statement).
    const byKey = new Map<string, PayMonthWrite>();
    for (const w of writes) byKey.set(key(w.employeeRowId, w.month.year, w.month.month), w);
    const employeeIds = [...new Set([...byKey.values()].map((w) => w.employeeRowId))];
    const stored = new Map<string, { digest: string; webhookSeq: bigint | null }>();
    for (const r of (await db.query(STORED_SQL, [orgId, employeeIds])).rows as {
      employee_row_id: string;
      year: number;
      month: number;
      value_digest: string;
      webhook_seq: string | null;
    }[]) {
      stored.set(key(r.employee_row_id, r.year, r.month), { digest: r.value_digest, webhookSeq: r.webhook_seq === null ? null : BigInt(r.webhook_seq) });
    }
    const mark = guard ? BigInt(guard.writtenUpTo) : null;
    // What differs from the stored value: only these are encrypted and sent.
    const changed: { k: string; value: PayMonth; aad: string; json: string; digest: string; id: string }[] = [];
    for (const [k, w] of byKey) {
      const before = stored.get(k);
      // The webhook's later value stands (also rechecked by the statement, on the row).
      if (mark !== null && before?.webhookSeq != null && before.webhookSeq > mark) continue;
      const value = normalizePayMonth(w.month);
      const aad = payMonthAad(orgId, w.employeeRowId, value.year, value.month);
      const json = JSON.stringify(value);
      const d = digest(aad, json);
      if (before?.digest === d) continue; // the same value: nothing to write, no event
      changed.push({ k, value, aad, json, digest: d, id: w.employeeRowId });
    }
    if (changed.length === 0) return [];
    // The envelopes first, locked in one order by every writer: a concurrent write of the same
    // employee's months waits here, then merges into this one's result (employees/pay-envelope.ts).
    const envelopes = await lockPayEnvelopes(
      db,
      orgId,
      changed.map((c) => c.id),
    );
    const recorded = new Map<string, boolean>();
    const written = new Map<string, PayMonth[]>();
    // Chunk by chunk, from the value to the statement: a payroll page's months are never all
    // held encrypted at once (docs/sync.md "Memory and throughput").
    for (let i = 0; i < changed.length; i += PAY_WRITE_CHUNK) {
      const rows = changed.slice(i, i + PAY_WRITE_CHUNK);
      const values = new Map(rows.map((r) => [r.k, r.value]));
      const res = await db.query(UPSERT_SQL, [
        orgId,
        rows.map((r) => r.id),
        rows.map((r) => r.value.year),
        rows.map((r) => r.value.month),
        rows.map((r) => cipher.encrypt(r.json, r.aad)),
        rows.map((r) => r.digest),
        guard ? guard.writtenUpTo : null,
      ]);
      for (const r of res.rows as { employee_row_id: string; year: number; month: number; correction: boolean }[]) {
        const k = key(r.employee_row_id, r.year, r.month);
        recorded.set(k, r.correction);
        const list = written.get(r.employee_row_id) ?? [];
        list.push(values.get(k)!);
        written.set(r.employee_row_id, list);
      }
    }
    if (recorded.size === 0) return [];
    const trimmed = new Map<string, { year: number; month: number }[]>();
    for (const r of (await db.query(TRIM_SQL, [[...written.keys()], PAY_MONTHS_KEPT])).rows as { employee_row_id: string; year: number; month: number }[]) {
      recorded.delete(key(r.employee_row_id, r.year, r.month));
      const list = trimmed.get(r.employee_row_id) ?? [];
      list.push({ year: r.year, month: r.month });
      trimmed.set(r.employee_row_id, list);
    }
    await writePayEnvelopes(
      db,
      cipher,
      orgId,
      [...written].map(([employeeRowId, months]) => ({ employeeRowId, written: months, trimmed: trimmed.get(employeeRowId) ?? [] })),
      envelopes,
      (id, y, m) => payMonthAad(orgId, id, y, m),
    );
    const out: RecordedPayMonth[] = [];
    for (const [k, w] of byKey) {
      const correction = recorded.get(k);
      if (correction === undefined) continue;
      out.push({ employeeRowId: w.employeeRowId, employeeId: w.employeeId, year: w.month.year, month: w.month.month, correction });
    }
    return out;
  }

  return {
    async record(orgId, writes, tx, guard) {
      if (writes.length === 0) return [];
      if (tx) return recordIn(await pgClientOf(tx), orgId, writes, guard);
      // Alone: in a transaction of its own, so the envelopes stay locked until the months are written.
      const client = await pool.connect();
      try {
        await client.query('begin');
        const out = await recordIn(client, orgId, writes, guard);
        await client.query('commit');
        return out;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    latestWithAsOf,
    async latestPayMonths(orgId, employeeRowId, n) {
      return (await latestWithAsOf(orgId, employeeRowId, n)).months;
    },
  };
}
