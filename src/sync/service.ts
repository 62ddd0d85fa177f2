/**
 * The sync of a client org (docs/api.md "Terminate connection", docs/behaviour.md "Sync"): under the org's sync lock, stream the HRMS pages
 * through the connector, normalize each employee into the record, upsert page by page, then mark
 * employees the full sync did not see as removed. Also computes the org's schedule.
 *
 * Employees their employer erased (a tombstone, docs/erasure-and-retention.md "Erasing an employee") are skipped: each page is written
 * in a transaction that takes the org's erasure lock shared and filters the page against the
 * tombstones first, so an erasure committed while the page was at the HRMS is never undone
 * (employees/erasure-store.ts).
 *
 * A run commits its end (removals, `succeeded`, events) only while it still holds the lock: a
 * lock lost on the way (renewal failed, or another holder) fails the run and the job retries. An
 * HRMS that gives no answer at all for `hrmsStallMs` is given up on: its calls are aborted, the
 * run fails (`hrms_stalled`) and the lock is released, so a dead HRMS never keeps termination
 * refused. Waiting out throttling or the tenant's budget is not silence: the run keeps its lock
 * (renewed all along) and goes on (docs/behaviour.md "Waiting is not stalling").
 */
import type { Transactor, Tx } from '../db/tx';
import type { Logger } from '../logger';
import { canonicalEmployeeId } from '../domain/ids';
import { normalizeRecord } from '../domain/record';
import { employeesRemovedEvents, syncCompletedEvent, syncDegradedEvent, syncFailedEvent } from '../events/catalog';
import type { EventService } from '../events/service';
import type { Written } from '../events/types';
import type { ErasureStore } from '../employees/erasure-store';
import { newEmployeeRowId, type EmployeeStore, type PageWrites } from '../employees/store';
import { HrmsError, type ConnectorOptions, type HrmsAccess, type HrmsConnectorDefinition, type RequestBudget } from '../hrms/connector';
import type { ConnectorLookup } from '../hrms/registry';
import type { HrmsConfigStore } from '../setup/store';
import { createRunBound, SyncBoundError, type SyncBounds } from './bound';
import type { HealthRecorder } from './health';
import type { SyncLock } from './lock';
import type { SyncTrigger } from './queue';
import { FREQUENCY_MS } from './schedules';
import { planRun } from './plan';
import { askFor, canonicalPage } from './pages';
import type { SyncRunStore } from './store';
import type { SyncKind } from '../db/entities';
import { createStallWatch, SyncInterruptedError, untilAnswer, type StallWatch } from './stall';
import { backfillMonths, backfillPayMonths, payMonthsOfRecords, recordPayMonths } from './pay';
import type { PayMonthStore } from '../employees/pay-months';

export { SyncInterruptedError };
import { createCoverageCounter, degradedPoints, isSyncCoverage, type DegradedPoint, type SyncCoverage } from '../domain/coverage';

export { FREQUENCY_MS };
export { FULL_SYNC_EVERY_MS, INCREMENTAL_OVERLAP_MS, planRun } from './plan';

/** Why a sync did not run or how it ended. */
export type SyncOutcome =
  | { status: 'succeeded'; runId: string; kind: SyncKind; employees: number; removed: number; pages: number; coverage: SyncCoverage }
  | { status: 'skipped'; reason: 'no_config' | 'config_invalid' | 'no_active_connection' | 'already_running' }
  | { status: 'failed'; runId: string; reason: StopKind | 'hrms_stalled' | 'bound_exceeded'; message: string };

/** HRMS failures a retry cannot fix: the run fails at once and the configuration is marked invalid. */
type StopKind = 'auth' | 'host_not_allowed';
const STOP_REASONS: Record<StopKind, string> = {
  auth: 'the HRMS refused the credentials',
  host_not_allowed: 'the HRMS host is not allowed',
};
const isStop = (err: unknown): err is HrmsError & { kind: StopKind } => err instanceof HrmsError && Object.hasOwn(STOP_REASONS, err.kind);

/** How far a running sync is: pages stored and employees written so far. */
export interface SyncProgress {
  pages: number;
  employees: number;
}

/** Thrown when another holder has the org's lock; the job should be retried later. */
export class SyncLockedError extends Error {}

/** Seconds from `start` to `end`, at the millisecond precision the run's row keeps. */
const secondsSince = (start: Date, end: Date): number => (end.getTime() - start.getTime()) / 1000;

const lockLost = (): SyncInterruptedError => new SyncInterruptedError('lock_lost', 'the sync lock was lost');

export interface SyncServiceDeps {
  transactor: Transactor;
  lock: SyncLock;
  /**
   * How long (ms) the HRMS may give no answer at all before the sync gives up (default 60 000);
   * time waiting out throttling or the tenant's budget is not counted ({@link StallWatch}).
   */
  hrmsStallMs?: number;
  runs: SyncRunStore;
  employees: EmployeeStore;
  /** The erasure lock and tombstones: a page never writes an erased employee. */
  erasures: Pick<ErasureStore, 'lockForSync' | 'erasedAmong'>;
  hrmsConfigs: HrmsConfigStore;
  connectorFor: ConnectorLookup;
  connectorOptions?: ConnectorOptions;
  log: Logger;
  /** The period (ms) of a client org's sync scheduler, or null for none (schedules.ts `expectedOf`). */
  scheduleOf: (orgId: number) => Promise<number | null>;
  /** Installs (`everyMs`) or removes (null) the org's job scheduler. */
  setSchedule: (orgId: number, everyMs: number | null) => Promise<void>;
  /** The outbox (docs/events.md "Outbox"): sync.completed, sync.failed and employee.removed are written with the run's end. */
  events: Pick<EventService, 'writeIn' | 'dispatch'>;
  /**
   * Told of every run's end once it is committed (the workers' counters of `/metrics`,
   * docs/operations.md): outcome, seconds from start to end, employees written and removed. Must not
   * throw; not waited for.
   */
  onRunEnd?: (r: { outcome: 'succeeded' | 'failed'; seconds: number; employees: number; removed: number }) => void;
  /** The shared request budget of an HRMS tenant (src/ratelimit/hrms-budget.ts); absent: unlimited. */
  budgetFor?: (hrmsId: string, tenant: string, limit: { requests: number; windowMs: number }) => RequestBudget;
  /** The bound of one run (src/sync/bound.ts); absent: none. */
  bounds?: SyncBounds;
  /** Clock (tests move it to reach the daily full sync); default `Date.now`. */
  now?: () => number;
  /** Pay history (src/sync/pay.ts): pages record their months, payroll APIs backfill; absent: not kept. */
  payMonths?: Pick<PayMonthStore, 'record'>;
  /** The org's health (sync/health.ts), written in the transactions of each run's start and end; absent: not kept. */
  health?: Pick<HealthRecorder, 'started' | 'ended'>;
}

/** What a skipped run's `error` says of its reason (docs/sync.md "Sync on demand"). */
const SKIP_WORDS: Record<Extract<SyncOutcome, { status: 'skipped' }>['reason'], string> = {
  no_config: 'the org has no usable HRMS configuration',
  config_invalid: 'the HRMS refused the stored credentials; new ones are needed',
  no_active_connection: 'the org has no pending or approved connection',
  already_running: 'a sync of the org was running and covers it',
};

/**
 * The tenant's budget, telling `watch` while the sync waits for it (pacing, not a stalled HRMS).
 * Absent without `budgetFor`.
 */
function pacedBudget(deps: SyncServiceDeps, definition: HrmsConnectorDefinition, access: HrmsAccess, watch: StallWatch): RequestBudget | undefined {
  const inner = deps.budgetFor?.(definition.hrmsId, definition.tenantOf(access), definition.budget);
  if (!inner) return undefined;
  return {
    async take(signal) {
      watch.wait();
      try {
        return await inner.take(signal);
      } finally {
        watch.resume();
      }
    },
    holdOff: (ms) => inner.holdOff(ms),
  };
}

/**
 * The data points whose share fell by more than half since the org's previous succeeded full
 * sync (docs/behaviour.md "Coverage"); none without one or without its coverage.
 */
async function degradedSincePreviousFull(deps: SyncServiceDeps, orgId: number, current: SyncCoverage, tx: Tx): Promise<Degradation | null> {
  const previous = await deps.runs.lastSucceededFull(orgId, tx);
  const points = previous && isSyncCoverage(previous.coverage) ? degradedPoints(previous.coverage, current) : [];
  return previous && points.length ? { previousRunId: previous.id, points } : null;
}

/** Data points that fell since the previous full run `previousRunId`. */
interface Degradation {
  previousRunId: string;
  points: DegradedPoint[];
}

export type SyncService = ReturnType<typeof createSyncService>;

/** Builds the sync service. */
export function createSyncService(deps: SyncServiceDeps) {
  const refreshSchedule = async (orgId: number): Promise<void> => deps.setSchedule(orgId, await deps.scheduleOf(orgId));
  return {
    /**
     * Records run `runId`, promised to a vendor after its job had started under another id (the
     * job's payload named it too late), as skipped: the run that job made covers it.
     */
    recordCovered: (orgId: number, trigger: SyncTrigger, runId: string): Promise<void> =>
      deps.runs.recordSkipped(orgId, trigger, runId, `skipped: already_running (${SKIP_WORDS.already_running})`),
    /**
     * Runs one full sync of `orgId` as `owner` (the job id). When another sync job holds the lock,
     * that sync covers this one and it is skipped. Throws `SyncLockedError` when a termination or
     * this job's own earlier, dead attempt holds the lock (retried once it expires), and the
     * connector's `HrmsError` (other than `auth` and `host_not_allowed`) once its retries are spent,
     * so the job retries; `auth` and `host_not_allowed` (a host the host policy refuses) mark the
     * configuration invalid and end as `failed` without retry. A lost lock throws
     * `SyncInterruptedError('lock_lost')` (retried; nothing removed, not `succeeded`); an HRMS that
     * gives no page for `hrmsStallMs` ends the run `failed` (`hrms_stalled`), not retried, and so does a
     * listing past `bounds` (`bound_exceeded`: nothing past the bound is written, nobody removed). `finalAttempt`
     * (default true) says whether a thrown failure will be retried, for `sync.failed`'s `will_retry`.
     * `onProgress` is told after each stored page (the job dashboard, docs/operations.md "The job dashboard: `/admin/queues`"); it must not
     * throw, and the run does not wait for it. `runId`: the id the run gets (a sync on demand
     * promised it to the vendor) unless a run of that id exists already (a retry); a run promised
     * so that ends before it starts (skipped) is recorded as `skipped` with its reason. `full`
     * forces a full run.
     */
    async run(
      orgId: number,
      trigger: SyncTrigger,
      owner: string,
      opts: { finalAttempt?: boolean; onProgress?: (p: SyncProgress) => void; runId?: string; full?: boolean } = {},
    ): Promise<SyncOutcome> {
      // A run promised to a vendor (sync on demand) that ends before it starts is still recorded,
      // with its reason (docs/api.md "Sync on demand"): the vendor following its sync_id finds it.
      const skip = async (reason: Extract<SyncOutcome, { status: 'skipped' }>['reason']): Promise<SyncOutcome> => {
        if (opts.runId) await deps.runs.recordSkipped(orgId, trigger, opts.runId, `skipped: ${reason} (${SKIP_WORDS[reason]})`);
        return { status: 'skipped', reason };
      };
      const held = await deps.lock.acquire(orgId, `sync:${owner}`);
      if (!held) {
        const holder = await deps.lock.holder(orgId);
        if (holder?.startsWith('sync:') && holder !== `sync:${owner}`) return skip('already_running');
        throw new SyncLockedError(`sync lock of org ${orgId} is held`);
      }
      try {
        // Checked under the lock: termination takes the same lock, so no sync starts on a
        // connection terminated a moment ago (docs/api.md "Terminate connection").
        if ((await deps.runs.activeConnections(orgId)) === 0) return await skip('no_active_connection');
        const hrmsConfig = await deps.hrmsConfigs.load(orgId);
        if (!hrmsConfig) return await skip('no_config');
        if (!hrmsConfig.valid) return await skip('config_invalid');
        const definition = deps.connectorFor(hrmsConfig.hrmsId);
        if (!definition) return await skip('no_config');
        // Aborted when the HRMS stalls or the lock is lost: every HRMS call of the run stops.
        const aborter = new AbortController();
        const onLost = (): void => aborter.abort(lockLost());
        held.signal.addEventListener('abort', onLost, { once: true });
        const access: HrmsAccess = { credentials: hrmsConfig.credentials, apiConfigs: hrmsConfig.apiConfigs };
        const stallMs = deps.hrmsStallMs ?? 60_000;
        const watch = createStallWatch(stallMs);
        const budget = pacedBudget(deps, definition, access, watch);
        const connector = definition.create(access, {
          ...deps.connectorOptions,
          ...(budget ? { budget } : {}),
          signal: aborter.signal,
          onActivity: (a) => (a === 'answered' ? watch.heard() : a === 'waiting' ? watch.wait() : watch.resume()),
          onRetry: (i) => deps.log.warn({ orgId, attempt: i.attempt, delayMs: i.delayMs, reason: i.reason }, 'HRMS request retried'),
          // docs/hrms/connectors.md: an untranslatable value is left empty with a warning naming the field (never the value).
          onWarning: (w) => deps.log.warn({ orgId, hrmsId: definition.hrmsId, field: w.field, reason: w.reason }, 'HRMS value left empty'),
        });
        const plan: { kind: SyncKind; since?: Date } = opts.full
          ? { kind: 'full' }
          : planRun(definition, trigger, await deps.runs.lastSucceeded(orgId), (deps.now ?? Date.now)());
        const runId = opts.runId && !(await deps.runs.get(opts.runId)) ? opts.runId : undefined;
        // The run's row and the org's health (`syncing`) commit together (docs/sync.md "Connection health").
        const run = await deps.transactor.transaction(async (tx) => {
          const started = await deps.runs.start(orgId, trigger, plan.kind, tx, runId);
          await deps.health?.started(orgId, started.id, started.startedAt, tx);
          return started;
        });
        let pages = 0;
        let seen = 0;
        // Counted page by page (docs/behaviour.md "Coverage"): one counter per data point.
        const coverage = createCoverageCounter();
        const reportedGone = new Set<string>();
        const bound = createRunBound(deps.bounds);
        try {
          // A mark is noted before each page is asked for: rows the update webhook writes while a
          // page is in flight keep the webhook's values. A removal the HRMS reports yields to any
          // write of the update webhook since the listing began (the first mark).
          const listedFrom = await deps.employees.writeMark();
          const pageStream = connector.listEmployees(plan.since ? { since: plan.since } : {})[Symbol.asyncIterator]();
          // The next page is asked for as soon as the current one is admitted, so the HRMS serves
          // it while the current one is written (docs/sync.md "Memory and throughput"); at most
          // one page is held besides the one being written.
          let ahead = askFor(pageStream, listedFrom);
          // The previous page's own writes: not the webhook's, though written after the next page's mark.
          let previous: PageWrites | undefined;
          for (;;) {
            const next = await untilAnswer(ahead.page, stallMs, aborter, watch);
            if (next.done) break;
            const page = next.value;
            const guard = { writtenUpTo: ahead.mark, previous };
            if (held.lost) throw lockLost();
            bound.admit(page); // past the run's bound: nothing of this page is written
            ahead = askFor(pageStream, await deps.employees.writeMark());
            // Ids in their canonical form (`EMP1 ` is `EMP1`), one record each (the last listed).
            const listed = canonicalPage(page.employees);
            for (const id of listed.keys()) reportedGone.delete(id);
            for (const id of page.removedIds ?? []) reportedGone.add(canonicalEmployeeId(id));
            const ids = await deps.employees.idsFor(orgId, [...listed.keys()]);
            const records = [...listed].map(([id, e]) => normalizeRecord(e, ids.get(id) ?? newEmployeeRowId()));
            // Under the erasure lock (shared): an erasure either finished before (its tombstone
            // is seen here) or waits until this page is written (and then deletes the row).
            const stored = await deps.transactor.transaction(async (tx) => {
              await deps.erasures.lockForSync(orgId, tx);
              const erased = await deps.erasures.erasedAmong(
                orgId,
                records.map((r) => r.employeeId),
                tx,
              );
              const kept = erased.size ? records.filter((r) => !erased.has(r.employeeId)) : records;
              const writes = await deps.employees.upsertPage(orgId, run.id, kept, guard, tx);
              const pay =
                deps.payMonths && (await recordPayMonths({ payMonths: deps.payMonths, events: deps.events }, orgId, payMonthsOfRecords(kept), tx, guard));
              return { kept, writes, pay };
            });
            await deps.events.dispatch(stored.pay ? stored.pay.written : undefined);
            previous = stored.writes;
            seen += stored.writes.written;
            coverage.add(stored.kept);
            pages += 1;
            await deps.runs.progress(run.id, pages, seen);
            opts.onProgress?.({ pages, employees: seen });
          }
          const months = deps.payMonths ? backfillMonths(connector, !!definition.payroll, (await deps.runs.lastSucceeded(orgId)).full) : 0;
          if (months > 0) {
            await backfillPayMonths({ ...deps, payMonths: deps.payMonths! }, { orgId, connector, months, stallMs, aborter, watch });
          }
          if (held.lost) throw lockLost();
          let written: Written | undefined;
          // Set inside the end's transaction (a closure: typed here, not narrowed to null).
          let degraded = null as Degradation | null;
          const finishedAt = new Date();
          const covered = coverage.result();
          // The removals, the run's end and their events commit together (docs/events.md), and
          // only while the lock is still ours (asked last, just before the commit).
          const removed = (
            await deps.transactor.transaction(async (tx) => {
              degraded = plan.kind === 'full' ? await degradedSincePreviousFull(deps, orgId, covered, tx) : null;
              // Full: whoever the run did not see is gone. Incremental: only whom the HRMS reported
              // gone (and not listed again in the same run); the others were simply unchanged.
              const gone =
                plan.kind === 'full'
                  ? await deps.employees.removeUnseen(orgId, run.id, tx)
                  : await deps.employees.removeReported(orgId, [...reportedGone], listedFrom, tx);
              await deps.runs.finish(run.id, { status: 'succeeded', finishedAt, employeesRemoved: gone.length, coverage: covered }, tx);
              const facts = { clientOrgId: orgId, runId: run.id, startedAt: run.startedAt, finishedAt };
              written = await deps.events.writeIn(tx, [
                syncCompletedEvent({ ...facts, employeesSeen: seen, employeesRemoved: gone.length, coverage: covered }),
                ...(degraded ? [syncDegradedEvent({ ...facts, ...degraded, employeesSeen: covered.employees })] : []),
                ...employeesRemovedEvents(orgId, run.id, gone),
                ...((await deps.health?.ended(orgId, run.id, { status: 'succeeded' }, finishedAt, tx)) ?? []),
              ]);
              if (!(await held.confirm())) throw lockLost();
              return gone;
            })
          ).length;
          deps.onRunEnd?.({ outcome: 'succeeded', seconds: secondsSince(run.startedAt, finishedAt), employees: seen, removed });
          await deps.events.dispatch(written);
          deps.log.info({ orgId, runId: run.id, kind: plan.kind, pages, employees: seen, removed }, 'sync succeeded');
          // Names and shares only, never an employee's value.
          if (degraded) deps.log.warn({ orgId, runId: run.id, previousRunId: degraded.previousRunId, dataPoints: degraded.points }, 'sync coverage degraded');
          return { status: 'succeeded', runId: run.id, kind: plan.kind, employees: seen, removed, pages, coverage: covered };
        } catch (err) {
          const known = err instanceof HrmsError || err instanceof SyncInterruptedError || err instanceof SyncBoundError;
          const message = known ? `${err.kind}: ${err.message}` : 'internal error';
          const reason = known ? err.kind : 'internal';
          const stalled = err instanceof SyncInterruptedError && err.kind === 'hrms_stalled';
          const willRetry = !isStop(err) && !stalled && !(err instanceof SyncBoundError) && opts.finalAttempt === false;
          let written: Written | undefined;
          const finishedAt = new Date();
          await deps.transactor.transaction(async (tx) => {
            await deps.runs.finish(run.id, { status: 'failed', finishedAt, error: message, coverage: coverage.result() }, tx);
            written = await deps.events.writeIn(tx, [
              syncFailedEvent({ clientOrgId: orgId, runId: run.id, startedAt: run.startedAt, finishedAt, reason, willRetry }),
              ...((await deps.health?.ended(orgId, run.id, { status: 'failed', reason }, finishedAt, tx)) ?? []),
            ]);
          });
          deps.onRunEnd?.({ outcome: 'failed', seconds: secondsSince(run.startedAt, finishedAt), employees: seen, removed: 0 });
          await deps.events.dispatch(written);
          deps.log.warn({ orgId, runId: run.id, err }, 'sync failed');
          // The HRMS is not answering: this job ends here (its lock released below); the
          // org's schedule tries again later.
          if (stalled) return { status: 'failed', runId: run.id, reason: 'hrms_stalled', message };
          // Past the bound: a retry would list the same; the run ends here, nobody marked removed.
          if (err instanceof SyncBoundError) return { status: 'failed', runId: run.id, reason: err.kind, message };
          if (isStop(err)) {
            await deps.hrmsConfigs.markInvalid(orgId, STOP_REASONS[err.kind]);
            // No scheduled syncs until new credentials come (their setup refreshes it again).
            await refreshSchedule(orgId).catch((e: unknown) =>
              deps.log.warn({ orgId, err: e instanceof Error ? e.message : String(e) }, 'sync schedule not refreshed'),
            );
            return { status: 'failed', runId: run.id, reason: err.kind, message };
          }
          throw err;
        } finally {
          held.signal.removeEventListener('abort', onLost);
          // A page asked for ahead and never used (the run failed meanwhile) stops here.
          if (!aborter.signal.aborted) aborter.abort(new Error('the sync run is over'));
        }
      } finally {
        // A release that fails leaves the lock to expire on its own (its ttl, at most 60 s).
        await held.release().catch((err: unknown) => deps.log.warn({ orgId, err: err instanceof Error ? err.message : String(err) }, 'sync lock not released'));
      }
    },

    /**
     * Installs the org's job scheduler on its approved connections' most frequent `sync_frequency`
     * (none without a valid HRMS configuration; schedules.ts).
     */
    refreshSchedule,
  };
}
