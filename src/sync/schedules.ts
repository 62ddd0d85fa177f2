/**
 * Which client orgs must have a sync job scheduler, and how often (docs/operations.md "Job
 * schedulers at scale"): an org with at least one approved connection and a valid HRMS
 * configuration, every its approved connections' most frequent `sync_frequency` (an unknown
 * frequency counts as daily). Read in PostgreSQL, never by decrypting configurations, so the
 * one-org refresh, the full pass and the periodic check agree on the same set.
 *
 * The set has a fingerprint: its size and the sum, over its members, of a 32-bit hash of
 * `<orgId>:<everyMs>` (the first 8 hex digits of its MD5). A sum is order-free and can be kept
 * up to date one member at a time (add the new member's hash, subtract the old one's), and
 * PostgreSQL computes it in one aggregate; 10,000,000 orgs stay below 2^53, exact in a JS number.
 */
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, type Tx } from '../db/tx';

/** Milliseconds between syncs for each `sync_frequency` (docs/api.md "Vendor connections"). */
export const FREQUENCY_MS: Record<string, number> = {
  hourly: 3_600_000,
  every_6_hours: 6 * 3_600_000,
  every_12_hours: 12 * 3_600_000,
  daily: 24 * 3_600_000,
  weekly: 7 * 24 * 3_600_000,
};

/** A scheduler set's fingerprint: member count and sum of member hashes. */
export interface SchedulerFingerprint {
  count: number;
  sum: number;
}

/** The 32-bit hash of one member (org id, period in ms) of the scheduler set; same as the SQL `md5` form below. */
export function schedulerHash(orgId: number, everyMs: number): number {
  return Number.parseInt(createHash('md5').update(`${orgId}:${everyMs}`).digest('hex').slice(0, 8), 16);
}

/** The fingerprint of `schedules` (org id → period in ms), computed here. */
export function fingerprintOf(schedules: ReadonlyMap<number, number>): SchedulerFingerprint {
  let sum = 0;
  for (const [orgId, every] of schedules) sum += schedulerHash(orgId, every);
  return { count: schedules.size, sum };
}

const DAILY_MS = FREQUENCY_MS.daily!;
// `sync_frequency` → ms, from the one table of FREQUENCY_MS (values are integers we own, not input).
const EVERY_SQL = `case c.sync_frequency ${Object.entries(FREQUENCY_MS)
  .map(([f, ms]) => `when '${f}' then ${ms}`)
  .join(' ')} else ${DAILY_MS} end`;

const EXPECTED_SQL = `select c.client_org_id as org_id, min(${EVERY_SQL})::bigint as every
    from connections c join hrms_configs h on h.org_id = c.client_org_id and h.valid
   where c.status = 'approved'`;

export interface ScheduleStore {
  /** Every client org that must have a sync scheduler: org id → period (ms). One query. */
  expected(tx?: Tx): Promise<Map<number, number>>;
  /** The period (ms) client org `orgId`'s sync scheduler must have, or null for none. */
  expectedOf(orgId: number, tx?: Tx): Promise<number | null>;
  /** The fingerprint of {@link expected}, computed in PostgreSQL (one aggregate; no row leaves it). */
  fingerprint(tx?: Tx): Promise<SchedulerFingerprint>;
}

/** Builds the schedule store over `orm` (reads `connections` and `hrms_configs`). */
export function createScheduleStore(orm: MikroORM): ScheduleStore {
  return {
    async expected(tx) {
      const rows = await execute<{ org_id: number; every: string }>(orm, `${EXPECTED_SQL} group by c.client_org_id`, [], tx);
      return new Map(rows.map((r) => [Number(r.org_id), Number(r.every)]));
    },
    async expectedOf(orgId, tx) {
      const [row] = await execute<{ every: string }>(orm, `${EXPECTED_SQL} and c.client_org_id = ? group by c.client_org_id`, [orgId], tx);
      return row ? Number(row.every) : null;
    },
    async fingerprint(tx) {
      const [row] = await execute<{ count: string; sum: string | null }>(
        orm,
        `select count(*) as count, sum(('x' || substr(md5(org_id || ':' || every), 1, 8))::bit(32)::bigint) as sum
           from (${EXPECTED_SQL} group by c.client_org_id) e`,
        [],
        tx,
      );
      return { count: Number(row?.count ?? 0), sum: Number(row?.sum ?? 0) };
    },
  };
}
