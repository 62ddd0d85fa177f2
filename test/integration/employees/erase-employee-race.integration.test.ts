/**
 * Erasure against a running sync of the same org (docs/erasure-and-retention.md "Erasing an employee"; employees/erasure-store.ts): a
 * sync fetches a page from the HRMS and then writes it, and an erasure landing in between must not
 * be undone by that write. Each page is written under the org's erasure lock taken shared, after
 * which the page is filtered against the tombstones; an erasure takes the lock exclusive. Shown
 * here against the reference HRMS simulator:
 * - the erasure lands while the page holding the employee is at the HRMS (slow simulator);
 * - an erasure committing while the sync's page write waits for the lock (the page, fetched
 *   before the commit, sees the tombstone once it has the lock);
 * - an erasure arriving while a page write holds the lock waits for it, then deletes the row;
 * - erasures fired at random moments of back-to-back syncs: none comes back.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tombstoneHash, tombstoneKeys } from '../../../src/crypto/tombstone';
import { deriveKey } from '../../../src/infra';
import * as f from '../../support/factories';
import { dbQuery, testPool } from '../../support/db';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const N = 40;
const creds = { clientId: 'erase-race-client', clientSecret: 'erase-race-secret' };
const LOCK = `select pg_advisory_xact_lock${'$MODE'}(hashtext(current_schema() || ':hrx:employee-erasure'), $1)`;

describe('erasure vs a running sync of the org', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  let c: Awaited<ReturnType<typeof f.client>>;

  beforeAll(async () => {
    app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '5' } });
    sim = await startSim({ employees: N, seed: 'erase-race', ...creds });
    const v = await f.vendor(app.ctx);
    c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(f.setupBody(c, sim, creds)),
    });
    expect(res.status).toBe(200);
    expect(await sync()).toMatchObject({ status: 'succeeded', employees: N });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  const sync = () => app.ctx.services.sync.run(c.org.id, 'test', `race-${randomUUID()}`);
  const erase = (employeeId: string) =>
    call(`${app.url}/api/webhook/v1/employee/erase/`, {
      method: 'POST',
      headers: { authorization: f.appBasic(c), 'content-type': 'application/json' },
      body: JSON.stringify({ employee_id: employeeId }),
    });
  const present = async (ids: string[]): Promise<string[]> =>
    (await dbQuery(app, `select employee_id from employees where org_id = $1 and employee_id = any($2::text[]) order by 1`, [c.org.id, ids])).rows.map(
      (r) => r.employee_id as string,
    );
  const count = async (): Promise<number> => (await dbQuery(app, `select count(*)::int as n from employees where org_id = $1`, [c.org.id])).rows[0].n;
  /** Runs `work` in a transaction of the test's own that holds the org's erasure lock (`mode` '' exclusive, '_shared'). */
  async function holdingLock(mode: '' | '_shared', work: (q: (sql: string, values?: unknown[]) => Promise<unknown>) => Promise<void>): Promise<void> {
    const client = await testPool(app).connect();
    try {
      await client.query('begin');
      await client.query(LOCK.replace('$MODE', mode), [c.org.id]);
      await work((sql, values) => client.query(sql, values));
      await client.query('commit');
    } finally {
      client.release();
    }
  }

  it('the page holding the employee is at the HRMS when the erasure commits: the page skips it', async () => {
    sim.control.set({ latencyMs: 800 });
    try {
      const running = sync();
      // Page 1 (EMP00001-05) is in flight at the HRMS.
      await new Promise((r) => setTimeout(r, 300));
      expect((await erase('EMP00003')).status).toBe(200);
      expect(await running).toMatchObject({ status: 'succeeded', employees: N - 1, removed: 0 });
    } finally {
      sim.control.set({ latencyMs: 0 });
    }
    expect(await present(['EMP00003'])).toEqual([]);
    expect(await count()).toBe(N - 1);
  });

  it('an erasure committing while a page write waits for the lock: the page sees its tombstone', async () => {
    // An erasure of EMP00004 in progress (as the erase service does it): lock, delete, tombstone.
    const key = tombstoneKeys([deriveKey(Buffer.from(app.env.HRX_MASTER_KEY!, 'base64'), 'employee-tombstone')])[0]!;
    let running: ReturnType<typeof sync> | undefined;
    let finished = false;
    await holdingLock('', async (q) => {
      await q(`delete from employees where org_id = $1 and employee_id = 'EMP00004'`, [c.org.id]);
      await q(`insert into employee_tombstones (org_id, id_hash) values ($1, $2)`, [c.org.id, tombstoneHash(key, c.org.id, 'EMP00004')]);
      // The sync's first page (EMP00001-05, EMP00004 among them) is fetched, then waits for this lock.
      running = sync().finally(() => {
        finished = true;
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(finished).toBe(false);
    });
    expect(await running!).toMatchObject({ status: 'succeeded', employees: N - 2, removed: 0 });
    expect(await present(['EMP00003', 'EMP00004'])).toEqual([]);
  });

  it('an erasure arriving while a page write holds the lock waits for it, then deletes the row', async () => {
    let answered = false;
    let pending: Promise<Awaited<ReturnType<typeof erase>>> | undefined;
    await holdingLock('_shared', async () => {
      // A page write between its tombstone check and its upsert (no row of it locked yet): only
      // the erasure lock keeps the erasure from committing in between.
      pending = erase('EMP00012').then((r) => {
        answered = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 400));
      expect(answered).toBe(false);
    });
    expect((await pending!).status).toBe(200);
    expect(await present(['EMP00012'])).toEqual([]);
    expect(await sync()).toMatchObject({ status: 'succeeded', employees: N - 3 });
  });

  it('erasures at random moments of back-to-back syncs: none comes back', async () => {
    const victims = ['EMP00002', 'EMP00011', 'EMP00018', 'EMP00024', 'EMP00031', 'EMP00039'];
    sim.control.set({ latencyMs: 40 });
    try {
      const syncs = (async () => {
        for (let i = 0; i < 3; i++) expect((await sync()).status).toBe('succeeded');
      })();
      for (const id of victims) {
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 250)));
        expect((await erase(id)).status).toBe(200);
      }
      await syncs;
    } finally {
      sim.control.set({ latencyMs: 0 });
    }
    expect(await sync()).toMatchObject({ status: 'succeeded', employees: N - 3 - victims.length, removed: 0 });
    expect(await present(victims)).toEqual([]);
    expect(await count()).toBe(N - 3 - victims.length);
    expect((await dbQuery(app, `select count(*)::int as n from employee_tombstones where org_id = $1`, [c.org.id])).rows[0].n).toBe(3 + victims.length);
  });
});
