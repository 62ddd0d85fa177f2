/**
 * Opens what every hrx process needs (database, Redis, ciphers) and builds the services over it,
 * each from its module's factory. Used by the API (`app.ts`), the worker and the CLI.
 */
import { createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createAuditWriter } from './audit/writer';
import { createAuthFailureGuard } from './auth/failure-guard';
import { createRevocationFeed } from './auth/revocations';
import { createConnectionAccessCache } from './connections/access-cache';
import { createConnectionAccessLoader } from './connections/access-store';
import { createConnectionService } from './connections/service';
import { createConnectionStore } from './connections/store';
import { createConsentService } from './consent/service';
import { createConsentStore } from './consent/store';
import type { Config } from './config';
import { createFieldCipher, type FieldCipher } from './crypto/field-cipher';
import { readOrCreateSecret } from './db/embedded';
import { BACKGROUND_DB_TIMEOUTS, openDatabase, pgTimeoutOptions, REQUEST_DB_TIMEOUTS, type Database } from './db/orm';
import { createTransactor } from './db/tx';
import { createEmployeeService, type ReadQuery } from './employees/service';
import type { EmployeeRecord } from './domain/record';
import { createEmployeeStore } from './employees/store';
import { createEmployeeUpdateService } from './employees/update-service';
import { createEmployeeWriteStore } from './employees/write-store';
import { createDeliverer } from './events/delivery';
import { createEndpointService } from './events/endpoints';
import { createEventsQueue } from './events/queue';
import { createEventService } from './events/service';
import { createEventStore } from './events/store';
import { createExternalService } from './external/service';
import { createHostPolicy } from './outbound/host-policy';
import { connectorsWith, SUPPORTED_HRMS } from './hrms/registry';
import type { Logger } from './logger';
import { createOrgService } from './orgs/service';
import { createOrgStore } from './orgs/store';
import { createFailureLimiter } from './ratelimit/auth-failures';
import { createSdkService } from './sdk/service';
import { createConnectStore } from './sdk/connect-store';
import { createSdkStore } from './sdk/store';
import { createHrmsSource } from './setup/live-source';
import { createSetupService } from './setup/service';
import { createHrmsConfigStore } from './setup/store';
import { createSyncLock, type SyncLock } from './sync/lock';
import { createSyncQueue } from './sync/queue';
import { createSyncService } from './sync/service';
import { createSyncRunStore } from './sync/store';
import { bestEffort, DependencyUnreachableError, unavailable } from './unavailable';

/** Derives a purpose-bound 32-byte key from a master key (HKDF-SHA256, RFC 5869). */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `hrx:${purpose}`, 32));
}

/** Resolves the master keys: configured, or (embedded mode only) generated and kept in the data dir. */
export function resolveMasterKeys(config: Config): { current: Buffer; retired: Buffer[] } {
  if (config.masterKeys) return config.masterKeys;
  const b64 = readOrCreateSecret(config.HRX_DATA_DIR, 'master.key', () => randomBytes(32).toString('base64'));
  return { current: Buffer.from(b64, 'base64'), retired: [] };
}

/**
 * How long a request-path Redis command may take before it fails (decisions §11: a request gives
 * up within 2 s; the rate limiter's own 300 ms comes before it).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1500;
/** How long a request waits for its post-commit steps (they go on in the background after it). */
const POST_COMMIT_WAIT_MS = 500;
/** How long opening a context waits for Redis before failing (CLI commands exit within ~5 s). */
const REDIS_PREFLIGHT_MS = 2000;

/**
 * Logs a Redis client's connection errors once per outage (not once per reconnect attempt) and
 * its recovery.
 */
function watchRedis(client: Redis, name: string, log: Logger): void {
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ client: name, err: err.message }, 'redis unavailable');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ client: name }, 'redis is back');
  });
}

/** Resolves once `client` is ready; throws DependencyUnreachableError after `ms`. */
async function redisReady(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready') return;
  let last: Error | undefined;
  const onError = (err: Error): void => { last = err; };
  client.on('error', onError);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DependencyUnreachableError('Redis', 'REDIS_URL', last)), ms);
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } finally {
    client.off('error', onError);
  }
}

/**
 * Opens the database, Redis and a pg pool, and builds every service. Throws
 * DependencyUnreachableError (naming PostgreSQL or Redis) when either cannot be reached within a
 * few seconds. `worker`: this process runs syncs, which get a pool of their own without the
 * request path's 2 s statement limit.
 *
 * Two kinds of Redis client (decisions §11 "Dependencies down"): `requestRedis`, for everything
 * a request waits on (locks, V2 replay check, rate limit, queueing jobs, pub/sub publishes), has
 * no offline queue, never resends a command after a reconnect and times out after 1.5 s, so a
 * command a request gave up on never reaches Redis later; `redis` (BullMQ workers and the
 * pub/sub subscriber) waits and reconnects forever, as BullMQ requires.
 */
export async function openContext(config: Config, log: Logger, opts: { poolMax?: number; worker?: boolean } = {}) {
  const keys = resolveMasterKeys(config);
  const cipher: FieldCipher = createFieldCipher(deriveKey(keys.current, 'field-cipher'), keys.retired.map((k) => deriveKey(k, 'field-cipher')));
  const apiKeyPeppers = [keys.current, ...keys.retired].map((k) => deriveKey(k, 'api-key-pepper'));
  let db: Database;
  try {
    db = await openDatabase(config, log, { ...opts, timeouts: REQUEST_DB_TIMEOUTS });
  } catch (err) {
    throw new DependencyUnreachableError('PostgreSQL', config.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL', err);
  }
  const requestRedis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false, autoResendUnfulfilledCommands: false, maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS, connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (n) => Math.min(100 * n, 1000),
  });
  watchRedis(requestRedis, 'request', log);
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, connectTimeout: 5000, retryStrategy: (n) => Math.min(100 * n, 1000) });
  watchRedis(redis, 'worker', log);
  try {
    await Promise.all([redisReady(requestRedis, REDIS_PREFLIGHT_MS), redisReady(redis, REDIS_PREFLIGHT_MS)]);
  } catch (err) {
    requestRedis.disconnect();
    redis.disconnect();
    await db.close().catch(() => undefined);
    throw err;
  }
  const pool = new pg.Pool({
    connectionString: db.url, max: opts.poolMax ?? 10, options: `-c search_path="${db.schema}"`, ...pgTimeoutOptions(REQUEST_DB_TIMEOUTS),
  });
  pool.on('error', (err) => log.warn({ errName: err.name, errCode: (err as { code?: unknown }).code }, 'pg pool error'));
  // A checked-out client whose server goes away between two queries emits 'error' with no
  // listener (pg.Pool listens only while it is idle), which would end the process: the next
  // query on it fails instead, and that failure is the request's 503.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Syncs write large batches: in a worker they get their own ORM and pool (no 2 s limit).
  const syncDb = opts.worker ? await db.reopen({ poolMax: 5, timeouts: BACKGROUND_DB_TIMEOUTS }) : db;
  const syncPool = opts.worker
    ? new pg.Pool({ connectionString: db.url, max: 5, options: `-c search_path="${db.schema}"`, ...pgTimeoutOptions(BACKGROUND_DB_TIMEOUTS) })
    : pool;
  if (syncPool !== pool) {
    syncPool.on('error', (err) => log.warn({ errName: err.name, errCode: (err as { code?: unknown }).code }, 'pg pool error'));
    syncPool.on('connect', (client) => client.on('error', () => undefined));
  }
  const prefix = config.HRX_REDIS_PREFIX;
  // decisions §2: keyed hashes of app_secrets and Basic passwords (current key first), the
  // failed-authentication limit, and the announcement of revoked API keys (auth/).
  const secretPeppers = [keys.current, ...keys.retired].map((k) => createSecretKey(deriveKey(k, 'secret-pepper')));
  const authFailures = config.HRX_AUTH_FAILURE_LIMIT > 0
    ? createAuthFailureGuard({
      idKey: deriveKey(keys.current, 'auth-failure-ids'),
      limiter: createFailureLimiter({ redis: requestRedis, prefix, limit: config.HRX_AUTH_FAILURE_LIMIT, windowMs: config.HRX_AUTH_FAILURE_WINDOW_MS, log }),
    })
    : undefined;
  const apiKeyRevocations = createRevocationFeed({ publisher: requestRedis, subscriber: () => redis.duplicate(), channel: `${prefix}:api-keys-revoked` });
  const basicRevocations = createRevocationFeed({ publisher: requestRedis, subscriber: () => redis.duplicate(), channel: `${prefix}:basic-credentials-revoked` });
  // Work after a change has committed (announcing it, queueing jobs) never blocks or fails the
  // answer; what it misses the reconcile loop (jobs/schedules.ts), the outbox relay and the
  // access cache's TTL make good.
  const afterCommit = (what: string, fn: () => Promise<unknown>): Promise<void> =>
    bestEffort(fn, POST_COMMIT_WAIT_MS, (err) => log.warn({ what, err }, 'post-commit step skipped'));

  const orgStore = createOrgStore(db.orm);
  const connectionStore = createConnectionStore(db.orm);
  // The one transaction type of every store (db/tx.ts).
  const transactor = createTransactor(db.orm);
  const employeeStore = createEmployeeStore(pool, cipher);
  const configStore = createHrmsConfigStore(db.orm, cipher);
  const runStore = createSyncRunStore(db.orm);
  const lock = createSyncLock(requestRedis, prefix, config.HRX_SYNC_LOCK_TTL_SEC * 1000);
  const syncQueue = createSyncQueue(requestRedis, prefix);
  // Events to vendors (decisions §10). BullMQ's own attempts exceed the schedule's so a passing
  // database error does not use up a delivery's attempts (the delivery row counts those).
  const eventStore = createEventStore(db.orm);
  const eventsQueue = createEventsQueue(requestRedis, prefix, config.HRX_EVENTS_RETRY_SCHEDULE_MS.length + 4);
  const events = createEventService({ store: eventStore, queue: eventsQueue, log });
  // Connection errors are logged once per outage by watchRedis; BullMQ would print each one.
  syncQueue.queue.on('error', () => undefined);
  eventsQueue.queue.on('error', () => undefined);
  const deliverer = createDeliverer({
    store: eventStore, cipher, scheduleMs: config.HRX_EVENTS_RETRY_SCHEDULE_MS, timeoutMs: config.HRX_EVENTS_TIMEOUT_MS, log,
    // Vendor endpoints are outside hosts: the same SSRF guard as HRMS hosts, unless allowed.
    hostPolicy: config.HRX_EVENTS_ALLOW_PRIVATE_HOSTS || config.HRX_EVENTS_ALLOW_HTTP_LOOPBACK ? undefined : createHostPolicy(),
  });

  // Every HRMS connector of this process goes through one host policy (SSRF guard) unless the
  // operator allows private hosts.
  const connectorFor = connectorsWith({
    hostPolicy: config.HRX_HRMS_ALLOW_PRIVATE_HOSTS ? undefined : createHostPolicy(), maxResponseBytes: config.HRX_HRMS_MAX_RESPONSE_BYTES,
  });
  const sync = createSyncService({
    transactor: opts.worker ? createTransactor(syncDb.orm) : transactor, hrmsStallMs: config.HRX_SYNC_HRMS_STALL_SEC * 1000,
    lock,
    runs: opts.worker ? createSyncRunStore(syncDb.orm) : runStore,
    employees: opts.worker ? createEmployeeStore(syncPool, cipher) : employeeStore,
    configs: opts.worker ? createHrmsConfigStore(syncDb.orm, cipher) : configStore,
    connectorFor, log,
    connectorOptions: { retries: config.HRX_HRMS_RETRIES, minRetryDelayMs: config.HRX_HRMS_RETRY_MIN_MS, pageSize: config.HRX_SYNC_BATCH_SIZE },
    approvedFrequencies: (orgId) => connectionStore.approvedFrequencies(orgId),
    setSchedule: (orgId, every) => syncQueue.setSchedule(orgId, every),
    events,
  });
  const publicUrl = (config.HRX_PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`) + config.HRX_BASE_PATH;
  // The subscriber waits and resubscribes across outages; while it is away the TTL bounds staleness.
  const subscriber = redis.duplicate();
  watchRedis(subscriber, 'subscriber', log);
  const access = createConnectionAccessCache({
    load: createConnectionAccessLoader(pool),
    publisher: requestRedis, subscriber: subscriber, channel: `${prefix}:connections-changed`, ttlMs: config.HRX_CONNECTION_CACHE_TTL_MS,
  });
  const employees = createEmployeeService({
    employees: employeeStore, connectionAccess: (v, c) => access.get(v, c), cipher,
    audit: createAuditWriter(pool, { windowMs: config.HRX_AUDIT_WINDOW_MS }),
    hrms: createHrmsSource(configStore, connectorFor),
  });
  const services = {
    orgs: createOrgService({
      orgs: orgStore, apiKeyPepper: apiKeyPeppers[0]!, defaultLogoUrl: `${publicUrl}/static/org-logo.svg`,
      areConnected: (a, b) => connectionStore.areConnected(a, b),
      secretPeppers, onApiKeyRevoked: (keyId) => apiKeyRevocations.publish(keyId),
    }),
    connections: createConnectionService({
      // Releasing after the commit is best effort: a lock left behind expires after its TTL.
      connections: connectionStore, orgs: orgStore, lock: releaseBestEffort(lock, afterCommit), displayTimeZone: config.HRX_DISPLAY_TIMEZONE,
      onScheduleChange: (orgId) => afterCommit('sync schedule', () => sync.refreshSchedule(orgId)),
      onAccessChange: () => afterCommit('connection change announcement', () => access.changed()),
      events,
    }),
    employees,
    employeeUpdates: createEmployeeUpdateService({
      transactor, writes: createEmployeeWriteStore(pool, cipher), events,
    }),
    setup: createSetupService({
      orgs: orgStore, connectorFor,
      // Setup queues the first sync: with Redis away it answers 503 before storing anything.
      configs: { ...configStore, save: async (c) => { requireReady(requestRedis); return configStore.save(c); } },
      syncNow: (orgId, trigger) => afterCommit('first sync', () => syncQueue.syncNow(orgId, trigger)),
      refreshSchedule: (orgId) => afterCommit('sync schedule', () => sync.refreshSchedule(orgId)),
      secretPeppers, ...(authFailures ? { failures: authFailures } : {}),
      onAccessChange: () => afterCommit('connection change announcement', () => access.changed()),
    }),
    sync,
    consents: createConsentService({ consents: createConsentStore(db.orm), employees }),
    events,
    endpoints: createEndpointService({
      store: eventStore, orgs: orgStore, cipher, queue: eventsQueue, allowHttpLoopback: config.HRX_EVENTS_ALLOW_HTTP_LOOPBACK,
    }),
    external: createExternalService({
      orm: db.orm, cipher, redis: requestRedis, prefix, orgs: orgStore, log, secretPeppers, basicRevocations, basicCacheTtlMs: config.HRX_API_KEY_CACHE_TTL_MS,
      readEmployee: (q: ReadQuery): Promise<EmployeeRecord> => services.employees.read(q),
    }),
  };
  const sdk = createSdkService({
    store: createSdkStore(db.orm), sessions: createConnectStore(db.orm), orgs: services.orgs, connections: services.connections, setup: services.setup, log,
    failures: authFailures,
    supportedHrms: SUPPORTED_HRMS, commonEmailDomains: config.HRX_COMMON_EMAIL_DOMAINS,
    signingKey: () => services.external.keyring.signingKey(),
    jwks: async (o) => {
      if (o?.reload) services.external.keyring.invalidate();
      return services.external.jwks();
    },
  });
  return {
    config, log, db, pool, redis, requestRedis, cipher, apiKeyPeppers, authFailures, apiKeyRevocations, lock, syncQueue, eventsQueue, deliverer, services: { ...services, sdk },
    stores: { orgs: orgStore, connections: connectionStore, employees: employeeStore, configs: configStore, runs: runStore, events: eventStore },
    /** Closes everything; each step is bounded, so a dependency that is down never holds the process. */
    async close() {
      const step = (what: string, fn: () => Promise<unknown>): Promise<void> =>
        bestEffort(fn, 3000, (err) => log.debug({ what, err: err instanceof Error ? err.message : String(err) }, 'close step skipped'));
      // A queue still connecting would report its late error to a listener close() removed.
      await step('sync queue', async () => {
        await syncQueue.queue.waitUntilReady().catch(() => undefined);
        await syncQueue.close();
      });
      await step('events queue', async () => {
        await eventsQueue.queue.waitUntilReady().catch(() => undefined);
        await eventsQueue.close();
      });
      await step('access cache', () => access.close());
      await step('api key revocations', () => apiKeyRevocations.close());
      await step('basic credential revocations', () => basicRevocations.close());
      await step('pg pool', () => pool.end());
      if (syncPool !== pool) await step('sync pg pool', () => syncPool.end());
      requestRedis.disconnect();
      redis.disconnect();
      subscriber.disconnect();
      if (syncDb !== db) await step('sync database', () => syncDb.close());
      await step('database', () => db.close());
    },
  };
}

/** Throws 503 UNAVAILABLE unless `client` is connected (for requests that cannot finish without Redis). */
function requireReady(client: Redis): void {
  if (client.status !== 'ready') throw unavailable(new Error(`redis connection ${client.status}`));
}

/** `lock` whose release never throws nor blocks (bounded by `afterCommit`). */
function releaseBestEffort(lock: SyncLock, afterCommit: (what: string, fn: () => Promise<unknown>) => Promise<void>): SyncLock {
  return {
    ...lock,
    async acquire(orgId, owner) {
      const held = await lock.acquire(orgId, owner);
      if (!held) return null;
      return {
        owner: held.owner,
        get lost() { return held.lost; },
        signal: held.signal,
        confirm: () => held.confirm(),
        release: () => afterCommit('sync lock release', () => held.release()),
      };
    },
  };
}

/** Everything a process has open. */
export type Context = Awaited<ReturnType<typeof openContext>>;
