/**
 * Opens what every hrx process needs (database, Redis, ciphers) and builds the services over it,
 * each from its module's factory. Used by the API (`app.ts`), the worker and the CLI.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createAuditWriter } from './audit/writer';
import { createConnectionAccessCache } from './connections/access-cache';
import { createConnectionService } from './connections/service';
import { createConnectionStore } from './connections/store';
import { createConsentService } from './consent/service';
import { createConsentStore } from './consent/store';
import type { Config } from './config';
import { createFieldCipher, type FieldCipher } from './crypto/field-cipher';
import { readOrCreateSecret } from './db/embedded';
import { openDatabase, type Database } from './db/orm';
import { createEmployeeService, type ReadQuery } from './employees/service';
import type { EmployeeRecord } from './employees/record';
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
import { createSdkService } from './sdk/service';
import { createSdkStore } from './sdk/store';
import { createHrmsSource } from './setup/live-source';
import { createSetupService } from './setup/service';
import { createHrmsConfigStore } from './setup/store';
import { createSyncLock } from './sync/lock';
import { createSyncQueue } from './sync/queue';
import { createSyncService } from './sync/service';
import { createSyncRunStore } from './sync/store';

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

/** Opens the database, Redis and a pg pool, and builds every service. */
export async function openContext(config: Config, log: Logger, opts: { poolMax?: number } = {}) {
  const keys = resolveMasterKeys(config);
  const cipher: FieldCipher = createFieldCipher(deriveKey(keys.current, 'field-cipher'), keys.retired.map((k) => deriveKey(k, 'field-cipher')));
  const apiKeyPeppers = [keys.current, ...keys.retired].map((k) => deriveKey(k, 'api-key-pepper'));
  const db: Database = await openDatabase(config, log, opts);
  const pool = new pg.Pool({
    connectionString: db.url, max: opts.poolMax ?? 10, options: `-c search_path="${db.schema}"`,
  });
  pool.on('error', (err) => log.warn({ err }, 'pg pool error'));
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: false });
  redis.on('error', (err) => log.warn({ err }, 'redis error'));
  const prefix = config.HRX_REDIS_PREFIX;

  const orgStore = createOrgStore(db.orm);
  const connectionStore = createConnectionStore(db.orm);
  const employeeStore = createEmployeeStore(db.orm, pool, cipher);
  const configStore = createHrmsConfigStore(db.orm, cipher);
  const runStore = createSyncRunStore(db.orm);
  const lock = createSyncLock(redis, prefix, config.HRX_SYNC_LOCK_TTL_SEC * 1000);
  const syncQueue = createSyncQueue(redis, prefix);
  // Events to vendors (decisions §10). BullMQ's own attempts exceed the schedule's so a passing
  // database error does not use up a delivery's attempts (the delivery row counts those).
  const eventStore = createEventStore(db.orm);
  const eventsQueue = createEventsQueue(redis, prefix, config.HRX_EVENTS_RETRY_SCHEDULE_MS.length + 4);
  const events = createEventService({ store: eventStore, queue: eventsQueue, log });
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
    lock, runs: runStore, employees: employeeStore, configs: configStore, connectorFor, log,
    connectorOptions: { retries: config.HRX_HRMS_RETRIES, minRetryDelayMs: config.HRX_HRMS_RETRY_MIN_MS, pageSize: config.HRX_SYNC_BATCH_SIZE },
    approvedFrequencies: (orgId) => connectionStore.approvedFrequencies(orgId),
    setSchedule: (orgId, every) => syncQueue.setSchedule(orgId, every),
    events,
  });
  const publicUrl = (config.HRX_PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`) + config.HRX_BASE_PATH;
  const access = createConnectionAccessCache({
    load: (vendorOrgId, clientOrgUuid) => employeeStore.connectionAccess(vendorOrgId, clientOrgUuid),
    publisher: redis, subscriber: redis.duplicate(), channel: `${prefix}:connections-changed`, ttlMs: config.HRX_CONNECTION_CACHE_TTL_MS,
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
    }),
    connections: createConnectionService({
      connections: connectionStore, orgs: orgStore, lock, displayTimeZone: config.HRX_DISPLAY_TIMEZONE,
      onScheduleChange: (orgId) => sync.refreshSchedule(orgId),
      onAccessChange: () => access.changed(),
      events,
    }),
    employees,
    employeeUpdates: createEmployeeUpdateService({
      writes: createEmployeeWriteStore(pool, cipher),
      // The update is committed and answered whatever happens to its event.
      onUpdated: (orgId, changes) => events.employeesUpdated(orgId, changes)
        .catch((err: unknown) => log.error({ err, orgId }, 'employee.updated event not recorded')),
    }),
    setup: createSetupService({
      orgs: orgStore, configs: configStore, connectorFor,
      syncNow: (orgId, trigger) => syncQueue.syncNow(orgId, trigger),
      refreshSchedule: (orgId) => sync.refreshSchedule(orgId),
    }),
    sync,
    consents: createConsentService({ consents: createConsentStore(db.orm), employees }),
    events,
    endpoints: createEndpointService({
      store: eventStore, orgs: orgStore, cipher, queue: eventsQueue, allowHttpLoopback: config.HRX_EVENTS_ALLOW_HTTP_LOOPBACK,
    }),
    external: createExternalService({
      orm: db.orm, cipher, redis, prefix, orgs: orgStore, log,
      readEmployee: (q: ReadQuery): Promise<EmployeeRecord> => services.employees.read(q),
    }),
  };
  const sdk = createSdkService({
    store: createSdkStore(db.orm), orgs: services.orgs, connections: services.connections, setup: services.setup, log,
    supportedHrms: SUPPORTED_HRMS, commonEmailDomains: config.HRX_COMMON_EMAIL_DOMAINS,
    signingKey: () => services.external.keyring.signingKey(),
    jwks: async (o) => {
      if (o?.reload) services.external.keyring.invalidate();
      return services.external.jwks();
    },
  });
  return {
    config, log, db, pool, redis, cipher, apiKeyPeppers, lock, syncQueue, eventsQueue, deliverer, services: { ...services, sdk },
    stores: { orgs: orgStore, connections: connectionStore, employees: employeeStore, configs: configStore, runs: runStore, events: eventStore },
    async close() {
      // A queue still connecting would report its late error to a listener close() removed.
      await syncQueue.queue.waitUntilReady().catch(() => undefined);
      await syncQueue.close().catch(() => undefined);
      await eventsQueue.queue.waitUntilReady().catch(() => undefined);
      await eventsQueue.close().catch(() => undefined);
      await access.close().catch(() => undefined);
      await pool.end().catch(() => undefined);
      redis.disconnect();
      await db.close();
    },
  };
}

/** Everything a process has open. */
export type Context = Awaited<ReturnType<typeof openContext>>;
