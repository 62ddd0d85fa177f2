/**
 * How fresh a vendor's copy of a client org is, and a sync on demand (docs/api.md "Connection
 * status", "Sync on demand"; docs/sync.md "Connection health"). The connection's health is its
 * client org's (syncs run per client org), or `not_configured` without an HRMS configuration.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, OrgHealthState, SyncKind } from '../db/entities';
import { AppError } from '../errors';
import type { OrgStore } from '../orgs/store';
import type { FreshnessStore, OrgFreshness, RunCoverage } from './freshness-store';
import { ALL_DATA_POINTS } from '../domain/data-points';
import { sharedDataPoints } from './requested-points';
import type { ConnectionStore } from './store';

/** A connection's health as the vendor reads it (docs/sync.md "Connection health"). */
export type Health = OrgHealthState | 'not_configured';
export const HEALTHS = ['not_configured', 'syncing', 'healthy', 'needs_reauth', 'failing'] as const satisfies readonly Health[];

/** At most one sync on demand per connection in this many ms. */
export const SYNC_ON_DEMAND_EVERY_MS = 3_600_000;

/** `GET .../status/`'s `data`: times ISO 8601 UTC or null; `coverage` null until a full sync recorded it. */
export interface ConnectionStatusView {
  health: Health;
  last_successful_sync: string | null;
  last_sync_attempt: string | null;
  /** The latest run's id (a sync on demand's `sync_id` once it started) and status, or null. */
  last_sync_id: string | null;
  last_sync_status: string | null;
  next_sync_at: string | null;
  employees: number;
  coverage: Record<string, number> | null;
}

/** `POST .../sync/`'s `data`: the run id the sync runs as, its kind, when it was queued (ISO 8601). */
export interface QueuedSyncView {
  sync_id: string;
  kind: SyncKind;
  queued_at: string;
}

/**
 * What `hrx connection status` prints: the status of a client org (coverage of every data
 * point) or of one connection (coverage of what it shares), with the org and its connections.
 */
export interface OperatorStatusView extends ConnectionStatusView {
  client_org: string;
  org_name: string;
  /** The connection asked about, or null when asked by client org. */
  connection_id: string | null;
  /** That connection, or the org's connections but terminated ones. */
  connections: { id: string; vendor_org: string; vendor_name: string; status: string }[];
}

export interface FreshnessDeps {
  store: FreshnessStore;
  connections: Pick<ConnectionStore, 'findActive' | 'findById'>;
  orgs: Pick<OrgStore, 'findByUuid' | 'findById'>;
  /** The sync queue's side (sync/queue.ts). */
  queue: {
    nextRunOf(orgId: number): Promise<Date | null>;
    queuedFor(orgId: number): Promise<{ runId: string; queuedAt: Date; trigger: string; full: boolean } | null>;
    syncOnDemand(orgId: number, runId: string, full: boolean): Promise<string>;
  };
  /** True while a sync of the org holds its lock (runs now). */
  syncRunning(orgId: number): Promise<boolean>;
  /** The kind a sync queued now by `trigger` would run (sync/plan.ts `planRun`); `full` forces full. */
  planKind(orgId: number, hrmsId: string | null, trigger: string, full: boolean): Promise<SyncKind>;
  now?: () => number;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * The connection's health from its client org's facts: the stored health; without one (no run
 * since health was kept), an invalid configuration is `needs_reauth`, a last run that succeeded
 * `healthy`, else `syncing` (setup-config queued the first sync).
 */
export function healthOf(f: Pick<OrgFreshness, 'hrmsId' | 'configValid' | 'state' | 'lastRun'>): Health {
  if (f.hrmsId === null) return 'not_configured';
  if (f.state) return f.state;
  if (f.configValid === false) return 'needs_reauth';
  return f.lastRun?.status === 'succeeded' ? 'healthy' : 'syncing';
}

/** Share (0..1, 4 decimals) of the run's employees with a value, for each of `points`; null without coverage. */
export function coverageShares(coverage: RunCoverage | null, points: readonly string[]): Record<string, number> | null {
  if (!coverage) return null;
  const out: Record<string, number> = {};
  for (const p of points) {
    const n = coverage.points[p] ?? 0;
    out[p] = coverage.employees > 0 ? Math.round(Math.min(1, Math.max(0, n / coverage.employees)) * 10_000) / 10_000 : 0;
  }
  return out;
}

/** The client org's status as one connection (sharing `points`) sees it. */
export async function statusView(deps: Pick<FreshnessDeps, 'store' | 'queue'>, orgId: number, points: readonly string[]): Promise<ConnectionStatusView> {
  const [f, next] = await Promise.all([deps.store.orgFreshness(orgId), deps.queue.nextRunOf(orgId)]);
  return {
    health: healthOf(f),
    last_successful_sync: iso(f.lastSuccessAt),
    last_sync_attempt: iso(f.lastRun?.startedAt ?? null),
    last_sync_id: f.lastRun?.id ?? null,
    last_sync_status: f.lastRun?.status ?? null,
    next_sync_at: iso(next),
    employees: f.employees,
    coverage: coverageShares(f.coverage, points),
  };
}

export type FreshnessService = ReturnType<typeof createFreshnessService>;

/** Builds the service. */
export function createFreshnessService(deps: FreshnessDeps) {
  const now = deps.now ?? Date.now;

  /** The vendor's connection to client org `clientUuid` in one of `statuses`; NOT_FOUND otherwise (no other answer tells them apart). */
  async function connectionOf(vendorOrgId: number, clientUuid: string, statuses: Connection['status'][]): Promise<{ c: Connection; orgId: number }> {
    const org = await deps.orgs.findByUuid(clientUuid.toLowerCase());
    const c = org?.isClient ? await deps.connections.findActive(vendorOrgId, org.id) : null;
    if (!org || !c || !statuses.includes(c.status)) throw new AppError('NOT_FOUND');
    return { c, orgId: org.id };
  }

  /** The sync of the org running now (its run started and holds the lock) or waiting in the queue, or null. */
  async function alreadyQueued(orgId: number, f: OrgFreshness): Promise<QueuedSyncView | null> {
    if (f.lastRun?.status === 'running' && (await deps.syncRunning(orgId))) {
      return { sync_id: f.lastRun.id, kind: f.lastRun.kind === 'incremental' ? 'incremental' : 'full', queued_at: f.lastRun.startedAt.toISOString() };
    }
    const queued = await deps.queue.queuedFor(orgId);
    if (!queued) return null;
    const kind = await deps.planKind(orgId, f.hrmsId, queued.trigger, queued.full);
    return { sync_id: queued.runId, kind, queued_at: queued.queuedAt.toISOString() };
  }

  return {
    /**
     * The status of the vendor's approved connection to `clientUuid` (coverage of the data points
     * it shares). Throws NOT_FOUND for any other: none, pending, rejected, terminated.
     */
    async status(vendorOrgId: number, clientUuid: string): Promise<ConnectionStatusView> {
      // Approved only (docs/api.md "Connection status"): a pending connection, which a vendor can
      // create alone with an SDK token, learns nothing of the employer's syncs.
      const { c, orgId } = await connectionOf(vendorOrgId, clientUuid, ['approved']);
      return statusView(deps, orgId, sharedDataPoints(c));
    },

    /**
     * The operator's view (`hrx connection status`) of `id`: a connection id (that connection,
     * terminated ones included) or a client org's uuid (every data point's coverage). Throws
     * NOT_FOUND for neither.
     */
    async operatorStatus(id: string): Promise<OperatorStatusView> {
      const c = await deps.connections.findById(id);
      const org = c ? await deps.orgs.findById(c.clientOrgId) : await deps.orgs.findByUuid(id.toLowerCase());
      if (!org?.isClient) throw new AppError('NOT_FOUND');
      const [view, all] = await Promise.all([statusView(deps, org.id, c ? sharedDataPoints(c) : ALL_DATA_POINTS), deps.store.connectionsOf(org.id)]);
      const listed = c ? all.filter((x) => x.id === c.id) : all.filter((x) => x.status !== 'terminated');
      return {
        client_org: org.uuid,
        org_name: org.orgName,
        connection_id: c?.id ?? null,
        ...view,
        connections: listed.map((x) => ({
          id: x.id,
          vendor_org: x.vendorUuid,
          vendor_name: x.vendorName,
          status: x.status,
        })),
      };
    },

    /**
     * Queues a sync of the client org for the vendor's approved connection (`full` forces a full
     * run). A sync running or waiting already is answered instead of a second. Throws NOT_FOUND
     * (no approved connection) or THROTTLED (with `Retry-After`) within the hour of the
     * connection's previous sync on demand.
     */
    async syncNow(vendorOrgId: number, clientUuid: string, full: boolean): Promise<QueuedSyncView> {
      const { c, orgId } = await connectionOf(vendorOrgId, clientUuid, ['approved']);
      const f = await deps.store.orgFreshness(orgId);
      const existing = await alreadyQueued(orgId, f);
      if (existing) return existing;
      const at = new Date(now());
      const runId = randomUUID();
      const claim = await deps.store.claimSyncRequest(c.id, runId, at, SYNC_ON_DEMAND_EVERY_MS);
      if (!claim.ok) {
        // Another call of this connection may have just queued one: that sync is the answer, not a refusal.
        const queued = await alreadyQueued(orgId, f);
        if (queued) return queued;
        const seconds = Math.max(1, Math.ceil((claim.availableAt.getTime() - at.getTime()) / 1000));
        throw new AppError('THROTTLED', { params: { seconds }, headers: { 'retry-after': String(seconds) } });
      }
      const kind = await deps.planKind(orgId, f.hrmsId, 'vendor', full);
      try {
        await deps.queue.syncOnDemand(orgId, runId, full);
      } catch (err) {
        await deps.store.releaseSyncRequest(c.id, runId).catch(() => undefined);
        throw err;
      }
      return { sync_id: runId, kind, queued_at: at.toISOString() };
    },
  };
}
