/**
 * The one transaction type (src/db/tx.ts): MikroORM's transaction and its raw `pg` seam
 * (`pgClientOf`) are one PostgreSQL transaction, committed or rolled back together; retries
 * happen only on the SQLSTATEs asked for. Real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransactor, execute, pgClientOf, type Transactor } from '../../../src/db/tx';
import { startTestApp, type TestApp } from '../../support/harness';

describe('db/tx: one transaction for MikroORM and raw pg', () => {
  let app: TestApp;
  let transactor: Transactor;

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    transactor = createTransactor(app.ctx.db.orm);
    await execute(app.ctx.db.orm, 'create table tx_probe (n int not null)');
  });
  afterAll(async () => {
    await app?.stop();
  });

  const count = async () => (await execute<{ n: number }>(app.ctx.db.orm, 'select count(*)::int as n from tx_probe'))[0]!.n;

  it('statements through the seam and through MikroORM share one connection and commit together', async () => {
    const before = await count();
    const pids = await transactor.transaction(async (tx) => {
      const client = await pgClientOf(tx);
      await client.query('insert into tx_probe (n) values ($1)', [1]);
      await execute(app.ctx.db.orm, 'insert into tx_probe (n) values (?)', [2], tx);
      // Each sees the other's uncommitted row: the same transaction.
      const [seen] = await execute<{ n: number }>(app.ctx.db.orm, 'select count(*)::int as n from tx_probe where n in (1, 2)', [], tx);
      expect(seen!.n).toBeGreaterThanOrEqual(2);
      const raw = (await client.query('select pg_backend_pid() as pid')).rows[0].pid as number;
      const [orm] = await execute<{ pid: number }>(app.ctx.db.orm, 'select pg_backend_pid() as pid', [], tx);
      return [raw, orm!.pid];
    });
    expect(pids[0]).toBe(pids[1]);
    expect(await count()).toBe(before + 2);
  });

  it('a failure rolls back what both wrote', async () => {
    const before = await count();
    await expect(
      transactor.transaction(async (tx) => {
        await (await pgClientOf(tx)).query('insert into tx_probe (n) values (3)');
        await execute(app.ctx.db.orm, 'insert into tx_probe (n) values (4)', [], tx);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await count()).toBe(before);
  });

  it('runs again only on the SQLSTATEs asked for', async () => {
    let runs = 0;
    const serialization = () => Object.assign(new Error('could not serialize'), { code: '40001' });
    const out = await transactor.transaction(() => {
      runs++;
      return runs < 3 ? Promise.reject(serialization()) : Promise.resolve('ok');
    });
    expect([out, runs]).toEqual(['ok', 3]);
    runs = 0;
    await expect(
      transactor.transaction(() => {
        runs++;
        return Promise.reject(Object.assign(new Error('unique'), { code: '23505' }));
      }),
    ).rejects.toThrow('unique');
    expect(runs).toBe(1);
    runs = 0;
    await expect(
      transactor.transaction(
        () => {
          runs++;
          return runs < 2 ? Promise.reject(Object.assign(new Error('unique'), { code: '23505' })) : Promise.resolve();
        },
        { retryOn: ['23505'] },
      ),
    ).resolves.toBeUndefined();
    expect(runs).toBe(2);
  });

  it('the seam refuses an entity manager outside a transaction', async () => {
    await expect(pgClientOf(app.ctx.db.orm.em.fork())).rejects.toThrow('not inside a transaction');
  });
});
