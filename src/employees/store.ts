/**
 * Employee persistence. The sync's bulk writes (one `INSERT … ON CONFLICT` per page) and the
 * vendor read path (one statement, the hottest path of the service, see bench/) go
 * straight to `pg` (a pool on the same database and schema as MikroORM, or a transaction's
 * connection through `pgClientOf`, see db/tx.ts): both carry large or frequent parameters that
 * the query builder would only slow down. No statement is named (prepared per connection): a
 * transaction pooler hands each transaction another server connection (docs/operations.md
 * "Scaling out").
 */
import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import type pg from 'pg';
import { auditDataPointsLiteral, lastSuccessSql, markEstablished, notWithdrawnSince } from '../db/sql';
import { queryableOf, type Tx } from '../db/tx';
import type { FieldCipher } from '../crypto/field-cipher';
import { byEmployeeId, employeeRowsValues, encodeEmployeeRows, MAX_ROWS_PER_STATEMENT } from './codec';
import type { DataPoints } from '../domain/data-points';
import type { EmployeeRecord } from '../domain/record';
import { isUuid } from '../domain/ids';

/** An employee a full sync no longer saw: store id and HRMS `employeeId`. */
export interface RemovedEmployee {
  id: string;
  employeeId: string;
}

/**
 * An employee row as the read path gets it (envelopes: employees/codec.ts). In the `masked` form
 * `recordEnc` is null unless `maskedEnc` is (a row written before the masked envelope existed);
 * in the `full` form `maskedEnc` is null.
 */
export interface StoredEmployeeRow {
  id: string;
  employeeId: string;
  recordEnc: string | null;
  maskedEnc: string | null;
  /** Whether a consent is in force (true when none was asked about). */
  consentOk: boolean;
  /**
   * The `pay` form only: the employee's pay envelope (employees/pay-envelope.ts), null when none
   * is built or consent is not in force; and the org's last successful sync, ISO 8601 UTC with
   * milliseconds (null when none).
   */
  payEnc?: string | null;
  asOf?: string | null;
}

/** The audit entry of a read, written by the lookup itself (docs/api.md "Employee details"). */
export interface LookupAudit {
  requestId: string;
  actorOrgId: number;
  action: string;
  connectionId: string;
  /** The data points the read returned (`EVERY_DATA_POINT` for all). */
  dataPoints: DataPoints;
}

/** One employee lookup of the vendor read path. */
export interface EmployeeLookup {
  clientOrgId: number;
  /** The employee's `employeeId`, or its store `id` (a UUID). */
  employeeRef: string;
  /** Vendor org whose consent in force is asked about; null: none is. */
  consentFor: number | null;
  /**
   * What the row carries: the record envelope (`full`), the masked one (`masked`), or neither but
   * the pay envelope and the org's last successful sync (`pay`, the pay history read).
   */
  form: 'full' | 'masked' | 'pay';
  /**
   * When given, the same statement writes this audit entry if the employee is found and its
   * consent (when asked about) is in force; the lookup resolves only once it is committed.
   */
  audit?: LookupAudit | undefined;
}

/**
 * What a sync's page wrote (`upsertPage`): its employee ids and the write mark its rows reached
 * (the highest `write_seq` among them, a bigint as text). Bounded by the page size.
 */
export interface PageWrites {
  employeeIds: string[];
  upTo: string;
}

/** Which stored rows a sync's page may overwrite (docs/sync.md "Memory and throughput"). */
export interface PageGuard {
  /** A `writeMark()` taken before the page was asked for: a row written after it (by the update webhook) keeps its values. */
  writtenUpTo: string;
  /**
   * The same run's previous page, when the page was asked for before that one was written (the
   * sync asks for the next page while it writes the current one): rows that page wrote are the
   * run's own writes, not the webhook's, so a later listing of the same employee still wins.
   */
  previous?: PageWrites | undefined;
}

export interface EmployeeStore {
  /**
   * Inserts or updates `records` of `orgId` (deduplicated by employeeId), marking them seen by
   * `runId`. With `writtenUpTo` (a `writeMark()` taken before the records were fetched), a row
   * written after that mark (by the update webhook) keeps its values and is only marked seen.
   */
  upsertBatch(orgId: number, runId: string | null, records: EmployeeRecord[], writtenUpTo?: string, tx?: Tx): Promise<number>;
  /**
   * `upsertBatch` for one page of sync run `runId`, guarded by `guard`; one statement for the
   * page (up to `MAX_ROWS_PER_STATEMENT` rows, a `VALUES` list of bind parameters), plus one per
   * round when an employee's id changed under it. Returns how many employees it wrote and what
   * they reached (for the next page's guard).
   */
  upsertPage(orgId: number, runId: string, records: EmployeeRecord[], guard: PageGuard, tx?: Tx): Promise<PageWrites & { written: number }>;
  /** The employee write sequence's high-water mark now (a bigint as text), for `upsertBatch`. */
  writeMark(tx?: Tx): Promise<string>;
  /**
   * The one removal rule (docs/behaviour.md "Sync"): marks the (not removed) employees of `orgId` that run
   * `runId` did not see as removed. Returns them in `employeeId` order.
   */
  removeUnseen(orgId: number, runId: string, tx?: Tx): Promise<RemovedEmployee[]>;
  /**
   * The removal rule of incremental syncs (docs/hrms/connectors.md): marks the (not removed) employees of
   * `orgId` whose HRMS `employeeId` the HRMS reported gone as removed, unless written after
   * `writtenUpTo` (a `writeMark()`; the update webhook's later write wins). Returns them in
   * `employeeId` order.
   */
  removeReported(orgId: number, employeeIds: string[], writtenUpTo: string, tx?: Tx): Promise<RemovedEmployee[]>;
  /** Existing store ids by employeeId for `orgId` (so re-synced employees keep their `id`). */
  idsFor(orgId: number, employeeIds: string[], tx?: Tx): Promise<Map<string, string>>;
  /**
   * The (not removed) employee of `q`, with whether the consent asked about is in force, or null.
   * Lookups made in the same turn of the event loop share one statement (see `LOOKUP_SQL`).
   * Throws the database error of its batch.
   *
   * The one store method without a `Tx`, by design: the lookup is batched (DataLoader) with the
   * concurrent requests' lookups and runs on the pool; joining one caller's transaction would
   * defeat the batching (db/README.md).
   */
  findEmployee(q: EmployeeLookup): Promise<StoredEmployeeRow | null>;
}

/**
 * The read path's one statement, for a batch of lookups (one array element per lookup): each
 * finds its employee by `employeeId` or store id, checks consent, and, where asked, writes the
 * read's audit entry (only for found, consented reads) in the same statement, so a read is
 * answered only after its audit entry is committed and a busy API makes one round trip for
 * many reads (bench/: the hottest path of the service). The `pay` form (the pay history read)
 * carries the employee's pay envelope and the org's last successful sync instead of a record
 * envelope, so that read too is one round trip (employees/pay-envelope.ts).
 */
const LOOKUP_SQL = `with t as (
    select * from unnest($1::int[], $2::text[], $3::uuid[], $4::int[], $5::text[], $6::uuid[], $7::int[], $8::text[], $9::uuid[], $10::text[])
      with ordinality as t(org_id, ref, ref_id, consent_for, form, request_id, actor_org_id, action, connection_id, data_points, ord)
  ), found as (
    select t.*, e.id, e.employee_id,
           case when t.form = 'masked' then e.masked_enc end as masked_enc,
           case when t.form = 'full' or (t.form = 'masked' and e.masked_enc is null) then e.record_enc end as record_enc,
           (t.consent_for is null or exists (
              select 1 from consents k where k.vendor_org_id = t.consent_for and k.client_org_id = t.org_id
                 and k.employee_id = e.employee_id and k.revoked_at is null and k.consent_expiry > now()
                 and ${notWithdrawnSince('k')})) as consent_ok
      from t cross join lateral (
        (select e.id, e.employee_id, e.masked_enc, e.record_enc from employees e
          where e.org_id = t.org_id and e.employee_id = t.ref and e.removed_at is null)
        union all
        (select e.id, e.employee_id, e.masked_enc, e.record_enc from employees e
          where e.id = t.ref_id and e.org_id = t.org_id and e.removed_at is null)
        limit 1) e
  ), audited as (
    insert into audit_log (request_id, actor_org_id, action, client_org_id, connection_id, employee_id, data_points)
    select f.request_id, f.actor_org_id, f.action, f.org_id, f.connection_id, f.employee_id, f.data_points::text[]
      from found f where f.action is not null and f.consent_ok
  )
  select f.ord::int as ord, f.id, f.employee_id, f.masked_enc, f.record_enc, f.consent_ok,
         case when f.form = 'pay' and f.consent_ok then (select p.value_enc from pay_envelopes p where p.employee_row_id = f.id) end as pay_enc,
         -- As the answer writes it (ISO 8601 UTC, milliseconds): no Date made and formatted per read.
         case when f.form = 'pay' then to_char(date_trunc('milliseconds', ${lastSuccessSql('f.org_id')}) at time zone 'UTC',
                                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end as as_of
    from found f`;

/**
 * Runs a batch of lookups as one statement; one entry per lookup, in order (an `Error` for a
 * lookup that failed alone). When the statement fails on bad data (SQLSTATE class 22), nothing
 * of it was committed, and each lookup is retried on its own, so one request's bad input never
 * fails another's. An employee ref holding NUL finds nothing (PostgreSQL text cannot hold it).
 */
async function lookupIsolated(pool: pg.Pool, items: readonly EmployeeLookup[]): Promise<(StoredEmployeeRow | null | Error)[]> {
  const out: (StoredEmployeeRow | null | Error)[] = items.map(() => null);
  const asked = [...items.keys()].filter((i) => !items[i]!.employeeRef.includes('\u0000'));
  if (asked.length === 0) return out;
  try {
    const rows = await lookupBatch(
      pool,
      asked.map((i) => items[i]!),
    );
    asked.forEach((i, k) => {
      out[i] = rows[k]!;
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (asked.length === 1 || typeof code !== 'string' || !code.startsWith('22')) throw err;
    await Promise.all(
      asked.map(async (i) => {
        out[i] = await lookupBatch(pool, [items[i]!]).then(
          (r) => r[0]!,
          (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
        );
      }),
    );
  }
  return out;
}

/** The name the read's statement is prepared under, once per connection (`session` pool mode). */
export const LOOKUP_STATEMENT = 'hrx_employee_lookup';

/** Runs one batch of lookups; the result has one entry per lookup, in order. */
async function lookupBatch(pool: pg.Pool, items: readonly EmployeeLookup[]): Promise<(StoredEmployeeRow | null)[]> {
  const values = [
    items.map((i) => i.clientOrgId),
    items.map((i) => i.employeeRef),
    items.map((i) => (isUuid(i.employeeRef) ? i.employeeRef : null)),
    items.map((i) => i.consentFor),
    items.map((i) => i.form),
    items.map((i) => i.audit?.requestId ?? null),
    items.map((i) => i.audit?.actorOrgId ?? null),
    items.map((i) => i.audit?.action ?? null),
    items.map((i) => i.audit?.connectionId ?? null),
    items.map((i) => (i.audit ? auditDataPointsLiteral(i.audit.dataPoints) : null)),
  ];
  // Named: prepared once per connection, so PostgreSQL does not parse, analyse and plan this
  // statement for every batch of reads (about half of its CPU per read when unnamed; see
  // docs/benchmarks.md "The read's statement prepared"). With HRX_DB_POOL_MODE=transaction the
  // connection drops the name (db/settings.ts): a transaction pooler keeps no prepared statement.
  // A connection's cached plan lives at most PG_POOL_CONNECTION_LIFETIME_S (src/infra.ts).
  const res = await pool.query({ name: LOOKUP_STATEMENT, text: LOOKUP_SQL, values });
  const out: (StoredEmployeeRow | null)[] = items.map(() => null);
  for (const r of res.rows as Record<string, unknown>[]) {
    out[(r.ord as number) - 1] = {
      id: r.id as string,
      employeeId: r.employee_id as string,
      recordEnc: r.record_enc as string | null,
      maskedEnc: r.masked_enc as string | null,
      consentOk: r.consent_ok === true,
      payEnc: (r.pay_enc as string | null) ?? null,
      asOf: (r.as_of as string | null) ?? null,
    };
  }
  return out;
}

/**
 * The stored row ids of some employees of an org: `$1` the org id, `$2` the employee ids (text[]);
 * rows `{ employee_id, id }` for those that exist. One index probe per id (a lateral subquery
 * per id, kept from being merged into a join by its `limit 1`, exact for a unique key), never a
 * scan of the org: until ANALYZE has seen a growing org, PostgreSQL takes
 * `employee_id = any(<500 ids>)` to match every row and read the whole org on each page, which
 * made a first sync O(n²) (docs/sync.md "Memory and throughput").
 */
export const EMPLOYEE_IDS_SQL = `select k.employee_id, e.id from unnest($2::text[]) as k(employee_id)
  cross join lateral (select id from employees
                       where org_id = $1 and employee_id = k.employee_id limit 1) as e`;

/**
 * The removal of the employees an HRMS reported gone (`removeReported`): `$1` the org id, `$2` the
 * HRMS employee ids (text[]), `$3` the write mark. The rows are found as {@link EMPLOYEE_IDS_SQL}
 * finds them, one index probe per id, never a scan of the org (a large list reported gone on an
 * org without statistics would otherwise read every row); the conditions that decide the removal
 * stay on the updated row, so PostgreSQL checks them again on a row a concurrent write changed
 * (the update webhook's later write wins).
 */
export const REMOVE_REPORTED_SQL = `update employees e set removed_at = now(), updated_at = now()
  where e.id = any(array(
          select x.id from (select distinct k from unnest($2::text[]) as k) as k(employee_id)
            cross join lateral (select id from employees
                                 where org_id = $1 and employee_id = k.employee_id limit 1) as x))
    and e.org_id = $1 and e.removed_at is null and e.write_seq <= $3::bigint
  returning e.id, e.employee_id`;

/** Builds the employee store over `pool` (calls given a `Tx` run on its connection instead). */
export function createEmployeeStore(pool: pg.Pool, cipher: FieldCipher): EmployeeStore {
  // Lookups wait for the next turn of the event loop (setImmediate, after the current batch of
  // socket reads) so concurrent requests share a statement; no cache: every read asks the store.
  const lookups = new DataLoader<EmployeeLookup, StoredEmployeeRow | null>((items) => lookupIsolated(pool, items), {
    cache: false,
    maxBatchSize: 200,
    batchScheduleFn: (run) => setImmediate(run),
  });
  const idsFor = async (orgId: number, employeeIds: string[], tx?: Tx): Promise<Map<string, string>> => {
    if (employeeIds.length === 0) return new Map();
    const res = await (
      await queryableOf(pool, tx)
    ).query({
      text: EMPLOYEE_IDS_SQL,
      values: [orgId, employeeIds],
    });
    return new Map((res.rows as { employee_id: string; id: string }[]).map((r) => [r.employee_id, r.id]));
  };
  const upsert = async (
    orgId: number,
    runId: string | null,
    records: readonly EmployeeRecord[],
    guard: PageGuard | undefined,
    tx?: Tx,
  ): Promise<PageWrites & { written: number }> => {
    const db = await queryableOf(pool, tx);
    const byEmployee = new Map<string, EmployeeRecord>();
    for (const r of records) byEmployee.set(r.employeeId, r);
    if (byEmployee.size === 0) return { written: 0, employeeIds: [], upTo: '0' };
    // `encodeEmployeeRows` sends rows in employee_id order: the update webhook locks rows in the
    // same order, so the two queue on each other instead of deadlocking.
    let pending = [...byEmployee.values()];
    let upTo = 0n;
    // Whether the stored row may take this batch's values: not written since the mark, or
    // written by the run's previous page (its own write, not the webhook's).
    const fresh = `($3::bigint is null or employees.write_seq <= $3::bigint
      or (employees.employee_id = any($4::text[]) and employees.write_seq <= $5::bigint))`;
    const guardValues = [guard?.writtenUpTo ?? null, guard?.previous?.employeeIds ?? [], guard?.previous?.upTo ?? '0'];
    for (let round = 1; pending.length > 0; round++) {
      // Straight to pg, one statement per page (of up to MAX_ROWS_PER_STATEMENT rows): the rows
      // as a VALUES list of bind parameters, each envelope one parameter, in order. A row whose
      // stored id differs from the record's (the employee was created, e.g. by the update
      // webhook, after `idsFor`) is left alone: its masked envelope carries the id, so it is
      // re-encoded with the stored id and written again.
      const rows = encodeEmployeeRows(orgId, pending, cipher);
      const written = new Set<string>();
      for (let at = 0; at < rows.length; at += MAX_ROWS_PER_STATEMENT) {
        const list = employeeRowsValues(rows.slice(at, at + MAX_ROWS_PER_STATEMENT), 6);
        const res = await db.query(
          `insert into employees (id, org_id, employee_id, record_enc, masked_enc, last_sync_run_id, removed_at, updated_at)
           select r.id, $1, r.employee_id, r.record_enc, r.masked_enc, $2::uuid, null, now()
             from (values ${list.sql}) as r(id, employee_id, record_enc, masked_enc)
           on conflict (org_id, employee_id) do update
             set record_enc = case when ${fresh} then excluded.record_enc else employees.record_enc end,
                 masked_enc = case when ${fresh} then excluded.masked_enc else employees.masked_enc end,
                 last_sync_run_id = coalesce(excluded.last_sync_run_id, employees.last_sync_run_id),
                 removed_at = case when ${fresh} then null else employees.removed_at end,
                 updated_at = case when ${fresh} then now() else employees.updated_at end,
                 write_seq = case when ${fresh} then nextval('employee_write_seq') else employees.write_seq end
             where employees.id = excluded.id
           returning employee_id, write_seq::text as seq`,
          [orgId, runId, ...guardValues, ...list.values],
        );
        for (const r of res.rows as { employee_id: string; seq: string }[]) {
          written.add(r.employee_id);
          const seq = BigInt(r.seq);
          if (seq > upTo) upTo = seq;
        }
      }
      const stale = pending.filter((r) => !written.has(r.employeeId));
      if (stale.length > 0 && round >= 5) throw new Error(`employee ids of org ${orgId} kept changing during an upsert`);
      const ids = stale.length
        ? await idsFor(
            orgId,
            stale.map((r) => r.employeeId),
            tx,
          )
        : new Map<string, string>();
      pending = stale.map((r) => ({ ...r, id: ids.get(r.employeeId) ?? r.id }));
    }
    // An org with an employee is established for good (docs/connect.md "Who may approve").
    await markEstablished(db, orgId);
    return { written: byEmployee.size, employeeIds: [...byEmployee.keys()], upTo: upTo.toString() };
  };
  return {
    async writeMark(tx) {
      const res = await (
        await queryableOf(pool, tx)
      ).query({
        text: `select (case when is_called then last_value else last_value - 1 end)::text as mark from employee_write_seq`,
      });
      return (res.rows[0] as { mark: string }).mark;
    },
    async upsertBatch(orgId, runId, records, writtenUpTo, tx) {
      return (await upsert(orgId, runId, records, writtenUpTo === undefined ? undefined : { writtenUpTo }, tx)).written;
    },
    upsertPage: (orgId, runId, records, guard, tx) => upsert(orgId, runId, records, guard, tx),
    async removeUnseen(orgId, runId, tx) {
      return removed(
        await (
          await queryableOf(pool, tx)
        ).query(
          `update employees set removed_at = now(), updated_at = now()
          where org_id = $1 and removed_at is null and last_sync_run_id is distinct from $2::uuid
        returning id, employee_id`,
          [orgId, runId],
        ),
      );
    },
    async removeReported(orgId, employeeIds, writtenUpTo, tx) {
      if (employeeIds.length === 0) return [];
      return removed(await (await queryableOf(pool, tx)).query(REMOVE_REPORTED_SQL, [orgId, employeeIds, writtenUpTo]));
    },
    idsFor,
    findEmployee(q) {
      return lookups.load(q);
    },
  };
}

/** The rows an employee removal returned, in `employeeId` order. */
function removed(res: { rows: unknown[] }): RemovedEmployee[] {
  return (res.rows as { id: string; employee_id: string }[])
    .map((r) => ({ id: r.id, employeeId: r.employee_id }))
    .sort((a, b) => byEmployeeId(a.employeeId, b.employeeId));
}

/** A new store id for an employee seen for the first time. */
export const newEmployeeRowId = (): string => randomUUID();
