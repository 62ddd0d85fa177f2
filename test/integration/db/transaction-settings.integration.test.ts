/**
 * The settings every statement runs under come with its transaction, never with the connection
 * (src/db/settings.ts, docs/operations.md "Scaling out"): on a real PostgreSQL connection, a
 * statement outside a transaction and the statements of a transaction opened as knex opens one
 * see the schema and the limits, the session itself keeps none of them, errors and the statement
 * timeout reach the caller, and the connection is idle (not in a transaction) afterwards. A named
 * statement runs unnamed: no prepared statement stays on the connection.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettingsToTransactions, transactionSettings } from '../../../src/db/settings';
import { DATABASE_URL, dropSchema } from '../../support/harness';

const schema = `t_${randomBytes(5).toString('hex')}`;
let client: pg.Client;
/** pg's own query, past the wrapper: what the session holds. */
const bare = (text: string) => (pg.Client.prototype.query as (text: string) => Promise<pg.QueryResult>).call(client, text);
const session = async () => (await bare(`select current_setting('search_path') as path, current_setting('statement_timeout') as timeout`)).rows[0];

beforeAll(async () => {
  const setup = new pg.Client({ connectionString: DATABASE_URL });
  await setup.connect();
  await setup.query(`create schema "${schema}"; create table "${schema}".marks (n int)`);
  await setup.end();
  client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  scopeSettingsToTransactions(client, transactionSettings(schema, { statementMs: 200, idleInTxMs: 5000 }));
});
afterAll(async () => {
  await client?.end();
  await dropSchema(schema);
});

describe('settings held by each transaction', () => {
  it('a statement outside a transaction sees the schema and the limits; the session keeps neither', async () => {
    const before = await session();
    const res = await client.query(
      `select current_schema() as schema, current_setting('statement_timeout') as timeout, current_setting('idle_in_transaction_session_timeout') as idle`,
    );
    expect(res.rows).toEqual([{ schema, timeout: '200ms', idle: '5s' }]);
    await client.query('insert into marks values ($1)', [1]);
    expect(await session()).toEqual(before);
    expect(before.path).not.toContain(schema);
    expect((await bare(`select n from "${schema}".marks`)).rows).toEqual([{ n: 1 }]);
  });

  it("a transaction opened as knex opens one ({text: 'BEGIN;', values: []}) sees them in every statement", async () => {
    await client.query({ text: 'BEGIN;', values: [] });
    let res: pg.QueryResult;
    try {
      await client.query('insert into marks values ($1)', [2]);
      res = await client.query(`select current_schema() as schema, current_setting('statement_timeout') as timeout`);
    } finally {
      await client.query('ROLLBACK');
    }
    expect(res.rows).toEqual([{ schema, timeout: '200ms' }]);
    expect((await bare(`select count(*)::int as n from "${schema}".marks where n = 2`)).rows).toEqual([{ n: 0 }]);
    expect(await session()).toMatchObject({ timeout: '0' });
  });

  it('the statement timeout cancels a slow statement; an error reaches the caller and leaves the connection idle', async () => {
    await expect(client.query('select pg_sleep(1)')).rejects.toMatchObject({ code: '57014' });
    await expect(client.query('select * from no_such_table')).rejects.toMatchObject({ code: '42P01' });
    // Not left in a transaction (an aborted one would refuse this): the statement starts its own.
    expect((await bare('select now() = statement_timestamp() as own')).rows).toEqual([{ own: true }]);
  });

  it('refuses a cursor or stream outside a transaction (it would run on the default schema)', () => {
    const cursor = { text: 'select * from marks', submit: () => undefined };
    expect(() => client.query(cursor as unknown as pg.QueryConfig)).toThrow(/must run inside a transaction/);
  });

  it('runs a named statement unnamed, in a transaction or not: the session holds no prepared statement (a pooler would not keep it)', async () => {
    const prepared = async () => (await bare('select name from pg_prepared_statements')).rows;
    expect(await prepared()).toEqual([]);
    expect((await client.query({ name: 'hrx_test_named', text: 'select $1::int + 1 as n', values: [4] })).rows).toEqual([{ n: 5 }]);
    await client.query({ text: 'BEGIN;', values: [] });
    try {
      expect((await client.query({ name: 'hrx_test_named_tx', text: 'select current_schema() as s', values: [] })).rows).toEqual([{ s: schema }]);
    } finally {
      await client.query('ROLLBACK');
    }
    expect(await prepared()).toEqual([]);
    // Control: the same call on a connection without the wrapper (session mode) prepares it.
    const direct = new pg.Client({ connectionString: DATABASE_URL });
    await direct.connect();
    try {
      await direct.query({ name: 'hrx_test_named', text: 'select $1::int + 1 as n', values: [4] });
      expect((await direct.query('select name from pg_prepared_statements')).rows).toEqual([{ name: 'hrx_test_named' }]);
    } finally {
      await direct.end();
    }
  });

  it('answers through a callback too (the form pg.Pool and knex use)', async () => {
    const rows = await new Promise<unknown[]>((resolve, reject) =>
      client.query('select current_schema() as schema', (err: Error | null, res: pg.QueryResult) => (err ? reject(err) : resolve(res.rows))),
    );
    expect(rows).toEqual([{ schema }]);
  });
});
