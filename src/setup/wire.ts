/** Wiring of the setup feature and of the HRMS configurations it stores (see `context.ts`). */
import type { RedisClient } from '../redis';
import type { AuthFailureGuard } from '../auth/failure-guard';
import type { ConnectionAccessCache } from '../connections/access-cache';
import { connectorsWith } from '../hrms/registry';
import type { Infra } from '../infra';
import type { OrgStore } from '../orgs/store';
import { createHrmsBudgets } from '../ratelimit/hrms-budget';
import type { SyncQueue } from '../sync/queue';
import { unavailable } from '../unavailable';
import { createHrmsSource } from './live-source';
import { createSetupService } from './service';
import { createHrmsConfigStore } from './store';

/**
 * The HRMS configurations and connectors: the piece setup writes and sync and the live employee
 * read use, built before all three. Returns the configuration store over the request ORM
 * (`store`) and over the syncs' ORM (`syncStore`, the same object unless this process is a
 * worker), `connectorFor` (every connector of this process goes through one host policy, the
 * SSRF guard, unless the operator allows private hosts), the HRMS tenants' shared request
 * budgets (`budgets`) and the live HRMS source over them (`source`).
 * Takes only `infra`.
 */
export function wireHrmsConfigs(infra: Infra) {
  const { config, cipher } = infra;
  const store = createHrmsConfigStore(infra.db.orm, cipher);
  const syncStore = infra.syncDb === infra.db ? store : createHrmsConfigStore(infra.syncDb.orm, cipher);
  const connectorFor = connectorsWith({
    hostPolicy: infra.hostPolicies.hrms,
    maxResponseBytes: config.HRX_HRMS_MAX_RESPONSE_BYTES,
    maxStreamedBytes: config.HRX_HRMS_MAX_STREAMED_BYTES,
  });
  // One budget per HRMS tenant, shared through Redis by every worker's syncs and every API
  // process's live reads (docs/behaviour.md "Live reads and the HRMS budget").
  const budgets = createHrmsBudgets({ redis: infra.requestRedis, prefix: infra.prefix });
  const source = createHrmsSource(store, connectorFor, { budgetFor: budgets.budgetFor, maxWaitMs: config.HRX_HRMS_LIVE_WAIT_MS });
  return { store, syncStore, connectorFor, budgets, source };
}

/** What {@link wireHrmsConfigs} builds. */
export type HrmsConfigs = ReturnType<typeof wireHrmsConfigs>;

/**
 * Builds the setup service. Takes the org store (the caller's org), the HRMS configurations
 * (from {@link wireHrmsConfigs}), the sync queue and service (setup queues the first sync and
 * refreshes the schedule, both after the commit), the failed-authentication guard, if any, and
 * the connection access cache (a configuration replacing a Connect-entered one sends approvals
 * back to pending: every process's cache is told after the commit).
 */
export function wireSetup(
  infra: Infra,
  deps: {
    orgs: OrgStore;
    hrmsConfigs: HrmsConfigs;
    sync: { queue: SyncQueue; service: { refreshSchedule(orgId: number): Promise<void> } };
    failures: AuthFailureGuard | undefined;
    access: Pick<ConnectionAccessCache, 'changed'>;
  },
) {
  const { afterCommit, requestRedis } = infra;
  const hrmsConfigs = deps.hrmsConfigs.store;
  const service = createSetupService({
    orgs: deps.orgs,
    connectorFor: deps.hrmsConfigs.connectorFor,
    // The credential check counts in the tenant's budget the sync it queues takes from; it waits
    // for room no longer than a live read (the employer's request is answered, 503 past it).
    budgetFor: (hrmsId, tenant, limit) => deps.hrmsConfigs.budgets.budgetFor(hrmsId, tenant, limit, { maxWaitMs: infra.config.HRX_HRMS_LIVE_WAIT_MS }),
    // Setup queues the first sync: with Redis away it answers 503 before storing anything.
    hrmsConfigs: {
      ...hrmsConfigs,
      save: async (c) => {
        requireReady(requestRedis);
        return hrmsConfigs.save(c);
      },
    },
    syncNow: (orgId, trigger) => afterCommit('first sync', () => deps.sync.queue.syncNow(orgId, trigger)),
    refreshSchedule: (orgId) => afterCommit('sync schedule', () => deps.sync.service.refreshSchedule(orgId)),
    secretPeppers: infra.secretPeppers,
    ...(deps.failures ? { failures: deps.failures } : {}),
    onAccessChange: () => afterCommit('connection change announcement', () => deps.access.changed()),
  });
  return { service, store: hrmsConfigs };
}

/** Throws 503 UNAVAILABLE unless `client` is connected (for requests that cannot finish without Redis). */
function requireReady(client: RedisClient): void {
  if (client.status !== 'ready') throw unavailable(new Error(`redis connection ${client.status}`));
}
