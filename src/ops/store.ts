/**
 * What `/metrics` reads from PostgreSQL at scrape time: the event deliveries still pending. The
 * count uses the partial index of pending deliveries (`event_deliveries_pending_idx`), so it costs
 * what is pending, not the history; finished work is counted in Redis (`counters.ts`).
 */
import type pg from 'pg';
import { queryableOf, type Tx } from '../db/tx';

/**
 * Reads the scrape-time figures over `pool` (the request pool of the process; 1.5 s statement
 * limit). Every method takes an optional `Tx` (db/tx.ts), last.
 */
export function createOpsStore(pool: pg.Pool) {
  return {
    /** Deliveries whose row is `pending` (retries included); throws pg errors. */
    async pendingDeliveries(tx?: Tx): Promise<number> {
      const { rows } = await (await queryableOf(pool, tx)).query<{ n: number }>(`select count(*)::int as n from event_deliveries where status = 'pending'`);
      return rows[0]?.n ?? 0;
    },
  };
}

/** The scrape-time reads of the tables. */
export type OpsStore = ReturnType<typeof createOpsStore>;
