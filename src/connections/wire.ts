/** Wiring of the connections feature (see `context.ts`). */
import type { Infra } from '../infra';
import type { OrgStore } from '../orgs/store';
import type { SyncLock } from '../sync/lock';
import type { SyncQueue } from '../sync/queue';
import type { EventService } from '../events/service';
import type { ConnectionAccessCache } from './access-cache';
import { planRun } from '../sync/plan';
import type { SyncRunStore } from '../sync/store';
import type { ConnectorLookup } from '../hrms/registry';
import { createFreshnessService } from './freshness';
import { createFreshnessStore } from './freshness-store';
import { createConnectionListStore } from './list-store';
import { createConnectionListing } from './list-service';
import { createConnectionService } from './service';
import { createConnectionStore, type ConnectionStore } from './store';

/**
 * The connection store alone: the piece the orgs feature (is this org connected to that one?)
 * and sync (approved frequencies) read, built before them so no feature waits on another's
 * service. Takes only `infra`.
 */
export function wireConnectionStore(infra: Infra): ConnectionStore {
  return createConnectionStore(infra.db.orm);
}

/**
 * Builds the connection service over `store` (from {@link wireConnectionStore}). Takes the org
 * store (connections name orgs by uuid), the sync lock, queue and service (a connection change
 * alters the client's sync schedule; the first approval queues a sync), the connection access cache (every change is announced to it) and
 * the event service (`connection.<status>` events).
 */
export function wireConnections(
  infra: Infra,
  deps: {
    store: ConnectionStore;
    orgs: OrgStore;
    sync: { lock: SyncLock; queue: Pick<SyncQueue, 'syncNow'>; service: { refreshSchedule(orgId: number): Promise<void> } };
    access: Pick<ConnectionAccessCache, 'changed'>;
    events: EventService;
  },
) {
  const { afterCommit } = infra;
  const service = createConnectionService({
    // Releasing after the commit is best effort: a lock left behind expires after its TTL.
    connections: deps.store,
    orgs: deps.orgs,
    transactor: infra.transactor,
    lock: releaseBestEffort(deps.sync.lock, afterCommit),
    displayTimeZone: infra.config.HRX_DISPLAY_TIMEZONE,
    onScheduleChange: (orgId) => afterCommit('sync schedule', () => deps.sync.service.refreshSchedule(orgId)),
    onAccessChange: () => afterCommit('connection change announcement', () => deps.access.changed()),
    // docs/api.md "Setup config": the first approval queues the sync (setup-config may have come before it).
    syncNow: (orgId) => afterCommit('first sync', () => deps.sync.queue.syncNow(orgId, 'approval')),
    events: deps.events,
  });
  // The operator's list (`hrx connection list`).
  const listing = createConnectionListing({ list: createConnectionListStore(infra.db.orm), orgs: deps.orgs });
  return { service, store: deps.store, listing };
}

/** `lock` whose release never throws nor blocks (bounded by `afterCommit`). */
function releaseBestEffort(lock: SyncLock, afterCommit: Infra['afterCommit']): SyncLock {
  return {
    ...lock,
    async acquire(orgId, owner) {
      const held = await lock.acquire(orgId, owner);
      if (!held) return null;
      return {
        owner: held.owner,
        get lost() {
          return held.lost;
        },
        signal: held.signal,
        confirm: () => held.confirm(),
        release: () => afterCommit('sync lock release', () => held.release()),
      };
    },
  };
}

/**
 * Builds the freshness service (docs/api.md "Connection status", "Sync on demand") over the
 * request ORM: the connection and org stores, the sync queue (next scheduled run, syncs waiting,
 * syncs on demand), the sync lock (a sync running now), the run store and the connectors (the
 * kind a sync would run).
 */
export function wireFreshness(
  infra: Infra,
  deps: {
    store: ConnectionStore;
    orgs: OrgStore;
    sync: { lock: SyncLock; queue: Pick<SyncQueue, 'nextRunOf' | 'queuedFor' | 'syncOnDemand'>; store: Pick<SyncRunStore, 'lastSucceeded'> };
    connectorFor: ConnectorLookup;
  },
) {
  return createFreshnessService({
    store: createFreshnessStore(infra.db.orm),
    connections: deps.store,
    orgs: deps.orgs,
    queue: deps.sync.queue,
    syncRunning: async (orgId) => (await deps.sync.lock.holder(orgId))?.startsWith('sync:') === true,
    async planKind(orgId, hrmsId, trigger, full) {
      const definition = hrmsId === null ? undefined : deps.connectorFor(hrmsId);
      if (full || !definition || (trigger !== 'schedule' && trigger !== 'vendor')) return 'full';
      return planRun(definition, trigger, await deps.sync.store.lastSucceeded(orgId), Date.now()).kind;
    },
  });
}
