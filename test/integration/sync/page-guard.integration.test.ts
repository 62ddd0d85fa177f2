/**
 * The guard of a sync's page write when the next page is asked for before the current one is
 * written (docs/sync.md "Memory and throughput"): every page's mark is taken before the previous
 * page is written, so the previous page's rows are written after the mark. They are the run's own
 * writes: an employee listed on two consecutive pages takes the later listing; a row the update
 * webhook writes after both keeps the webhook's values. The pages are written straight through
 * the store, in the order the sync writes them (a real PostgreSQL, the real webhook).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEmployee } from '../../../src/employees/codec';
import { normalizeRecord } from '../../../src/domain/record';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { dbQuery, storesOf } from '../../support/db';

describe('sync page guard: the previous page is the run own write', () => {
  let app: TestApp;
  let c: Awaited<ReturnType<typeof f.client>>;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    c = await f.client(app.ctx);
  });
  afterAll(async () => app?.stop());

  const name = async (employeeId: string): Promise<string> => {
    const x = (await dbQuery(app, `select * from employees where org_id = $1 and employee_id = $2`, [c.org.id, employeeId])).rows[0];
    return decodeEmployee({ id: x.id, employeeId: x.employee_id, recordEnc: x.record_enc }, c.org.id, app.ctx.cipher).name;
  };
  const page = (names: Record<string, string>) => Object.entries(names).map(([employeeId, n]) => normalizeRecord({ employeeId, name: n }, randomUUID()));

  it('a later page listing the same employee wins; a webhook write after both is kept', async () => {
    const store = storesOf(app).employees;
    const runId = randomUUID();
    // Both marks are taken before page 1 is written (page 2 was asked for while page 1 was written).
    const mark1 = await store.writeMark();
    const mark2 = await store.writeMark();
    const w1 = await store.upsertPage(c.org.id, runId, page({ G1: 'Page One', G2: 'Page One' }), { writtenUpTo: mark1 });
    expect(w1).toMatchObject({ written: 2, employeeIds: ['G1', 'G2'] });
    const w2 = await store.upsertPage(c.org.id, runId, page({ G2: 'Page Two', G3: 'Page Two' }), { writtenUpTo: mark2, previous: w1 });
    expect(w2.written).toBe(2);
    expect(await name('G2')).toBe('Page Two');

    // The webhook writes G3 after page 3's mark; page 3 lists G3 again: the webhook's value stays.
    const mark3 = await store.writeMark();
    const res = await call(`${app.url}/api/webhook/v1/employee/update/`, {
      method: 'POST',
      headers: { authorization: f.appBasic(c), 'content-type': 'application/json' },
      body: JSON.stringify({ employeeId: 'G3', name: 'From Webhook' }),
    });
    expect(res.status).toBe(200);
    await store.upsertPage(c.org.id, runId, page({ G3: 'Page Three' }), { writtenUpTo: mark3, previous: w2 });
    expect(await name('G3')).toBe('From Webhook');
    // Every listed employee counts as seen by the run.
    const seen = (await dbQuery(app, `select count(*)::int as n from employees where org_id = $1 and last_sync_run_id = $2`, [c.org.id, runId])).rows[0].n;
    expect(seen).toBe(3);
  });
});
