/**
 * The audit writer's group commit: every entry committed before its write resolves, many entries
 * per statement under concurrency, and a failing batch fails its own writes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditWriter } from '../../../src/audit/writer';
import { startTestApp, type TestApp } from '../../support/harness';
import { dbQuery, testPool } from '../../support/db';

describe('audit writer', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  const count = async (ids: string[]) => {
    const r = await dbQuery(app, `select count(*)::int as n from audit_log where request_id = any($1::uuid[])`, [ids]);
    return r.rows[0].n as number;
  };

  it('commits each entry before its write resolves, batching concurrent writes', async () => {
    // A counting pass-through to the real pool: how many statements the writer sends.
    let statements = 0;
    const pool = testPool(app);
    const writer = createAuditWriter(
      {
        query: ((...args: Parameters<typeof pool.query>) => {
          statements++;
          return pool.query(...args);
        }) as typeof pool.query,
      },
      { maxBatch: 50 },
    );
    const ids = Array.from({ length: 300 }, () => randomUUID());
    await Promise.all(
      ids.map((id, i) =>
        writer
          .write({
            requestId: id,
            actorOrgId: 1,
            action: 'employee.read',
            clientOrgId: 2,
            connectionId: null,
            employeeId: `E${i}`,
            dataPoints: i % 2 ? ['name'] : null,
          })
          .then(async () => expect(await count([id])).toBe(1)),
      ),
    );
    expect(await count(ids)).toBe(300);
    // 300 concurrent entries in batches of at most 50: at least 6 statements, far fewer than 300.
    expect(statements).toBeGreaterThanOrEqual(6);
    expect(statements).toBeLessThan(30);
    const rows = await dbQuery(app, `select data_points from audit_log where request_id = $1 or request_id = $2 order by employee_id`, [ids[0], ids[1]]);
    expect(rows.rows.map((r) => r.data_points)).toEqual([['*'], ['name']]);
  });

  it('keeps data point lists intact, whatever characters they hold', async () => {
    const writer = createAuditWriter(testPool(app));
    const id = randomUUID();
    const points = ['name', 'x"y', 'z\\w', 'a,b', '{c}', ' '];
    await writer.write({ requestId: id, actorOrgId: 1, action: 'x', clientOrgId: null, connectionId: null, employeeId: null, dataPoints: points });
    const r = await dbQuery(app, `select data_points from audit_log where request_id = $1`, [id]);
    expect(r.rows[0].data_points).toEqual(points);
  });

  it('rejects the writes of a batch that fails, and recovers for the next', async () => {
    const writer = createAuditWriter(testPool(app));
    const bad = writer.write({
      requestId: 'not-a-uuid',
      actorOrgId: 1,
      action: 'x',
      clientOrgId: null,
      connectionId: null,
      employeeId: null,
      dataPoints: null,
    });
    await expect(bad).rejects.toThrow();
    const id = randomUUID();
    await writer.write({ requestId: id, actorOrgId: 1, action: 'x', clientOrgId: null, connectionId: null, employeeId: null, dataPoints: null });
    expect(await count([id])).toBe(1);
  });
});
