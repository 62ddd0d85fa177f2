/**
 * What `/metrics` reads from PostgreSQL at scrape time: the event deliveries still pending and the
 * approved connections by health. The
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

    /**
     * Approved connections by health (docs/sync.md "Connection health"): their client org's
     * stored health, `not_configured` without an HRMS configuration; without a stored health (no run
     * since it was kept) as `healthOf` in connections/freshness.ts reads it. One grouped query over
     * the approved connections; an org without a stored health costs one probe of
     * `sync_runs_org_started_idx` (docs/operations.md "Job schedulers at scale").
     */
    async connectionHealth(tx?: Tx): Promise<Record<string, number>> {
      const { rows } = await (
        await queryableOf(pool, tx)
      ).query<{ state: string; n: number }>(
        `select case when hc.org_id is null then 'not_configured' when h.state is not null then h.state
                     when not hc.valid then 'needs_reauth'
                     when (select s.status from sync_runs s where s.org_id = c.client_org_id order by s.started_at desc limit 1) = 'succeeded' then 'healthy'
                     else 'syncing' end as state, count(*)::int as n
           from connections c
           left join hrms_configs hc on hc.org_id = c.client_org_id
           left join org_health h on h.org_id = c.client_org_id
          where c.status = 'approved'
          group by 1`,
      );
      return Object.fromEntries(rows.map((r) => [r.state, r.n]));
    },
  };
}

/** The scrape-time reads of the tables. */
export type OpsStore = ReturnType<typeof createOpsStore>;
