/**
 * How hrx's PostgreSQL connections get `search_path` and the server-side limits, chosen by the
 * operator with `HRX_DB_POOL_MODE` (docs/operations.md "PostgreSQL through PgBouncer"):
 *
 * - `session` (a direct connection, or a pooler that hands each client a server connection of its
 *   own and passes startup parameters through): the settings are startup parameters of each
 *   connection (`options=-c search_path=... -c statement_timeout=...`). Nothing is wrapped, so a
 *   statement outside a transaction is one round trip. Each pool checks once, when it opens,
 *   that the server really runs with them: a pooler that drops startup parameters silently
 *   (PgBouncer's `ignore_startup_parameters = options`) would otherwise leave every statement on
 *   `public` without limits.
 * - `transaction` (PgBouncer `pool_mode = transaction`): nothing is set per connection; every
 *   transaction carries the settings as `SET LOCAL` (db/settings.ts), and a statement outside a
 *   transaction gets one of its own (two round trips more).
 */
import type pg from 'pg';
import { ConfigError } from '../config';
import { scopeSettingsToTransactions, transactionSettings } from './settings';

/** The values of `HRX_DB_POOL_MODE`. */
export type DbPoolMode = 'session' | 'transaction';

/** The server-side limits of a pool (ms; 0 = unlimited: not set), as in db/orm.ts `DbTimeouts`. */
export interface ServerLimits {
  statementMs: number;
  idleInTxMs: number;
}

/** Runs one statement on a connection of the pool being checked; resolves with its rows. */
export type RunQuery = (sql: string) => Promise<Record<string, unknown>[]>;

/** What a pool of `mode` does with its connections; from {@link connectionSettings}. */
export interface ConnectionSettings {
  /** Extra `pg` client options: `options` (the startup parameters) in `session` mode, none in `transaction`. */
  clientOptions: { options?: string };
  /** Prepares a connection the pool just opened (before it is handed out): `transaction` wraps its `query`. */
  prepare(client: pg.ClientBase): void;
  /**
   * Checks, once per pool, that the server runs with the settings (`session`; `transaction` has
   * nothing to check). Throws ConfigError naming `HRX_DB_POOL_MODE=transaction` when it does not.
   */
  verify(run: RunQuery): Promise<void>;
}

const SCHEMA = /^[a-z_][a-z0-9_]*$/;
const DOCS = 'docs/operations.md "PostgreSQL through PgBouncer"';

/**
 * The settings of a pool on `schema` (validated by the config: `[a-z_][a-z0-9_]*`; other names
 * throw) with the limits `t`, in `mode`.
 */
export function connectionSettings(mode: DbPoolMode, schema: string, t: ServerLimits): ConnectionSettings {
  if (!SCHEMA.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  if (mode === 'transaction') {
    const settings = transactionSettings(schema, t);
    return { clientOptions: {}, prepare: (client) => scopeSettingsToTransactions(client, settings), verify: () => Promise.resolve() };
  }
  // What the server must report (pg_settings.setting: ms, without a unit); a 0 limit is not set.
  const expected: [name: string, value: string][] = [
    ['search_path', schema],
    ...(t.statementMs ? [['statement_timeout', String(Math.floor(t.statementMs))] as [string, string]] : []),
    ...(t.idleInTxMs ? [['idle_in_transaction_session_timeout', String(Math.floor(t.idleInTxMs))] as [string, string]] : []),
  ];
  return {
    // The schema name needs neither quotes nor escapes (no space, no backslash).
    clientOptions: { options: expected.map(([name, value]) => `-c ${name}=${value}`).join(' ') },
    prepare: () => undefined,
    async verify(run) {
      const names = expected.map(([name]) => `'${name}'`).join(', ');
      const rows = await run(`select name, setting from pg_settings where name in (${names})`);
      const got = new Map(rows.map((r) => [String(r.name), String(r.setting)]));
      const wrong = expected.filter(([name, value]) => got.get(name) !== value);
      if (wrong.length === 0) return;
      const said = wrong.map(([name, value]) => `${name} is ${JSON.stringify(got.get(name) ?? '')}, not ${JSON.stringify(value)}`).join('; ');
      throw new ConfigError(
        `the PostgreSQL connection does not run with the settings hrx sent when connecting (${said}): a pooler in between dropped them (PgBouncer's ignore_startup_parameters); set HRX_DB_POOL_MODE=transaction (${DOCS})`,
      );
    },
  };
}

/**
 * The ConfigError to throw when `err` (or its cause chain) is a pooler refusing the startup
 * parameters of `session` mode (PgBouncer: "unsupported startup parameter"), else undefined.
 * Names the setting to change, never the URL.
 */
export function startupParametersRefused(err: unknown): ConfigError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && /unsupported startup parameter/i.test(message))
      return new ConfigError(
        `the server at DATABASE_URL refused the startup parameters of HRX_DB_POOL_MODE=session (unsupported startup parameter): a pooler such as PgBouncer is in between; set HRX_DB_POOL_MODE=transaction (${DOCS})`,
      );
    e = (e as { cause?: unknown; previous?: unknown }).cause ?? (e as { previous?: unknown }).previous;
  }
  return undefined;
}
