/**
 * A client org's HRMS health (docs/sync.md "Connection health"): what its sync runs say of it,
 * written in the transaction of each run's start and end (so a committed run always has its
 * health, and the `connection.*` health events it causes go to the outbox in that transaction).
 *
 * Every connection of the org shows the org's health (syncs run per client org); `not_configured`
 * (no HRMS configuration) is read beside it, never stored. The rule of a run's end is
 * {@link settle}: pure, so the unit tests walk every transition.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { OrgHealthState, SettledHealth } from '../db/entities';
import { execute, type Tx } from '../db/tx';
import { connectionHealthEvent, type HealthEventType } from '../events/catalog';
import type { EventInput } from '../events/types';

/** Runs failed in a row, for reasons other than the credentials, that make an org `failing`. */
export const FAILING_AFTER = 3;

/** A connection's health as the vendor reads it: the org's, or `not_configured`. */
export type ConnectionHealth = OrgHealthState | 'not_configured';
export const CONNECTION_HEALTHS: readonly ConnectionHealth[] = ['not_configured', 'syncing', 'healthy', 'needs_reauth', 'failing'];

/** How a run ended, as health sees it: `reason` is the failed run's class (`auth`: the HRMS refused the credentials). */
export type RunEndForHealth = { status: 'succeeded' } | { status: 'failed'; reason: string };

/** Where a run's end leaves the org: the settled health, the failure streak, and the event a change sends (or null). */
export interface Settled {
  settled: SettledHealth | null;
  failures: number;
  event: HealthEventType | null;
}

/**
 * The health a finished run settles on, from the previous one (`settled` null: no run ended
 * yet). Success: `healthy`, streak 0 (`connection.healthy` only when coming back from
 * `needs_reauth` or `failing`). The HRMS refusing the credentials (`auth`): `needs_reauth`, streak
 * 0. Any other failure: streak + 1, `failing` from the third in a row, else unchanged. An event
 * is sent only when the settled health changes.
 */
export function settle(prev: { settled: SettledHealth | null; failures: number }, end: RunEndForHealth): Settled {
  let settled: SettledHealth | null;
  let failures: number;
  if (end.status === 'succeeded') {
    settled = 'healthy';
    failures = 0;
  } else if (end.reason === 'auth') {
    settled = 'needs_reauth';
    failures = 0;
  } else {
    failures = prev.failures + 1;
    settled = failures >= FAILING_AFTER ? 'failing' : prev.settled;
  }
  const changed = settled !== prev.settled;
  const back = prev.settled === 'needs_reauth' || prev.settled === 'failing';
  const event: HealthEventType | null =
    !changed || settled === null ? null : settled === 'healthy' ? (back ? 'connection.healthy' : null) : `connection.${settled}`;
  return { settled, failures, event };
}

/** The org's stored health row (absent: no run ever started). */
export interface OrgHealthRow {
  state: OrgHealthState;
  settled: SettledHealth | null;
  failures: number;
  lastRunId: string | null;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
}

export type HealthRecorder = ReturnType<typeof createHealthRecorder>;

/** Builds the recorder over `orm`; every method runs in the caller's `tx` (the run's transaction). */
export function createHealthRecorder(orm: MikroORM) {
  return {
    /** Run `runId` of org `orgId` started at `at`: the org is `syncing`. */
    async started(orgId: number, runId: string, at: Date, tx: Tx): Promise<void> {
      await execute(
        orm,
        `insert into org_health (org_id, state, last_run_id, last_attempt_at, changed_at) values (?, 'syncing', ?, ?, ?)
         on conflict (org_id) do update set state = 'syncing', last_run_id = excluded.last_run_id, last_attempt_at = excluded.last_attempt_at,
           changed_at = case when org_health.state = 'syncing' then org_health.changed_at else excluded.changed_at end`,
        [orgId, runId, at, at],
        tx,
      );
    },

    /**
     * Run `runId` of org `orgId` ended at `at`: stores the health it settles on ({@link settle};
     * the row is locked for the decision) and returns the health event to write in `tx` with the
     * run's end (`[]` when the health did not change).
     */
    async ended(orgId: number, runId: string, end: RunEndForHealth, at: Date, tx: Tx): Promise<EventInput[]> {
      const [prev] = await execute<{ settled: SettledHealth | null; failures: number; last_success_at: Date | null }>(
        orm,
        `select settled, failures, last_success_at from org_health where org_id = ? for update`,
        [orgId],
        tx,
      );
      const next = settle({ settled: prev?.settled ?? null, failures: prev?.failures ?? 0 }, end);
      const lastSuccessAt = end.status === 'succeeded' ? at : prev?.last_success_at ? new Date(prev.last_success_at) : null;
      // Until a first run settles (its failures still short of `failing`), the org stays `syncing`: the job retries.
      const state: OrgHealthState = next.settled ?? 'syncing';
      await execute(
        orm,
        `insert into org_health (org_id, state, settled, failures, last_run_id, last_attempt_at, last_success_at, changed_at)
         values (?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (org_id) do update set state = excluded.state, settled = excluded.settled, failures = excluded.failures,
           last_run_id = excluded.last_run_id, last_success_at = excluded.last_success_at,
           changed_at = case when org_health.state = excluded.state then org_health.changed_at else excluded.changed_at end`,
        [orgId, state, next.settled, next.failures, runId, at, lastSuccessAt, at],
        tx,
      );
      if (!next.event) return [];
      return [
        connectionHealthEvent({
          type: next.event,
          clientOrgId: orgId,
          previous: prev?.settled ?? null,
          runId,
          reason: end.status === 'failed' ? end.reason : null,
          lastSuccessAt,
          at,
        }),
      ];
    },

    /** Org `orgId`'s health row, or null (no run ever started). */
    async read(orgId: number, tx?: Tx): Promise<OrgHealthRow | null> {
      const [r] = await execute<{
        state: OrgHealthState;
        settled: SettledHealth | null;
        failures: number;
        last_run_id: string | null;
        last_attempt_at: Date | null;
        last_success_at: Date | null;
      }>(orm, `select state, settled, failures, last_run_id, last_attempt_at, last_success_at from org_health where org_id = ?`, [orgId], tx);
      if (!r) return null;
      const date = (d: Date | string | null): Date | null => (d === null ? null : new Date(d));
      return {
        state: r.state,
        settled: r.settled,
        failures: r.failures,
        lastRunId: r.last_run_id,
        lastAttemptAt: date(r.last_attempt_at),
        lastSuccessAt: date(r.last_success_at),
      };
    },
  };
}
