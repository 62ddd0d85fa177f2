/**
 * The audit log writer (docs/api.md "Employee details": every read of employee data is recorded: who, which
 * employee, which data points, when, request id). Group commit: entries written while a batch
 * is being committed form the next batch, so under load many reads share one INSERT and one WAL
 * flush, and a quiet service still commits each entry at once. `write` resolves only when its
 * entry is committed, so callers answer a read only after it is audited; it rejects when the
 * batch fails, and the read then fails too. Reads from the store are audited by their lookup
 * statement instead (employees/store.ts); this writer serves live HRMS reads.
 */
import type pg from 'pg';
import { insertAuditEntries, type AuditEntryInput } from '../db/sql';

export type { AuditEntryInput };

export interface AuditWriter {
  /** Queues `entry`; resolves once it is committed. Throws the database error of its batch. */
  write(entry: AuditEntryInput): Promise<void>;
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
        await insertAuditEntries(
          pool,
          batch.map((b) => b.entry),
        );
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
