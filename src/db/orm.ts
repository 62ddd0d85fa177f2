/**
 * Opens the database: MikroORM over PostgreSQL (external `DATABASE_URL`, or the embedded server),
 * every statement on `HRX_DB_SCHEMA` (so tests can use a schema each) under the pool's
 * server-side limits, given per connection or per transaction as `HRX_DB_POOL_MODE` says
 * (db/pool-mode.ts; `transaction` lets a transaction pooler such as PgBouncer sit in between).
 */
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import { ConfigError, type Config } from '../config';
import type { Logger } from '../logger';
import { ALL_ENTITIES } from './entities';
import { migrationsList } from './migrations/index';
import type { MigrationKeys } from './migrations/keys';
import type { EmbeddedDatabase } from './embedded';
import { connectionSettings, startupParametersRefused } from './pool-mode';

/**
 * How long a PostgreSQL call may take (ms; 0 = unlimited). `connectMs` bounds opening a
 * connection and waiting for a free one in the pool; `statementMs` is the server's
 * `statement_timeout` (the server cancels, so a statement that timed out never commits later);
 * `queryMs` the client's own deadline (a server that does not answer at all); `idleInTxMs` the
 * server's `idle_in_transaction_session_timeout` (a transaction its client gave up on is rolled
 * back, never committed later). The two server-side ones are startup parameters of each
 * connection, or come with each transaction (`SET LOCAL`), as `HRX_DB_POOL_MODE` says
 * (db/pool-mode.ts). Source: docs/operations.md "Redis or PostgreSQL down; shutdown", "Scaling out".
 */
export interface DbTimeouts {
  connectMs: number;
  statementMs: number;
  queryMs: number;
  idleInTxMs: number;
}

/** Request path: every call gives up within 2 s (1.8 s here); the server cancels first (1.5 s). */
export const REQUEST_DB_TIMEOUTS: DbTimeouts = { connectMs: 1800, statementMs: 1500, queryMs: 1800, idleInTxMs: 10_000 };
/** Background work (syncs): large batches may run long, but a dead server is noticed. */
export const BACKGROUND_DB_TIMEOUTS: DbTimeouts = { connectMs: 5000, statementMs: 300_000, queryMs: 310_000, idleInTxMs: 600_000 };
/** Migrations: DDL on large tables may take as long as it takes. */
export const MIGRATION_DB_TIMEOUTS: DbTimeouts = { connectMs: 5000, statementMs: 0, queryMs: 0, idleInTxMs: 0 };

let teardownInstalled = false;

/**
 * Makes a pg connection whose query got no answer within `query_timeout` close itself (once per
 * process; knex's connections use the same `pg` module). Without it, pg only fails that query
 * and keeps the connection, so the next query (a ROLLBACK, the next request) waits behind the
 * unanswered one and a server that accepts but answers nothing holds requests past 2 s. Closed,
 * the connection fails what is queued on it at once and its pool drops it (docs/limits.md).
 */
export function closeConnectionsOnQueryTimeout(): void {
  if (teardownInstalled) return;
  teardownInstalled = true;
  // seam: pg's Query.handleError is internal (not in @types/pg); this patch is the only way to
  // close a connection whose query timed out.
  const proto = (pg as unknown as { Query: { prototype: { handleError: (this: unknown, err: unknown, connection: unknown) => unknown } } }).Query.prototype;
  const handleError = proto.handleError;
  proto.handleError = function (this: unknown, err: unknown, connection: unknown) {
    if (err instanceof Error && err.message === 'Query read timeout') {
      (connection as { stream?: { destroy(): void } } | undefined)?.stream?.destroy();
    }
    return handleError.call(this, err, connection);
  };
}

/**
 * The `pg` client options for `t` (also used by the plain `pg.Pool`s of src/infra.ts): the
 * client-side limits only; the server-side ones are db/pool-mode.ts's.
 */
export function pgTimeoutOptions(t: DbTimeouts): Record<string, number> {
  return {
    connectionTimeoutMillis: t.connectMs,
    ...(t.queryMs ? { query_timeout: t.queryMs } : {}),
  };
}

/** An open database: the ORM and a close function (also stops an embedded server it started). */
export interface Database {
  orm: MikroORM;
  url: string;
  schema: string;
  /**
   * Opens another ORM on the same server and schema (its own pool, `timeouts`; `migrationKeys`
   * for migrations that encrypt existing rows); never stops the embedded server.
   */
  reopen(opts: { poolMax?: number; timeouts: DbTimeouts; migrationKeys?: MigrationKeys }): Promise<Database>;
  close(): Promise<void>;
}

/**
 * Opens MikroORM on `config.DATABASE_URL`, or on an embedded PostgreSQL started here when it is
 * unset. Creates the schema when missing. Throws when the server cannot be reached.
 */
export async function openDatabase(
  config: Config,
  log: Logger,
  opts: { poolMax?: number; timeouts?: DbTimeouts; url?: string; migrationKeys?: MigrationKeys } = {},
): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = opts.url ?? config.DATABASE_URL;
  if (!url) {
    // Imported only when used (docs/operations.md "Redis or PostgreSQL down; shutdown"): see db/embedded.ts.
    const { startEmbeddedPostgres } = await import('./embedded');
    embedded = await startEmbeddedPostgres(config.HRX_DATA_DIR, config.HRX_EMBEDDED_PG_PORT, log);
    url = embedded.url;
  }
  const schema = config.HRX_DB_SCHEMA;
  const t = opts.timeouts ?? REQUEST_DB_TIMEOUTS;
  const settings = connectionSettings(config.HRX_DB_POOL_MODE, schema, t);
  closeConnectionsOnQueryTimeout();
  const orm = await MikroORM.init({
    clientUrl: url,
    schema,
    // A mistyped database name must be an error, never a new empty database (MikroORM creates
    // a missing one by default); the embedded server creates its own `hrx` (db/embedded.ts).
    ensureDatabase: false,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: migrationsList(opts.migrationKeys ?? null), silent: true, transactional: true, allOrNothing: true, snapshot: false },
    discovery: { warnWhenNoEntities: false },
    // knex hands `connection` to pg.Client; acquireConnectionTimeout bounds waiting for the pool.
    driverOptions: {
      connection: { ...pgTimeoutOptions(t), ...settings.clientOptions },
      acquireConnectionTimeout: t.connectMs,
      // knex's own warnings (e.g. a connection the server closed) go to our log, not stdout.
      log: {
        warn: (m: unknown) => log.debug({ knex: String(m).slice(0, 200) }, 'knex warning'),
        error: (m: unknown) => log.debug({ knex: String(m).slice(0, 200) }, 'knex error'),
        deprecate: () => undefined,
        debug: () => undefined,
      },
    },
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      acquireTimeoutMillis: t.connectMs,
      afterCreate: (conn: pg.ClientBase, done: (err: Error | null, conn: unknown) => void) => {
        settings.prepare(conn);
        done(null, conn);
      },
    },
    debug: false,
    allowGlobalContext: false,
  });
  try {
    if (schema !== 'public') await orm.em.getConnection().execute(`create schema if not exists "${schema}"`);
    else await orm.em.getConnection().execute('select 1');
    await settings.verify((sql) => orm.em.getConnection().execute(sql));
  } catch (err) {
    await orm.close(true).catch(() => undefined);
    if (embedded) await embedded.stop().catch(() => undefined);
    throw missingDatabase(err, url) ?? startupParametersRefused(err) ?? err;
  }
  return {
    orm,
    url,
    schema,
    reopen: (o) => openDatabase(config, log, { ...o, url }),
    async close() {
      await orm.close(true);
      if (embedded) await embedded.stop();
    },
  };
}

/**
 * The error naming the database when `err` is PostgreSQL's "database does not exist" (SQLSTATE
 * 3D000), else undefined. The name comes from the URL's path: never its password.
 */
function missingDatabase(err: unknown, url: string): ConfigError | undefined {
  if ((err as { code?: unknown } | null)?.code !== '3D000') return undefined;
  let name = '';
  try {
    name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  } catch {
    // Not a URL (a connection string pg reads otherwise): say it without the name.
  }
  const named = name ? `"${name}"` : 'named in DATABASE_URL';
  return new ConfigError(`the database ${named} does not exist: hrx never creates one; create it (createdb ${name || '<name>'}) and run hrx migrate`);
}

/**
 * Applies every pending migration; returns the names applied. Runs on a connection of its own
 * without statement timeouts (`MIGRATION_DB_TIMEOUTS`), so DDL on large tables is not cancelled.
 * `keys` (the context's `migrationKeys`): migrations that encrypt existing rows need them
 * (docs/at-rest.md).
 */
export async function migrate(db: Database, keys: MigrationKeys): Promise<string[]> {
  const own = await db.reopen({ poolMax: 1, timeouts: MIGRATION_DB_TIMEOUTS, migrationKeys: keys });
  try {
    for (let run = 1; ; run++) {
      try {
        const applied = await own.orm.getMigrator().up();
        return applied.map((m) => m.name);
      } catch (err) {
        // MikroORM lists the tables of every schema (casting each name to regclass): a schema or
        // table dropped meanwhile by someone else (tests drop theirs in parallel) fails that
        // listing with 3F000 / 42P01. The migrations are all-or-nothing, so running again is safe.
        const code = (err as { code?: unknown }).code;
        if (run >= 5 || (code !== '3F000' && code !== '42P01')) throw err;
      }
    }
  } finally {
    await own.close();
  }
}
