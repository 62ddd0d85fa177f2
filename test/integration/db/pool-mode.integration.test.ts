/**
 * `HRX_DB_POOL_MODE` on a direct PostgreSQL connection (docs/operations.md "PostgreSQL through
 * PgBouncer"): in `session` (the default) the request pool's connections are pg's own (no
 * wrapper), run with the schema and the API's limits from the moment they open, and a statement
 * outside a transaction is one round trip; in `transaction` the same statement is three (BEGIN
 * and the SET LOCALs, the statement, COMMIT). Round trips are counted as the server's
 * ReadyForQuery messages, one per exchange.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { connectionSettings } from '../../../src/db/pool-mode';
import { execute } from '../../../src/db/tx';
import { openInfra, type Infra } from '../../../src/infra';
import { createLogger } from '../../../src/logger';
import { dropSchema, testEnv } from '../../support/harness';

const opened: Infra[] = [];
afterAll(async () => {
  for (const infra of opened) {
    await infra.close();
    await dropSchema(infra.config.HRX_DB_SCHEMA);
  }
});

async function open(mode: 'session' | 'transaction'): Promise<Infra> {
  const infra = await openInfra(loadConfig(testEnv({ HRX_DB_POOL_MODE: mode })), createLogger('silent', 'hrx'));
  opened.push(infra);
  return infra;
}

/** Round trips of `fn` on `client`: the server's ReadyForQuery messages meanwhile. */
async function roundTrips(client: pg.PoolClient, fn: () => Promise<unknown>): Promise<number> {
  const connection = (client as unknown as { connection: { on(e: string, f: () => void): void; off(e: string, f: () => void): void } }).connection;
  let n = 0;
  const count = () => void n++;
  connection.on('readyForQuery', count);
  try {
    await fn();
  } finally {
    connection.off('readyForQuery', count);
  }
  return n;
}

describe('HRX_DB_POOL_MODE on a direct connection', () => {
  it('session: pg’s own query, the schema and the API’s limits without any BEGIN, one round trip per statement', async () => {
    const infra = await open('session');
    const client = await infra.pool.connect();
    try {
      expect(Object.hasOwn(client, 'query')).toBe(false);
      // seam: compares the functions themselves, never calls them unbound.
      expect(Object.is(Reflect.get(client, 'query'), Reflect.get(pg.Client.prototype, 'query'))).toBe(true);
      const show = async (name: string) => (await client.query(`show ${name}`)).rows[0][name];
      expect(await show('statement_timeout')).toBe('1500ms');
      expect(await show('idle_in_transaction_session_timeout')).toBe('10s');
      const rows = async () => (await client.query(`select current_schema() as schema, now() = statement_timestamp() as in_tx`)).rows;
      // Outside a transaction now() (the transaction's start) equals the statement's own timestamp.
      expect(await rows()).toEqual([{ schema: infra.config.HRX_DB_SCHEMA, in_tx: true }]);
      expect(await roundTrips(client, rows)).toBe(1);
    } finally {
      client.release();
    }
    // MikroORM's connections too.
    const orm = await execute<{ timeout: string; schema: string }>(
      infra.db.orm,
      `select current_setting('statement_timeout') as timeout, current_schema() as schema`,
    );
    expect(orm).toEqual([{ timeout: '1500ms', schema: infra.config.HRX_DB_SCHEMA }]);
  });

  it('transaction: the same statement is wrapped, three round trips, and the session keeps no setting', async () => {
    const infra = await open('transaction');
    const client = await infra.pool.connect();
    try {
      expect(Object.hasOwn(client, 'query')).toBe(true);
      const select = () => client.query(`select current_schema() as schema, current_setting('statement_timeout') as timeout`);
      expect((await select()).rows).toEqual([{ schema: infra.config.HRX_DB_SCHEMA, timeout: '1500ms' }]);
      expect(await roundTrips(client, select)).toBe(3);
      const bare = await (pg.Client.prototype.query as (text: string) => Promise<pg.QueryResult>).call(
        client,
        `select current_setting('statement_timeout') as timeout`,
      );
      expect(bare.rows).toEqual([{ timeout: '0' }]);
    } finally {
      client.release();
    }
  });

  it('session: the check names each setting the server does not run with, and the mode to use', async () => {
    const settings = connectionSettings('session', 't_x', { statementMs: 1500, idleInTxMs: 0 });
    expect(settings.clientOptions).toEqual({ options: '-c search_path=t_x -c statement_timeout=1500' });
    await expect(
      settings.verify(() =>
        Promise.resolve([
          { name: 'search_path', setting: 't_x' },
          { name: 'statement_timeout', setting: '1500' },
        ]),
      ),
    ).resolves.toBeUndefined();
    await expect(settings.verify(() => Promise.resolve([{ name: 'search_path', setting: 't_x' }]))).rejects.toThrow(
      /^the PostgreSQL connection does not run with the settings hrx sent when connecting \(statement_timeout is "", not "1500"\): .*set HRX_DB_POOL_MODE=transaction/,
    );
    expect(() => connectionSettings('session', 'x y', { statementMs: 0, idleInTxMs: 0 })).toThrow(/invalid schema name/);
  });
});
