/**
 * The audit log writer (decisions §7: every read of employee data is recorded: who, which
 * employee, which data points, when, request id). Group commit: entries written while a batch
 * is being committed form the next batch, so under load many reads share one INSERT and one WAL
 * flush, and a quiet service still commits each entry at once. `write` resolves only when its
 * entry is committed, so callers answer a read only after it is audited; it rejects when the
 * batch fails, and the read then fails too. Reads from the store are audited by their lookup
 * statement instead (employees/store.ts); this writer serves live HRMS reads.
 */
import type pg from 'pg';

/** One audited action. `dataPoints` null means every data point (stored as `['*']`). */
export interface AuditEntryInput {
  requestId: string;
  actorOrgId: number;
  action: string;
  clientOrgId: number | null;
  connectionId: string | null;
  employeeId: string | null;
  dataPoints: string[] | null;
}

export interface AuditWriter {
  /** Queues `entry`; resolves once it is committed. Throws the database error of its batch. */
  write(entry: AuditEntryInput): Promise<void>;
}

// Typed arrays, one per column (cheaper for PostgreSQL than parsing a JSON batch); each row's
// data points travel as one array literal and are cast back per row.
const INSERT = `insert into audit_log (request_id, actor_org_id, action, client_org_id, connection_id, employee_id, data_points)
  select r, a, ac, c, cn, e, d::text[]
    from unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::uuid[], $6::text[], $7::text[]) as t(r, a, ac, c, cn, e, d)`;

/** A PostgreSQL array literal of `items` with every element quoted and escaped. */
export function pgTextArray(items: readonly string[]): string {
  return `{${items.map((i) => `"${i.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/**
 * Inserts `entries` with one statement on `db` (a pool, or a transaction's client so the entries
 * commit or roll back with the writes they record, as the employee update webhook does).
 */
export async function insertAuditEntries(db: Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>, entries: readonly AuditEntryInput[]): Promise<void> {
  if (entries.length === 0) return;
  const values = [
    entries.map((e) => e.requestId), entries.map((e) => e.actorOrgId), entries.map((e) => e.action),
    entries.map((e) => e.clientOrgId), entries.map((e) => e.connectionId), entries.map((e) => e.employeeId),
    entries.map((e) => pgTextArray(e.dataPoints ?? ['*'])),
  ];
  await (db as Pick<pg.Pool, 'query'>).query({ name: 'hrx_audit_batch', text: INSERT, values });
}

/**
 * Builds a writer over `pool`; batches hold at most `maxBatch` entries (default 500). A batch
 * starts `windowMs` after its first entry (default 0: on the next turn of the event loop).
 */
export function createAuditWriter(pool: Pick<pg.Pool, 'query'>, opts: { maxBatch?: number; windowMs?: number } = {}): AuditWriter {
  const maxBatch = opts.maxBatch ?? 500;
  const windowMs = opts.windowMs ?? 0;
  let pending: { entry: AuditEntryInput; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      try {
        await insertAuditEntries(pool, batch.map((b) => b.entry));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    flushing = false;
  }

  return {
    write(entry) {
      return new Promise<void>((resolve, reject) => {
        pending.push({ entry, resolve, reject });
        if (!flushing) {
          flushing = true;
          if (windowMs > 0) setTimeout(() => void flush(), windowMs);
          else setImmediate(() => void flush());
        }
      });
    },
  };
}
