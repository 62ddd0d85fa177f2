/**
 * A page's employee-id and tombstone lookups on an org PostgreSQL has no statistics for yet (docs/sync.md
 * "Memory and throughput"): a first sync grows the org from nothing, and autovacuum's ANALYZE
 * comes later. The lookup must probe the `(org_id, employee_id)` index once per id and never read
 * the rest of the org: `employee_id = any(<500 ids>)` was planned as "every row of the org, then
 * filter", so each page read the whole org. The same holds for the page's tombstone lookup (the
 * erasure check) over the org's tombstones, the update webhook's row locks and an incremental
 * sync's removal of the employees the HRMS reported gone. Checked on the plan PostgreSQL runs (EXPLAIN
 * ANALYZE): the rows it visits, not a time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOMBSTONE_HASHES_SQL } from '../../../src/employees/erasure-store';
import { EMPLOYEE_IDS_SQL, REMOVE_REPORTED_SQL } from '../../../src/employees/store';
import { LOCK_EMPLOYEES_SQL } from '../../../src/employees/write-store';
import { MAX_UPDATE_BATCH } from '../../../src/employees/routes';
import { startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { dbQuery, storesOf, testPool } from '../../support/db';

let app: TestApp;
let orgId: number;
const ORG_SIZE = 20_000;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  orgId = (await f.client(app.ctx, 'Growing Employer')).org.id;
  // As during a first sync: rows written, never analyzed (this test's own schema, so turning
  // autovacuum off for its table touches nobody else).
  await dbQuery(app, `alter table employees set (autovacuum_enabled = false)`);
  await dbQuery(app, `alter table employee_tombstones set (autovacuum_enabled = false)`);
  await dbQuery(app, `insert into employee_tombstones (org_id, id_hash) select $1, 'hash-' || i from generate_series(1, $2::int) i`, [orgId, ORG_SIZE]);
  await dbQuery(
    app,
    `insert into employees (id, org_id, employee_id, record_enc, masked_enc, updated_at)
     select gen_random_uuid(), $1, 'EMP' || i, repeat('r', 1500), repeat('m', 1500), now() from generate_series(1, $2::int) i`,
    [orgId, ORG_SIZE],
  );
}, 120_000);
afterAll(async () => app?.stop());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** The plan PostgreSQL ran for `sql` with `values`, as its nodes. */
async function executedPlan(sql: string, values: unknown[]): Promise<PlanNode[]> {
  const res = await dbQuery(app, `explain (analyze, format json) ${sql}`, values);
  return nodes((res.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
}

/** Rows of `table` the plan's nodes produced, and those they read and threw away. */
function rowsTouched(plan: PlanNode[], table = 'employees'): { produced: number; discarded: number } {
  const onEmployees = plan.filter((n) => n['Relation Name'] === table);
  return {
    produced: onEmployees.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0),
    discarded: onEmployees.reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0), 0),
  };
}

describe('employee-id lookup of a page, on an org without statistics', () => {
  it('the table has no statistics (the situation the lookup must survive)', async () => {
    const stats = await dbQuery(
      app,
      `select count(*)::int as n from pg_stats where schemaname = current_schema() and tablename in ('employees', 'employee_tombstones')`,
    );
    expect(stats.rows[0].n).toBe(0);
  });

  it('a page of 500 new employees: no row of the org is read', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `NEW${i + 1}`);
    const plan = await executedPlan(EMPLOYEE_IDS_SQL, [orgId, ids]);
    expect(rowsTouched(plan)).toEqual({ produced: 0, discarded: 0 });
  });

  it('a page of 500 stored employees: exactly their 500 rows are read', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `EMP${ORG_SIZE - i}`);
    const plan = await executedPlan(EMPLOYEE_IDS_SQL, [orgId, ids]);
    expect(rowsTouched(plan)).toEqual({ produced: 500, discarded: 0 });
  });

  it('the store answers with the stored ids of those that exist, none for the rest', async () => {
    const stored = await dbQuery(app, `select employee_id, id from employees where org_id = $1 and employee_id in ('EMP1', 'EMP7')`, [orgId]);
    const expected = new Map(stored.rows.map((r: { employee_id: string; id: string }) => [r.employee_id, r.id]));
    const ids = await storesOf(app).employees.idsFor(orgId, ['EMP1', 'EMP7', 'NOPE', randomUUID()]);
    expect(ids).toEqual(expected);
    expect(ids.size).toBe(2);
  });
});

describe('tombstone lookup of a page (the erasure check), on an org without statistics', () => {
  it('500 hashes, 3 of them erased: the 3 are found, probing one key per hash, none of the org’s other tombstones read', async () => {
    const hashes = [...Array.from({ length: 497 }, (_, i) => `other-${i}`), 'hash-1', 'hash-2', `hash-${ORG_SIZE}`];
    const plan = await executedPlan(TOMBSTONE_HASHES_SQL, [orgId, hashes]);
    expect(plan[0]!['Actual Rows']).toBe(3);
    // Rows per loop are averaged (3 found over 500 probes shows as 0): a scan of the org's
    // tombstones shows as all 20,000 of them, produced or discarded.
    const touched = rowsTouched(plan, 'employee_tombstones');
    expect(touched.discarded).toBe(0);
    expect(touched.produced).toBeLessThanOrEqual(hashes.length);
    expect(plan.some((n) => n['Relation Name'] === 'employee_tombstones' && n['Actual Loops'] === hashes.length)).toBe(true);
  });
});

describe('row locks of an update webhook batch, on an org without statistics', () => {
  it(`a batch of ${MAX_UPDATE_BATCH} ids, half of them stored: exactly those rows are read (and locked), in employee_id order`, async () => {
    const ids = Array.from({ length: MAX_UPDATE_BATCH }, (_, i) => (i % 2 === 0 ? `EMP${i + 1}` : `NEW${i + 1}`));
    const plan = await executedPlan(LOCK_EMPLOYEES_SQL, [orgId, ids]);
    expect(plan[0]!['Actual Rows']).toBe(MAX_UPDATE_BATCH / 2);
    // Rows per loop are averaged (500 found over 1,000 probes): a scan of the org shows as its
    // 20,000 rows, produced or discarded.
    const touched = rowsTouched(plan);
    expect(touched.discarded).toBe(0);
    expect(touched.produced).toBeLessThanOrEqual(MAX_UPDATE_BATCH);
    const rows = (await dbQuery(app, LOCK_EMPLOYEES_SQL, [orgId, [...ids, 'EMP1']])).rows.map((r: { employee_id: string }) => r.employee_id);
    expect(rows).toHaveLength(MAX_UPDATE_BATCH / 2);
    expect(rows).toEqual([...rows].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });
});

describe('removal of the employees an HRMS reported gone (incremental sync), on an org without statistics', () => {
  it('2,000 ids reported gone, 1,000 of them stored: exactly those rows are read and removed', async () => {
    const ids = Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? `EMP${15_001 + i}` : `GONE${i}`));
    const mark = await storesOf(app).employees.writeMark();
    const client = await testPool(app).connect();
    try {
      await client.query('begin');
      const res = await client.query(`explain (analyze, format json) ${REMOVE_REPORTED_SQL}`, [orgId, ids, mark]);
      const plan = nodes((res.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
      expect(plan[0]!['Actual Rows']).toBe(1000);
      // A scan of the org shows as its 20,000 rows, produced or discarded; the probes and the
      // updated rows' own index scan produce 1,000 each.
      const touched = rowsTouched(plan);
      expect(touched.discarded).toBe(0);
      expect(touched.produced).toBeLessThanOrEqual(2000);
      const removed = await client.query(`select count(*)::int as n from employees where org_id = $1 and removed_at is not null`, [orgId]);
      expect(removed.rows[0].n).toBe(1000);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it('the store removes those stored and not written since the mark, answering them in employeeId order', async () => {
    const mark = await storesOf(app).employees.writeMark();
    // Written after the mark (as by the update webhook): it stays.
    await dbQuery(app, `update employees set write_seq = nextval('employee_write_seq') where org_id = $1 and employee_id = 'EMP14003'`, [orgId]);
    const gone = await storesOf(app).employees.removeReported(orgId, ['EMP14002', 'EMP14001', 'EMP14003', 'GONE', 'EMP14001'], mark);
    expect(gone.map((g) => g.employeeId)).toEqual(['EMP14001', 'EMP14002']);
    const rows = await dbQuery(
      app,
      `select employee_id, removed_at is not null as removed from employees where org_id = $1 and employee_id = any($2) order by 1`,
      [orgId, ['EMP14001', 'EMP14002', 'EMP14003', 'EMP14004']],
    );
    expect(rows.rows).toEqual([
      { employee_id: 'EMP14001', removed: true },
      { employee_id: 'EMP14002', removed: true },
      { employee_id: 'EMP14003', removed: false },
      { employee_id: 'EMP14004', removed: false },
    ]);
    // Asked again: nothing left to remove.
    expect(await storesOf(app).employees.removeReported(orgId, ['EMP14001', 'EMP14002'], mark)).toEqual([]);
  });
});
