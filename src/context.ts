/**
 * Opens what every hrx process needs (`infra.ts`) and wires the features over it, each from its
 * own `wire.ts`, in dependency order: the calls below are the dependency graph. Used by the API
 * (`app.ts`), the worker and the CLI.
 *
 * Two features wire in two steps, to break cycles: `connections` (its store is read by `orgs`
 * and `sync`, its service needs the org store and sync) and `setup` (the HRMS configurations
 * feed `employees` and `sync`, the setup service needs sync); the Connect sessions' store is
 * built before `orgs` (replacing an org's app_secret withdraws the proofs it gave) and handed to
 * `sdk`. `db` is handed out for migrations alone (`migrate(ctx.db, ...)`: the CLI, the test
 * harness, bench); features get their stores by wiring.
 */
import { wireAuth } from './auth/wire';
import type { Config } from './config';
import { wireConnections, wireConnectionStore, wireFreshness } from './connections/wire';
import { wireConsent } from './consent/wire';
import { wireCredentials } from './credentials/wire';
import { wireEmployees } from './employees/wire';
import { wireEvents } from './events/wire';
import { wireExternal } from './external/wire';
import { openInfra, type InfraOptions } from './infra';
import type { Logger } from './logger';
import { createWorkCounters } from './ops/counters';
import { wireOps } from './ops/wire';
import { wireOrgs } from './orgs/wire';
import { createHousekeepingQueue } from './queue/housekeeping';
import { createIdempotencyStore } from './idempotency/store';
import { wireRetention } from './retention/wire';
import { createConnectStore } from './sdk/connect-store';
import { wireSdk } from './sdk/wire';
import { wireHrmsConfigs, wireSetup } from './setup/wire';
import { wireSync } from './sync/wire';

/**
 * Opens the infrastructure (see `openInfra`: throws DependencyUnreachableError naming
 * PostgreSQL or Redis when either cannot be reached within a few seconds; `worker` gives syncs
 * their own ORM and pool) and builds every service.
 */
export async function openContext(config: Config, log: Logger, opts: InfraOptions = {}) {
  const infra = await openInfra(config, log, opts);
  const auth = wireAuth(infra);
  const connectionStore = wireConnectionStore(infra);
  // Connect sessions' proof state, which a replaced app_secret withdraws, and the SDK tokens a
  // revoked API key issued (built before the orgs, which need it, and handed to the sdk feature,
  // which owns it).
  const connectSessions = createConnectStore(infra.db.orm);
  const orgs = wireOrgs(infra, {
    connections: connectionStore,
    revocations: auth.revocations,
    onAppSecretRotated: (orgId, tx) => connectSessions.withdrawAppCredentialProofs(orgId, tx),
    onApiKeyRevoking: (keyId, tx) => connectSessions.revokeTokensIssuedBy(keyId, tx),
  });
  // What the workers count for /metrics (docs/operations.md "Metrics: `GET /metrics`"), in Redis beside the queues.
  const counters = createWorkCounters(infra.requestRedis, infra.prefix, log);
  const events = wireEvents(infra, { orgs: orgs.store, counters });
  const hrmsConfigs = wireHrmsConfigs(infra);
  const employees = wireEmployees(infra, { hrms: hrmsConfigs.source, events: events.service });
  const sync = wireSync(infra, {
    employees: employees.syncStore,
    erasures: employees.erasures,
    payMonths: employees.syncPayMonths,
    hrmsConfigs,
    events: events.service,
    counters,
    orgs: orgs.store,
  });
  const connections = wireConnections(infra, { store: connectionStore, orgs: orgs.store, sync, access: employees.access, events: events.service });
  const freshness = wireFreshness(infra, { store: connectionStore, orgs: orgs.store, sync, connectorFor: hrmsConfigs.connectorFor });
  const setup = wireSetup(infra, { orgs: orgs.store, hrmsConfigs, sync, failures: auth.failures, access: employees.access });
  const consents = wireConsent(infra, { employees: employees.service, events: events.service });
  const external = wireExternal(infra, {
    orgs: orgs.store,
    employees: employees.service,
    basicRevocations: auth.basicRevocations,
    connectionAccess: (v, c) => employees.access.get(v, c),
  });
  // The pay months seam (docs/credentials.md "Claims") defaults to the record's current month.
  const credentials = wireCredentials(infra, {
    keyring: external.keyring,
    vendorKeys: external.vendorKeys,
    employees: employees.service,
    // The `pay` claim reads the recorded pay history (docs/credentials.md "Claims").
    payMonths: async (orgId, rowId, n) =>
      n === 0
        ? []
        : (await employees.payMonths.latestPayMonths(orgId, rowId, n)).map((m) => ({ year: m.year, month: m.month, grossPay: m.grossPay, netPay: m.netPay })),
  });
  const retention = wireRetention(infra);
  const sdk = wireSdk(infra, {
    orgs: orgs.service,
    connections: connections.service,
    setup: setup.service,
    keyring: external.keyring,
    failures: auth.failures,
    sessions: connectSessions,
  });
  // The periodic relay and consent scan (src/queue/housekeeping.ts), apart from syncs and
  // deliveries; retention's purge keeps a queue of its own (src/retention/queue.ts).
  const housekeepingQueue = infra.adoptQueue('housekeeping queue', createHousekeepingQueue(infra.requestRedis, infra.prefix));
  const ops = wireOps(infra, { counters, queues: [sync.queue.queue, events.queue.queue, housekeepingQueue.queue, retention.queue.queue] });
  return {
    config,
    log,
    db: infra.db,
    redis: infra.redis,
    requestRedis: infra.requestRedis,
    cipher: infra.cipher,
    /** `Idempotency-Key`s and their answers (docs/api.md "Idempotency"), on the request pool; the router's. */
    idempotency: createIdempotencyStore(infra.pool, infra.cipher, infra.derivedKeys('idempotency')[0]!),
    /** Keys of migrations that encrypt existing rows: `migrate(ctx.db, ctx.migrationKeys)`. */
    migrationKeys: infra.migrationKeys,
    apiKeyPeppers: infra.apiKeyPeppers,
    authFailures: auth.failures,
    apiKeyRevocations: auth.revocations,
    /** The API-key lookup of the authenticator (`app.ts`). */
    apiKeyOrgs: orgs.store as Pick<typeof orgs.store, 'findByApiKeyHash'>,
    lock: sync.lock,
    /** Each client org's HRMS health (sync/health.ts; docs/sync.md "Connection health"), read on the request ORM. */
    syncHealth: sync.health,
    syncQueue: sync.queue,
    /** Which client orgs must have a sync scheduler, and the set's fingerprint (sync/schedules.ts). */
    syncSchedules: sync.schedules,
    eventsQueue: events.queue,
    housekeepingQueue,
    retentionQueue: retention.queue,
    deliverer: events.deliverer,
    /** Readiness and the scrape-time sources of `/metrics` (the registry is per app, `app.ts`). */
    ops,
    services: {
      orgs: orgs.service,
      connections: connections.service,
      freshness,
      /** The operator's lists (`hrx org list`, `hrx connection list`). */
      orgList: orgs.listing,
      connectionList: connections.listing,
      employees: employees.service,
      employeeUpdates: employees.updates,
      accessLog: employees.accessLog,
      employeeErasure: employees.erasure,
      setup: setup.service,
      sync: sync.service,
      syncRuns: sync.runs,
      consents: consents.service,
      events: events.service,
      endpoints: events.endpoints,
      /** A vendor's self-service over its own endpoints and deliveries (docs/events.md "Self-service"). */
      vendorEndpoints: events.selfService,
      external: external.service,
      credentials: credentials.service,
      sdk: sdk.service,
      retention: retention.service,
    },
    /** Closes everything; each step is bounded, so a dependency that is down never holds the process. */
    close: (): Promise<void> => infra.close(),
  };
}

/** Everything a process has open. */
export type Context = Awaited<ReturnType<typeof openContext>>;
