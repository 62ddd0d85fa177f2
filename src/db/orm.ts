/**
 * Opens the database: MikroORM over PostgreSQL (external `DATABASE_URL`, or the embedded server),
 * with every connection's `search_path` set to `HRX_DB_SCHEMA` so tests can use a schema each.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { ALL_ENTITIES } from './entities';
import { MIGRATIONS } from './migrations/index';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';

/** An open database: the ORM and a close function (also stops an embedded server it started). */
export interface Database {
  orm: MikroORM;
  url: string;
  schema: string;
  close(): Promise<void>;
}

/** Port of the embedded server (fixed so every hrx process of a data dir finds it). */
export const EMBEDDED_PG_PORT = Number(process.env.HRX_EMBEDDED_PG_PORT ?? 54329);

/**
 * Opens MikroORM on `config.DATABASE_URL`, or on an embedded PostgreSQL started here when it is
 * unset. Creates the schema when missing. Throws when the server cannot be reached.
 */
export async function openDatabase(config: Config, log: Logger, opts: { poolMax?: number } = {}): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.HRX_DATA_DIR, EMBEDDED_PG_PORT, log);
    url = embedded.url;
  }
  const schema = config.HRX_DB_SCHEMA;
  const orm = await MikroORM.init({
    clientUrl: url,
    schema,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, silent: true, transactional: true, allOrNothing: true, snapshot: false },
    discovery: { warnWhenNoEntities: false },
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      afterCreate: (conn: { query(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) => {
        conn.query(`set search_path to "${schema}"`, (err) => done(err, conn));
      },
    },
    debug: false,
    allowGlobalContext: false,
  });
  if (schema !== 'public') await orm.em.getConnection().execute(`create schema if not exists "${schema}"`);
  return {
    orm,
    url,
    schema,
    async close() {
      await orm.close(true);
      if (embedded) await embedded.stop();
    },
  };
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(db: Database): Promise<string[]> {
  const applied = await db.orm.getMigrator().up();
  return applied.map((m) => m.name);
}
