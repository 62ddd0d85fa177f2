/**
 * The audit log writer (decisions §7: every read of employee data is recorded: who, which
 * employee, which data points, when, request id). Group commit: entries written while a batch
 * is being committed form the next batch, so under load many reads share one INSERT and one WAL
 * flush, and a quiet service still commits each entry at once. `write` resolves only when its
 * entry is committed, so callers answer a read only after it is audited; it rejects when the
 * batch fails, and the read then fails too.
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

const INSERT = `insert into audit_log (request_id, actor_org_id, action, client_org_id, connection_id, employee_id, data_points)
  select r.request_id, r.actor_org_id, r.action, r.client_org_id, r.connection_id, r.employee_id, r.data_points
    from jsonb_to_recordset($1::jsonb) as r(request_id uuid, actor_org_id int, action text, client_org_id int,
                                           connection_id uuid, employee_id text, data_points text[])`;

/** Builds a writer over `pool`; batches hold at most `maxBatch` entries (default 500). */
export function createAuditWriter(pool: Pick<pg.Pool, 'query'>, opts: { maxBatch?: number } = {}): AuditWriter {
  const maxBatch = opts.maxBatch ?? 500;
  let pending: { entry: AuditEntryInput; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      const rows = batch.map(({ entry: e }) => ({
        request_id: e.requestId, actor_org_id: e.actorOrgId, action: e.action, client_org_id: e.clientOrgId,
        connection_id: e.connectionId, employee_id: e.employeeId, data_points: e.dataPoints ?? ['*'],
      }));
      try {
        await pool.query({ name: 'hrx_audit_batch', text: INSERT, values: [JSON.stringify(rows)] });
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
          setImmediate(() => void flush());
        }
      });
    },
  };
}
