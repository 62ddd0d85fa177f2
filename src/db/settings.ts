/**
 * The settings hrx's statements run under (`search_path`, `statement_timeout`,
 * `idle_in_transaction_session_timeout`), held by each transaction rather than by the connection,
 * so that they survive a transaction pooler (docs/operations.md "Scaling out"). PgBouncer in
 * `pool_mode = transaction` refuses startup parameters and hands each transaction whichever
 * server connection is free, so a session `SET` would be lost, or worse, leak to another
 * process's transactions (a worker's 300 s timeout on an API request, an API's 1.5 s on a sync).
 *
 * Used in `HRX_DB_POOL_MODE=transaction` only (db/pool-mode.ts; `session` gives the settings as
 * startup parameters instead): every `pg` connection hrx opens (its `pg.Pool`s and the connections
 * knex opens for MikroORM) gets {@link scopeSettingsToTransactions}. A `BEGIN` becomes
 * `BEGIN; SET LOCAL ...` (one round trip, as before); a statement outside a transaction runs
 * inside one of its own (`BEGIN; SET LOCAL ...`, the statement, `COMMIT`: two round trips more).
 * Statement names are dropped: a prepared statement would be asked for on a server connection that
 * never saw it (the stores name their hottest statements for `session` mode, db/README.md).
 */
import type pg from 'pg';

/**
 * The `SET LOCAL` statements that give a transaction `schema` (validated by the config:
 * `[a-z_][a-z0-9_]*`) and the server-side limits of `t` (ms, as in db/orm.ts `DbTimeouts`; 0 =
 * unlimited: not set). Throws on any other schema name.
 */
export function transactionSettings(schema: string, t: { statementMs: number; idleInTxMs: number }): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  return [
    `set local search_path to "${schema}"`,
    ...(t.statementMs ? [`set local statement_timeout = ${Math.floor(t.statementMs)}`] : []),
    ...(t.idleInTxMs ? [`set local idle_in_transaction_session_timeout = ${Math.floor(t.idleInTxMs)}`] : []),
  ].join('; ');
}

/** Starts a transaction (knex sends `BEGIN;`; the stores never send one of their own). */
const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
/** Ends it; `ROLLBACK TO SAVEPOINT` does not. */
const END = /^\s*(commit|end|abort|rollback(?!\s+to\b))\b/i;
/** Statements PostgreSQL refuses inside a transaction block: run as they are. */
const NO_TRANSACTION = /^\s*(vacuum|(create|drop)\s+(unique\s+)?index\s+concurrently|reindex\b.*\bconcurrently|(create|drop)\s+database|alter\s+system)\b/is;
const MARK = Symbol('hrx.transactionSettings');

type Callback = (err: Error | null, res?: unknown) => void;
type RawQuery = (config: unknown, values?: unknown, callback?: Callback) => unknown;

/**
 * Makes every statement on `client` run inside a transaction that begins with `settings` (from
 * {@link transactionSettings}). Transactions the caller opens keep theirs; a statement outside
 * one gets a transaction of its own, and its result or error (or the COMMIT's) is the call's.
 * Submittables (cursors, streams) run only inside a transaction (else: throws); the statements of
 * `NO_TRANSACTION` pass unchanged. Supports the promise and callback forms of `query`; applied
 * once per client.
 */
export function scopeSettingsToTransactions(client: pg.ClientBase, settings: string): void {
  const target = client as pg.ClientBase & { [MARK]?: true };
  if (target[MARK]) return;
  target[MARK] = true;
  // seam: pg's query has a dozen overloads; this wrapper forwards whatever it is given.
  const raw = client.query.bind(client) as unknown as RawQuery;
  let inTransaction = false;
  const wrapped = (given: unknown, values?: unknown, callback?: unknown): unknown => {
    // A named (prepared) statement lives on one server connection, which a transaction pooler
    // does not keep: its name is dropped here, so it runs unnamed (parsed and planned each time).
    const config = unnamed(given);
    const cb = (typeof values === 'function' ? values : callback) as Callback | undefined;
    const vals = typeof values === 'function' ? undefined : values;
    const text = typeof config === 'string' ? config : (config as { text?: unknown; submit?: unknown } | null)?.text;
    // A cursor or stream answers as it reads, so it cannot be wrapped: outside a transaction it
    // would run without the schema (silently on `public`), so it is refused.
    if (typeof (config as { submit?: unknown } | null)?.submit === 'function' && !inTransaction)
      throw new Error('a cursor or stream must run inside a transaction: it would not get the schema and limits (src/db/settings.ts)');
    if (typeof text !== 'string') return raw(config, values, callback as Callback);
    if (inTransaction) {
      if (END.test(text)) inTransaction = false;
      return raw(config, values, callback as Callback);
    }
    if (NO_TRANSACTION.test(text)) return raw(config, values, callback as Callback);
    if (BEGIN.test(text)) {
      inTransaction = true;
      // One simple query (knex sends `{text: 'BEGIN;', values: []}`): BEGIN and the settings; the answer is BEGIN's.
      const begin = `${text.trim().replace(/;$/, '')}; ${settings}`;
      const params = vals ?? (config as { values?: unknown[] }).values;
      if (Array.isArray(params) && params.length > 0) throw new Error('a BEGIN with parameters cannot carry the transaction settings');
      return settle(cb, (done) =>
        raw(typeof config === 'string' ? begin : { ...(config as object), text: begin, values: undefined }, undefined, (err, res) =>
          done(err, Array.isArray(res) ? res[0] : res),
        ),
      );
    }
    return settle(cb, (done) =>
      raw(`begin; ${settings}`, undefined, (beginErr) => {
        if (beginErr) return void raw('rollback', undefined, () => done(beginErr));
        raw(config, vals, (err, res) => {
          raw(err ? 'rollback' : 'commit', undefined, (endErr) => done(err ?? endErr ?? null, res));
        });
      }),
    );
  };
  // seam: the instance property shadows pg's prototype method for this client only.
  (client as unknown as { query: typeof wrapped }).query = wrapped;
}

/**
 * `config` without its statement `name` when it is a plain query config (`{text, values, name}`)
 * that has one; anything else (a string, a submittable) unchanged.
 */
function unnamed(config: unknown): unknown {
  if (typeof config !== 'object' || config === null || typeof (config as { submit?: unknown }).submit === 'function') return config;
  if (!(config as { name?: unknown }).name) return config;
  const { name: _name, ...rest } = config as { name?: unknown };
  return rest;
}

/** Runs `work`, answering through `cb` when given, else as a promise (pg's two forms). */
function settle(cb: Callback | undefined, work: (done: Callback) => void): Promise<unknown> | undefined {
  if (cb) {
    work(cb);
    return undefined;
  }
  return new Promise((resolve, reject) => work((err, res) => (err ? reject(err) : resolve(res))));
}
