/**
 * What every feature may use (database, pools, Redis, ciphers and keys, host policies) opened by
 * one function, {@link openInfra}. The features' `wire.ts` build their stores and services over it;
 * `context.ts` calls them in dependency order.
 */
import { createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Queue } from 'bullmq';
import pg from 'pg';
import { ConfigError, type Config } from './config';
import { blindIndexKeys } from './crypto/blind-index';
import { createFieldCipher, type FieldCipher } from './crypto/field-cipher';
import { readOrCreateSecret } from './db/embedded';
import type { MigrationKeys } from './db/migrations/keys';
import { BACKGROUND_DB_TIMEOUTS, openDatabase, pgTimeoutOptions, REQUEST_DB_TIMEOUTS, type Database } from './db/orm';
import { connectionSettings } from './db/pool-mode';
import { createTransactor } from './db/tx';
import type { Logger } from './logger';
import { createHostPolicy, type HostPolicy } from './outbound/host-policy';
import { openRedis, type RedisClient } from './redis';
import { bestEffort, DependencyUnreachableError } from './unavailable';

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
 * How long a request-path Redis command may take before it fails (docs/limits.md "Rate limits": a request gives
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
export function watchRedis(client: RedisClient, name: string, log: Logger): void {
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
async function redisReady(client: RedisClient, ms: number): Promise<void> {
  if (client.status === 'ready') return;
  let last: Error | undefined;
  const onError = (err: Error): void => {
    last = err;
  };
  client.on('error', onError);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DependencyUnreachableError('Redis', 'REDIS_URL', last ?? new Error(`no answer within ${ms / 1000} s`))), ms);
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } finally {
    client.off('error', onError);
  }
}

/** SQLSTATEs of a server shutting down (admin_shutdown, crash_shutdown, cannot_connect_now). */
const SERVER_SHUTDOWN = new Set(['57P01', '57P02', '57P03']);

/**
 * How long (s) a connection of hrx's `pg` pools lives: once older, the pool closes it when it is
 * next idle and opens a new one when needed. It bounds how long a plan PostgreSQL cached for a
 * prepared statement (the employee read's, src/employees/store.ts) outlives the data it was made
 * for: a generic plan stays until the table's statistics change (ANALYZE), so one made while
 * `employees` was nearly empty (a sequential scan) would otherwise serve the grown table for as
 * long as autovacuum takes to analyze it. A new connection plans afresh.
 */
export const PG_POOL_CONNECTION_LIFETIME_S = 300;

/** The options of hrx's `pg` pools (see {@link PG_POOL_CONNECTION_LIFETIME_S}). */
export function pgPoolOptions(url: string, max: number, timeouts: typeof REQUEST_DB_TIMEOUTS, clientOptions: { options?: string }): pg.PoolConfig {
  return { connectionString: url, max, maxLifetimeSeconds: PG_POOL_CONNECTION_LIFETIME_S, ...pgTimeoutOptions(timeouts), ...clientOptions };
}

/**
 * A pg pool over `db`'s schema whose errors never end the process, with the schema and limits
 * given as `HRX_DB_POOL_MODE` says (db/pool-mode.ts); `checked` resolves once the server is seen to
 * run with them (ConfigError if not). `embedded`: the server is hrx's own child, which a
 * terminal's Ctrl-C stops together with hrx (same process group): its shutdown under the idle
 * clients is then expected and logged at debug, not as a warning.
 */
function openPool(db: Database, mode: Config['HRX_DB_POOL_MODE'], max: number, timeouts: typeof REQUEST_DB_TIMEOUTS, log: Logger, embedded: boolean) {
  const settings = connectionSettings(mode, db.schema, timeouts);
  const pool = new pg.Pool(pgPoolOptions(db.url, max, timeouts, settings.clientOptions));
  // Before the pool hands the client out (`transaction`: its statements run in transactions with the schema and limits).
  pool.on('connect', (client) => settings.prepare(client));
  pool.on('error', (err) => {
    const errCode = (err as { code?: unknown }).code;
    if (embedded && typeof errCode === 'string' && SERVER_SHUTDOWN.has(errCode))
      log.debug({ errCode }, 'embedded PostgreSQL stopped under an idle pool client');
    else log.warn({ errName: err.name, errCode }, 'pg pool error');
  });
  // A checked-out client whose server goes away between two queries emits 'error' with no
  // listener (pg.Pool listens only while it is idle), which would end the process: the next
  // query on it fails instead, and that failure is the request's 503.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return { pool, checked: () => settings.verify(async (sql) => (await pool.query<Record<string, unknown>>(sql)).rows) };
}

/** Work after a change has committed, bounded; see {@link Infra.afterCommit}. */
export type AfterCommit = (what: string, fn: () => Promise<unknown>) => Promise<void>;

/** Options of {@link openInfra}. */
export interface InfraOptions {
  /** Size of the request path's pg pool (default 10). */
  poolMax?: number;
  /** This process runs syncs: they get an ORM and pool of their own without the 2 s limits. */
  worker?: boolean;
}

/**
 * Opens the database, Redis and the pg pool(s), and derives the keys. Throws
 * DependencyUnreachableError (naming PostgreSQL or Redis) when either cannot be reached within a
 * few seconds. `worker`: this process runs syncs, which get an ORM and a pool of their own without
 * the request path's 2 s statement limit (`syncDb`, `syncPool`, `syncTransactor`; otherwise the
 * same objects as the request path's).
 *
 * Two kinds of Redis client (docs/operations.md "Redis or PostgreSQL down; shutdown"): `requestRedis`, for everything
 * a request waits on (locks, V2 replay check, rate limit, queueing jobs, pub/sub publishes), has
 * no offline queue, never resends a command after a reconnect and times out after 1.5 s, so a
 * command a request gave up on never reaches Redis later; `redis` (BullMQ workers and the
 * pub/sub subscribers) waits and reconnects forever, as BullMQ requires.
 */
export async function openInfra(config: Config, log: Logger, opts: InfraOptions = {}) {
  const keys = resolveMasterKeys(config);
  const cipher: FieldCipher = createFieldCipher(
    deriveKey(keys.current, 'field-cipher'),
    keys.retired.map((k) => deriveKey(k, 'field-cipher')),
  );
  const apiKeyPeppers = [keys.current, ...keys.retired].map((k) => deriveKey(k, 'api-key-pepper'));
  // docs/at-rest.md: equality lookups of values kept only encrypted (current key first).
  const derivedKeys = (purpose: string): Buffer[] => [keys.current, ...keys.retired].map((k) => deriveKey(k, purpose));
  const blindKeys: KeyObject[] = blindIndexKeys(derivedKeys('blind-index'));
  // Both Redis clients start connecting before the database opens, and their readiness is waited
  // for after it: a command facing an unreachable Redis fails after max(PostgreSQL, 2 s), not the sum.
  // HRX_REDIS_CLUSTER: the same options per node of a Redis Cluster (docs/operations.md "Redis Cluster").
  const target = { url: config.REDIS_URL, cluster: config.HRX_REDIS_CLUSTER };
  const requestRedis = openRedis(target, {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (n) => Math.min(100 * n, 1000),
  });
  watchRedis(requestRedis, 'request', log);
  const redis = openRedis(target, { maxRetriesPerRequest: null, connectTimeout: 5000, retryStrategy: (n) => Math.min(100 * n, 1000) });
  watchRedis(redis, 'worker', log);
  const redisUp = Promise.all([redisReady(requestRedis, REDIS_PREFLIGHT_MS), redisReady(redis, REDIS_PREFLIGHT_MS)]);
  redisUp.catch(() => undefined); // read below, after the database; never an unhandled rejection meanwhile
  let db: Database;
  try {
    db = await openDatabase(config, log, { ...opts, timeouts: REQUEST_DB_TIMEOUTS });
  } catch (err) {
    requestRedis.disconnect();
    redis.disconnect();
    // The server answered, but the database is missing: that is a setting to fix, not an outage.
    if (err instanceof ConfigError) throw err;
    // A server that takes the connection but never answers shows as knex's pool timeout, whose
    // message blames the caller ("The pool is probably full..."), or as pg's connect timeout
    // ("timeout expired"): say what happened instead.
    const cause =
      err instanceof Error && /Timeout acquiring a connection|^timeout expired$/.test(err.message)
        ? new Error(`no answer within ${REQUEST_DB_TIMEOUTS.connectMs / 1000} s`, { cause: err })
        : err;
    throw new DependencyUnreachableError('PostgreSQL', config.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL', cause);
  }
  try {
    await redisUp;
  } catch (err) {
    requestRedis.disconnect();
    redis.disconnect();
    await db.close().catch(() => undefined);
    throw err;
  }
  const embedded = !config.DATABASE_URL;
  const mode = config.HRX_DB_POOL_MODE;
  const request = openPool(db, mode, opts.poolMax ?? 10, REQUEST_DB_TIMEOUTS, log, embedded);
  const pool = request.pool;
  // Syncs write large batches: in a worker they get their own ORM and pool (no 2 s limit).
  let syncDb = db;
  let syncPool = pool;
  try {
    await request.checked();
    if (opts.worker) {
      syncDb = await db.reopen({ poolMax: 5, timeouts: BACKGROUND_DB_TIMEOUTS });
      const sync = openPool(db, mode, 5, BACKGROUND_DB_TIMEOUTS, log, embedded);
      syncPool = sync.pool;
      await sync.checked();
    }
  } catch (err) {
    requestRedis.disconnect();
    redis.disconnect();
    for (const p of new Set([pool, syncPool])) await p.end().catch(() => undefined);
    if (syncDb !== db) await syncDb.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw err;
  }
  // The one transaction type of every store (db/tx.ts).
  const transactor = createTransactor(db.orm);
  const syncTransactor = syncDb === db ? transactor : createTransactor(syncDb.orm);
  // docs/api.md "Credentials": keyed hashes of app_secrets and Basic passwords (current key first).
  const secretPeppers: KeyObject[] = [keys.current, ...keys.retired].map((k) => createSecretKey(deriveKey(k, 'secret-pepper')));
  // Work after a change has committed (announcing it, queueing jobs) never blocks or fails the
  // answer; what it misses the reconcile loop (jobs/schedules.ts), the outbox relay and the
  // access cache's TTL make good.
  const afterCommit: AfterCommit = (what, fn) => bestEffort(fn, POST_COMMIT_WAIT_MS, (err) => log.warn({ what, err }, 'post-commit step skipped'));
  // Outside hosts (HRMS hosts, vendor endpoints) go through the SSRF guard unless the operator
  // allows private hosts. Each refusal is logged naming the setting that would allow it (never
  // the host or its addresses), in the API (setup-config, live reads) and the worker (syncs).
  const refusal = (setting: string, what: string, oneHost?: string) => (): void => {
    const allows = oneHost ? `${oneHost}=<host:port> allows one named host and port, ${setting}=1 every such host` : `${setting}=1 allows such hosts`;
    log.warn({ setting }, `${what} refused: it is, or resolves to, a private, loopback or reserved address (${allows})`);
  };
  const hostPolicies: { hrms: HostPolicy | undefined; events: HostPolicy | undefined } = {
    // HRX_HRMS_ALLOWED_HOSTS exempts the operator's own named hosts and keeps the guard for every other.
    hrms: config.HRX_HRMS_ALLOW_PRIVATE_HOSTS
      ? undefined
      : createHostPolicy({
          allowHosts: config.HRX_HRMS_ALLOWED_HOSTS,
          onRefused: refusal('HRX_HRMS_ALLOW_PRIVATE_HOSTS', 'HRMS host', 'HRX_HRMS_ALLOWED_HOSTS'),
        }),
    events:
      config.HRX_EVENTS_ALLOW_PRIVATE_HOSTS || config.HRX_EVENTS_ALLOW_HTTP_LOOPBACK
        ? undefined
        : createHostPolicy({ onRefused: refusal('HRX_EVENTS_ALLOW_PRIVATE_HOSTS', 'event endpoint host') }),
  };
  /** Bounded close steps registered by the wired features, run (in order) before the infra's own. */
  const closers: { what: string; fn: () => Promise<unknown> }[] = [];
  return {
    config,
    log,
    cipher,
    apiKeyPeppers,
    secretPeppers,
    /** Blind index keys (crypto/blind-index.ts): current first, then retired ones. */
    blindIndexKeys: blindKeys,
    /** What the migrations that move clear values into envelopes need (db/migrations/keys.ts). */
    migrationKeys: { cipher, blindIndexKey: blindKeys[0]! } satisfies MigrationKeys,
    /** The current master key's key for `purpose` (HKDF, see {@link deriveKey}). */
    derivedKey: (purpose: string): Buffer => deriveKey(keys.current, purpose),
    /** The keys for `purpose` of the current master key, then of each retired one (keyed hashes that must still match after a rotation). */
    derivedKeys,
    db,
    syncDb,
    transactor,
    syncTransactor,
    /** The request path's pg pool (hot paths: employee reads, audit, webhook writes). */
    pool,
    /** The syncs' pg pool (the request pool unless `worker`). */
    syncPool,
    requestRedis,
    redis,
    /** Redis key prefix (`HRX_REDIS_PREFIX`). */
    prefix: config.HRX_REDIS_PREFIX,
    afterCommit,
    hostPolicies,
    /** Registers a close step of a feature (queues, caches, subscribers); each is bounded at close. */
    onClose(what: string, fn: () => Promise<unknown>): void {
      closers.push({ what, fn });
    },
    /**
     * Adopts a feature's BullMQ queue: its connection errors are left to `watchRedis` (logged once
     * per outage; BullMQ would print each one) and it is closed with the process (after it is
     * ready: a queue still connecting would report its late error to a listener close() removed).
     */
    adoptQueue<Q extends { queue: Pick<Queue, 'on' | 'waitUntilReady'>; close(): Promise<void> }>(what: string, q: Q): Q {
      q.queue.on('error', () => undefined);
      closers.push({
        what,
        fn: async () => {
          await q.queue.waitUntilReady().catch(() => undefined);
          await q.close();
        },
      });
      return q;
    },
    /** Closes the features' parts, then everything opened here; each step is bounded, so a dependency that is down never holds the process. */
    async close(): Promise<void> {
      const step = (what: string, fn: () => Promise<unknown>): Promise<void> =>
        bestEffort(fn, 3000, (err) => log.debug({ what, err: err instanceof Error ? err.message : String(err) }, 'close step skipped'));
      for (const c of closers) await step(c.what, c.fn);
      await step('pg pool', () => pool.end());
      if (syncPool !== pool) await step('sync pg pool', () => syncPool.end());
      requestRedis.disconnect();
      redis.disconnect();
      if (syncDb !== db) await step('sync database', () => syncDb.close());
      await step('database', () => db.close());
    },
  };
}

/** Everything a feature may use; built by {@link openInfra}. */
export type Infra = Awaited<ReturnType<typeof openInfra>>;
