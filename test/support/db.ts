/**
 * A test's own view of its database: a small pg pool on the test schema (`dbQuery`, `testPool`),
 * SQL through the context's MikroORM connection (`ormQuery`), transactions (`transactorOf`) and
 * stores for seeding and inspecting rows (`storesOf`). The app's context hands out neither its
 * pool nor its stores; tests reach its ORM only through these helpers.
 */
import pg from 'pg';
import { createConnectionStore } from '../../src/connections/store';
import type { Context } from '../../src/context';
import { scopeSettingsToTransactions, transactionSettings } from '../../src/db/settings';
import { createTransactor, execute, type Transactor } from '../../src/db/tx';
import { createEmployeeStore } from '../../src/employees/store';
import { createEventStore } from '../../src/events/store';
import { createExternalStore } from '../../src/external/store';
import { createOrgStore } from '../../src/orgs/store';
import { createHrmsConfigStore } from '../../src/setup/store';

/** A context, or anything that carries one (TestApp, PrivateApp). */
export type HasContext = Context | { ctx: Context };

const ctxOf = (t: HasContext): Context => ('ctx' in t ? t.ctx : t);
const pools = new WeakMap<Context, pg.Pool>();
const stores = new WeakMap<Context, ReturnType<typeof buildStores>>();

/** The test's pg pool on `t`'s schema (opened on first use; closed by {@link closeTestDb}). */
export function testPool(t: HasContext): pg.Pool {
  const ctx = ctxOf(t);
  let pool = pools.get(ctx);
  if (!pool) {
    pool = new pg.Pool({ connectionString: ctx.db.url, max: 3, allowExitOnIdle: true });
    // As hrx's own pools: the schema comes with each transaction, so this works through a PgBouncer too.
    const settings = transactionSettings(ctx.db.schema, { statementMs: 0, idleInTxMs: 0 });
    pool.on('connect', (client) => scopeSettingsToTransactions(client, settings));
    // Fault tests stop their PostgreSQL under it: an idle or checked-out client's error is not the test's.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    pools.set(ctx, pool);
  }
  return pool;
}

/** The PostgreSQL backend pid of `client`'s connection (for {@link lockWaiter}). */
export async function backendPid(client: pg.ClientBase): Promise<number> {
  return (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
}

/**
 * Waits until a backend waits on a lock held by backend `blockerPid` (`pg_blocking_pids`) in a
 * statement matching `query`, and resolves with its pid; or resolves null once `done()` holds.
 * Throws after about 10 s. Keyed on the blocker, not only on the statement, since other test
 * files run the same statements in other schemas of the same database at the same time. For
 * tests that force the order of two transactions with a row lock they hold.
 */
export async function lockWaiter(t: HasContext, blockerPid: number, query: RegExp, done?: () => boolean): Promise<number | null> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await dbQuery<{ pid: number; query: string }>(t, `select pid, query from pg_stat_activity where $1 = any(pg_blocking_pids(pid))`, [
      blockerPid,
    ]);
    const waiting = rows.find((r) => query.test(r.query));
    if (waiting) return waiting.pid;
    if (done?.()) return null;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no statement matching ${query} waited on a lock of backend ${blockerPid}`);
}

/** Runs `text` with `values` on `t`'s schema (the test's own pool). */
export function dbQuery<R extends pg.QueryResultRow = any>(t: HasContext, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
  return testPool(t).query<R>(text, values);
}

/**
 * Runs `text` with `?` placeholders through the context's MikroORM connection (rows as MikroORM
 * types them: date and timestamp columns as strings), on its request pool.
 */
export function ormQuery<R = any>(t: HasContext, text: string, values: unknown[] = []): Promise<R[]> {
  return execute<R>(ctxOf(t).db.orm, text, values);
}

const transactors = new WeakMap<Context, Transactor>();

/** A transactor over the context's ORM: to run stores or services in one transaction. */
export function transactorOf(t: HasContext): Transactor {
  const ctx = ctxOf(t);
  let tr = transactors.get(ctx);
  if (!tr) {
    tr = createTransactor(ctx.db.orm);
    transactors.set(ctx, tr);
  }
  return tr;
}

function buildStores(ctx: Context) {
  return {
    employees: createEmployeeStore(testPool(ctx), ctx.cipher),
    hrmsConfigs: createHrmsConfigStore(ctx.db.orm, ctx.cipher),
    connections: createConnectionStore(ctx.db.orm),
    events: createEventStore(ctx.db.orm),
    orgs: createOrgStore(ctx.db.orm),
    external: createExternalStore(ctx.db.orm),
  };
}

/** Stores over `t`'s database for seeding and inspecting (employees over the test's pool, the rest over the context's ORM). */
export function storesOf(t: HasContext): ReturnType<typeof buildStores> {
  const ctx = ctxOf(t);
  let s = stores.get(ctx);
  if (!s) {
    s = buildStores(ctx);
    stores.set(ctx, s);
  }
  return s;
}

/** Closes the test's pool of `t`, if opened. */
export async function closeTestDb(t: HasContext): Promise<void> {
  const ctx = ctxOf(t);
  const pool = pools.get(ctx);
  pools.delete(ctx);
  stores.delete(ctx);
  await pool?.end().catch(() => undefined);
}
