/**
 * Sync runs as the operator sees them (docs/behaviour.md "Sync", docs/cli.md; `hrx sync run|status`): queueing a full
 * sync of a client org now, following that sync through its job and its `sync_runs` row (pages
 * and employees so far), and each client org's latest runs and next scheduled run. Never HTTP.
 */
import type { SyncRun } from '../db/entities';
import { isSyncCoverage, type SyncCoverage } from '../domain/coverage';
import { AppError } from '../errors';
import type { SyncQueue } from './queue';
import type { SyncOutcome } from './service';
import type { SyncRunStore } from './store';

/** One sync run as the CLI prints it (`--json`); times are ISO 8601. */
export interface SyncRunView {
  id: string;
  trigger: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  pages: number;
  employees: number;
  employees_removed: number;
  error: string | null;
  /** `{employees, points: {<data point>: count with a value}}` (docs/behaviour.md "Coverage"); null for runs before it was recorded. */
  coverage: SyncCoverage | null;
}

/** A client org's sync state: its configuration, latest run and next scheduled run. */
export interface OrgSyncView {
  org: string;
  org_name: string;
  /** The configured `hrms_id`, or null (no setup-config yet). */
  hrms_id: string | null;
  /** False once the HRMS refused the credentials (a new setup-config is needed); null without a configuration. */
  config_valid: boolean | null;
  /** When the job scheduler syncs next (null: no approved connection, or no valid configuration). */
  next_sync_at: string | null;
}

/** What `queueNow` queued. */
export interface QueuedSync {
  orgId: number;
  org: string;
  orgName: string;
  jobId: string;
  /** The org's latest run before this one (the followed run is a later one), or null. */
  previousRunId: string | null;
  /** Employees the last successful full run saw: about what a full run will see (null: never synced in full). */
  expectedEmployees: number | null;
}

/**
 * Where a queued sync is: `queued` (waiting for a worker), `running`, `retrying` (an attempt
 * failed; BullMQ tries again after its backoff), or an end: `succeeded`, `failed`, `skipped`
 * (the worker found nothing to do: `reason` says why).
 */
export interface SyncProgress {
  phase: 'queued' | 'running' | 'retrying' | 'succeeded' | 'failed' | 'skipped';
  run: SyncRunView | null;
  reason?: string;
}

export interface SyncRunsDeps {
  runs: SyncRunStore;
  queue: Pick<SyncQueue, 'syncNow' | 'nextRuns' | 'queue'>;
  /** The org of `uuid`, or null. */
  findOrg(uuid: string): Promise<{ id: number; uuid: string; orgName: string; isClient: boolean } | null>;
  /** The org's HRMS configuration state, or null without one. */
  hrmsConfig(orgId: number): Promise<{ hrmsId: string; valid: boolean; invalidReason: string | null } | null>;
}

/** Runs listed per org by `status`. */
const RECENT_RUNS = 10;
/** Orgs listed by `status` without an org. */
const MAX_ORGS = 1000;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The CLI's view of a run. */
export function runView(r: SyncRun): SyncRunView {
  return {
    id: r.id,
    trigger: r.trigger,
    status: r.status,
    started_at: r.startedAt.toISOString(),
    finished_at: iso(r.finishedAt),
    pages: r.pages,
    employees: r.employeesSeen,
    employees_removed: r.employeesRemoved,
    error: r.error,
    coverage: isSyncCoverage(r.coverage) ? r.coverage : null,
  };
}

/** True when `v` (a job's return value read back from Redis) looks like a {@link SyncOutcome}. */
function isOutcome(v: unknown): v is SyncOutcome {
  return typeof v === 'object' && v !== null && 'status' in v && typeof v.status === 'string';
}

export type SyncRunsService = ReturnType<typeof createSyncRunsService>;

/** Builds the service. */
export function createSyncRunsService(deps: SyncRunsDeps) {
  const invalid = (message: string): AppError => AppError.validation([{ field: 'org', message }]);

  async function clientOrg(uuid: string) {
    const org = await deps.findOrg(uuid);
    if (!org?.isClient) throw invalid(`no client org with uuid ${uuid}`);
    return org;
  }

  return {
    /**
     * Queues a full sync of client org `orgUuid` now (trigger `operator`). Throws VALIDATION
     * (field `org`) when the org is unknown or not a client, has no HRMS configuration, has one
     * the HRMS refused, or has no pending or approved connection: the worker would skip it.
     */
    async queueNow(orgUuid: string): Promise<QueuedSync> {
      const org = await clientOrg(orgUuid);
      const config = await deps.hrmsConfig(org.id);
      if (!config) throw invalid('the org has no HRMS configuration yet (POST /api/webhook/v1/setup-config/ first)');
      if (!config.valid) throw invalid(`the org's HRMS configuration is invalid (${config.invalidReason ?? 'refused'}): post setup-config again`);
      if ((await deps.runs.activeConnections(org.id)) === 0) throw invalid('the org has no pending or approved connection: there is nothing to sync for');
      const previous = await deps.runs.latest(org.id);
      const lastGood = await deps.runs.lastSucceededFull(org.id);
      const jobId = await deps.queue.syncNow(org.id, 'operator');
      return {
        orgId: org.id,
        org: org.uuid,
        orgName: org.orgName,
        jobId,
        previousRunId: previous?.id ?? null,
        expectedEmployees: lastGood?.employeesSeen ?? null,
      };
    },

    /**
     * Where the sync `queueNow` queued is now (see {@link SyncProgress}). The run followed is the
     * org's first run after `previousRunId`, or the run already going on when the worker found
     * the org busy (`already_running`: that run covers this sync).
     */
    async progress(q: Pick<QueuedSync, 'orgId' | 'jobId' | 'previousRunId'>): Promise<SyncProgress> {
      const job = await deps.queue.queue.getJob(q.jobId);
      const state = job ? await job.getState() : 'unknown';
      const latest = await deps.runs.latest(q.orgId);
      const fresh = latest && latest.id !== q.previousRunId ? latest : null;
      if (state === 'completed' && isOutcome(job?.returnvalue)) {
        const outcome = job.returnvalue;
        if (outcome.status === 'skipped') {
          if (outcome.reason === 'already_running' && latest) {
            return latest.status === 'running'
              ? { phase: 'running', run: runView(latest) }
              : { phase: latest.status === 'succeeded' ? 'succeeded' : 'failed', run: runView(latest) };
          }
          return { phase: 'skipped', run: null, reason: outcome.reason };
        }
        const run = await deps.runs.get(outcome.runId);
        return outcome.status === 'succeeded'
          ? { phase: 'succeeded', run: run && runView(run) }
          : { phase: 'failed', run: run && runView(run), reason: outcome.message };
      }
      if (state === 'failed') {
        // The job's own reason may quote a driver message: the run's error is hrx's words.
        return { phase: 'failed', run: fresh && runView(fresh), reason: fresh?.error ?? 'the sync job failed (see the worker log)' };
      }
      if (state === 'unknown') return { phase: 'failed', run: fresh && runView(fresh), reason: 'the sync job is gone from the queue' };
      if (state === 'delayed') return { phase: 'retrying', run: fresh && runView(fresh) };
      if (fresh?.status === 'running') return { phase: 'running', run: runView(fresh) };
      return { phase: state === 'active' ? 'running' : 'queued', run: null };
    },

    /** Client org `orgUuid`'s sync state and its last 10 runs, newest first. Throws VALIDATION for an unknown org. */
    async orgStatus(orgUuid: string): Promise<OrgSyncView & { runs: SyncRunView[] }> {
      const org = await clientOrg(orgUuid);
      const [config, runs, next] = await Promise.all([deps.hrmsConfig(org.id), deps.runs.recent(org.id, RECENT_RUNS), deps.queue.nextRuns()]);
      return {
        org: org.uuid,
        org_name: org.orgName,
        hrms_id: config?.hrmsId ?? null,
        config_valid: config ? config.valid : null,
        next_sync_at: iso(next.get(org.id) ?? null),
        runs: runs.map(runView),
      };
    },

    /** Every client org with an HRMS configuration or a run (at most 1000, by name), each with its latest run. */
    async allStatus(): Promise<(OrgSyncView & { last_run: SyncRunView | null })[]> {
      const [orgs, next] = await Promise.all([deps.runs.clientOrgs(MAX_ORGS), deps.queue.nextRuns()]);
      return orgs.map((o) => ({
        org: o.orgUuid,
        org_name: o.orgName,
        hrms_id: o.hrms?.hrmsId ?? null,
        config_valid: o.hrms ? o.hrms.valid : null,
        next_sync_at: iso(next.get(o.orgId) ?? null),
        last_run: o.latest && runView(o.latest),
      }));
    },
  };
}
