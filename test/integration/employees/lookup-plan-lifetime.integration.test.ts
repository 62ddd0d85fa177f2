/**
 * The read's prepared statement and the life of its cached plan (src/employees/store.ts,
 * src/infra.ts `PG_POOL_CONNECTION_LIFETIME_S`): PostgreSQL keeps a prepared statement's generic
 * plan until the table's statistics change, so a plan made while `employees` was empty (a
 * sequential scan) would serve the grown table until autovacuum analyzes it. hrx's pools replace a
 * connection once it is older than the lifetime, and the new connection plans for the table as it
 * is. Checked on the plan PostgreSQL runs for the named statement (EXPLAIN EXECUTE on the pool's
 * one connection), with autovacuum off for this test's own schema.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_DB_TIMEOUTS } from '../../../src/db/orm';
import { createEmployeeStore, LOOKUP_STATEMENT } from '../../../src/employees/store';
import { PG_POOL_CONNECTION_LIFETIME_S, pgPoolOptions } from '../../../src/infra';
import { startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';

let app: TestApp;
let orgId: number;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  orgId = (await f.client(app.ctx)).org.id;
  await dbQuery(app, `alter table employees set (autovacuum_enabled = false)`);
}, 60_000);
afterAll(async () => app?.stop());

/** The scan nodes on `employees` of the plan the pool's connection runs for the named statement. */
async function employeeScans(pool: pg.Pool, ref: string): Promise<string[]> {
  const client = await pool.connect();
  try {
    const res = await client.query(
      `explain (analyze, format json) execute ${LOOKUP_STATEMENT}('{${orgId}}', '{${ref}}', '{NULL}', '{NULL}', '{t}', '{NULL}', '{NULL}', '{NULL}', '{NULL}', '{NULL}')`,
    );
    type Node = { 'Node Type': string; 'Relation Name'?: string; Plans?: Node[] };
    const nodes = (n: Node): Node[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
    return nodes((res.rows[0]['QUERY PLAN'] as { Plan: Node }[])[0]!.Plan)
      .filter((n) => n['Relation Name'] === 'employees')
      .map((n) => n['Node Type']);
  } finally {
    client.release();
  }
}

describe("the read's prepared statement: a cached plan does not outlive a connection's lifetime", () => {
  it("hrx's pools replace their connections after PG_POOL_CONNECTION_LIFETIME_S", () => {
    const opts = pgPoolOptions('postgresql://x@127.0.0.1/x', 5, REQUEST_DB_TIMEOUTS, {});
    expect(PG_POOL_CONNECTION_LIFETIME_S).toBeGreaterThan(0);
    expect(PG_POOL_CONNECTION_LIFETIME_S).toBeLessThanOrEqual(600);
    expect(opts.maxLifetimeSeconds).toBe(PG_POOL_CONNECTION_LIFETIME_S);
  });

  it('a plan made on the empty table is gone once the connection is replaced: the grown table is read by its index', async () => {
    // hrx's pool options with a lifetime of 1 s, so the test need not wait five minutes; one connection.
    const pool = new pg.Pool({
      ...pgPoolOptions(app.ctx.db.url, 1, REQUEST_DB_TIMEOUTS, { options: `-c search_path="${app.ctx.db.schema}"` }),
      maxLifetimeSeconds: 1,
    });
    try {
      const store = createEmployeeStore(pool, app.ctx.cipher);
      const read = (ref: string) => store.findEmployee({ clientOrgId: orgId, employeeRef: ref, consentFor: null, form: 'masked' });
      // Prepared and run on the empty table, past PostgreSQL's five custom plans.
      for (let i = 0; i < 8; i++) expect(await read(`EMP${i}`)).toBeNull();
      const backend = async () => (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const preparedOn = await backend();
      await dbQuery(
        app,
        `insert into employees (id, org_id, employee_id, record_enc, masked_enc, updated_at)
         select gen_random_uuid(), $1, 'EMP' || i, repeat('r', 1500), repeat('m', 1500), now() from generate_series(1, 20000) i`,
        [orgId],
      );
      await new Promise((r) => setTimeout(r, 1_500));
      // The first read after the lifetime still runs on the old connection, which is closed when released.
      expect((await read('EMP19999'))?.employeeId).toBe('EMP19999');
      for (let i = 0; i < 8; i++) expect((await read(`EMP${i + 1}`))?.employeeId).toBe(`EMP${i + 1}`);
      // Another server connection (whatever else may have reset the old one's plan cache meanwhile).
      expect(await backend()).not.toBe(preparedOn);
      const scans = await employeeScans(pool, 'EMP19999');
      expect(scans.length).toBeGreaterThan(0);
      expect(scans.filter((s) => s === 'Seq Scan')).toEqual([]);
    } finally {
      await pool.end();
    }
  }, 60_000);
});
