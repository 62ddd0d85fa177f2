/**
 * The one transaction type of hrx (docs/architecture.md; docs/events.md "Outbox": an event is written to the outbox
 * in the same transaction as the change that causes it). Every store method that writes takes an
 * optional `Tx`; a service that must commit several stores' writes together opens one with
 * `Transactor.transaction` and hands it to each.
 *
 * Why MikroORM's `EntityManager` and not a `pg` client: most stores use MikroORM (entities,
 * `nativeUpdate`, row locks), and MikroORM cannot join a transaction begun on a foreign `pg`
 * client, whereas a MikroORM transaction can hand out the `pg` connection it runs on. So the
 * `Tx` is the entity manager of a running `em.transactional(...)`, and stores that need raw
 * speed (the employee bulk writes, whose multi-megabyte JSON parameter knex would walk again for
 * nothing: 10k-employee sync 9.2 s through knex vs 5.0 s direct) reach the same connection
 * through ONE seam, `pgClientOf(tx)`. Without a `Tx` those stores use their own `pg` pool (the
 * hot read path keeps its dataloader there: no extra round trip).
 */
import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';

/**
 * A running transaction: the entity manager inside `em.transactional(...)` (valid until its
 * callback settles). Writes through it, through its `getConnection().execute(..., 'all',
 * tx.getTransactionContext())`, or through `pgClientOf(tx)` commit or roll back together.
 */
export type Tx = EntityManager;

/** Something that runs `pg` queries: a pool (no transaction) or a transaction's client. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * The seam between MikroORM and raw `pg`: the `pg.Client` that carries `tx` (knex's
 * transaction-bound client always hands out its one connection, so no pool round trip happens).
 * Statements use `$n` placeholders and are never named: a prepared statement lives on one server
 * connection, which a transaction pooler does not keep for hrx (docs/operations.md "Scaling out"). The connection is
 * MikroORM's: date and timestamp columns come back as strings (its type overrides). Throws when
 * `tx` is not inside a transaction.
 */
export async function pgClientOf(tx: Tx): Promise<pg.ClientBase> {
  const trx = tx.getTransactionContext<Knex.Transaction>();
  if (!trx) throw new Error('pgClientOf: not inside a transaction');
  // knex types a transaction's `client` as any; its pg dialect hands out pg clients.
  return (trx.client as { acquireConnection(): Promise<pg.ClientBase> }).acquireConnection();
}

/** `pgClientOf(tx)` when given a transaction, else `pool`: where a raw-`pg` store runs a statement. */
export async function queryableOf(pool: pg.Pool, tx?: Tx): Promise<Queryable> {
  return tx ? pgClientOf(tx) : pool;
}

/**
 * The entity manager a MikroORM store method works with: `tx` when given (its writes commit with
 * the caller's), else a fresh fork of `orm`'s (the method's own unit of work).
 */
export function emOf(orm: MikroORM, tx?: Tx): EntityManager {
  return tx ?? orm.em.fork();
}

/**
 * Runs `work` in a transaction of its own, or inside `tx` when given (as a nested transaction,
 * a savepoint, so the caller's commit or rollback decides): for store methods whose steps must be
 * atomic (advisory locks, `for update`, several statements).
 */
export function transactionOf<T>(orm: MikroORM, tx: Tx | undefined, work: (em: Tx) => Promise<T>): Promise<T> {
  return emOf(orm, tx).transactional(work);
}

/** Runs SQL with `?` placeholders through MikroORM's connection, in `tx` when given; returns the rows. */
export function execute<R = Record<string, unknown>>(orm: MikroORM, sql: string, params: unknown[] = [], tx?: Tx): Promise<R[]> {
  return (tx ?? orm.em).getConnection().execute<R[]>(sql, params, 'all', tx?.getTransactionContext());
}

/** SQLSTATEs after which a transaction may simply run again: deadlock, serialization failure. */
export const RETRYABLE_SQLSTATES: readonly string[] = ['40P01', '40001'];

/** Options of `Transactor.transaction`. */
export interface TransactionOptions {
  /**
   * SQLSTATEs on which the whole transaction is rolled back and run again (default
   * `RETRYABLE_SQLSTATES`); `work` must then do nothing but database work through its `tx`.
   */
  retryOn?: readonly string[];
  /** Runs at most (default 5). */
  maxRuns?: number;
}

/** Opens transactions. */
export interface Transactor {
  /**
   * Runs `work` in one transaction on a fresh entity manager and commits when it resolves; rolls
   * back and rethrows when it throws (after the retries of `opts`).
   */
  transaction<T>(work: (tx: Tx) => Promise<T>, opts?: TransactionOptions): Promise<T>;
}

/** Builds the transactor over `orm`. */
export function createTransactor(orm: MikroORM): Transactor {
  return {
    async transaction(work, opts = {}) {
      const retryOn = opts.retryOn ?? RETRYABLE_SQLSTATES;
      const maxRuns = opts.maxRuns ?? 5;
      for (let run = 1; ; run++) {
        try {
          return await orm.em.fork().transactional((tx) => work(tx));
        } catch (err) {
          // MikroORM's exceptions copy the driver error's `code` (the SQLSTATE).
          const code = (err as { code?: unknown }).code;
          if (run >= maxRuns || typeof code !== 'string' || !retryOn.includes(code)) throw err;
        }
      }
    },
  };
}
