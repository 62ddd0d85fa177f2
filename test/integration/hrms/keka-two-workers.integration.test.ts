/**
 * Two worker processes syncing two orgs of one Keka tenant stay within Keka's 50 requests a
 * minute together (docs/behaviour.md "Live reads and the HRMS budget": one request budget per HRMS tenant, shared through
 * Redis). This test process syncs one org; an `hrx worker` child process syncs the other from
 * the queue. Pages of 20 make each sync about 26 requests, so the two together need more than one
 * minute's allowance: the budget has to make one of them wait (about a minute).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECT_SIMS } from '../../../src/hrms/sim/dialects';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import * as f from '../../support/factories';
import { HRX_BIN } from '../../support/cli';
import { dbQuery, storesOf } from '../../support/db';
import { call, startTestApp, waitFor, type TestApp } from '../../support/harness';

let app: TestApp;
let sim: DialectSim;
let child: ChildProcess | undefined;
let childLog = '';
beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '20' } });
  // No pay months: this measures the employee sync's share of the budget; the backfill has its own suites.
  sim = await DIALECT_SIMS.get('keka')!({ employees: 500, seed: 'keka-two-workers', variants: { payHistoryMonths: 0 } });
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await sim?.close();
  await app?.stop();
});

describe('two workers, two orgs, one Keka tenant', () => {
  it('stay within 50 requests in any minute together, never throttled, and both sync everyone', async () => {
    const v = await f.vendor(app.ctx);
    const [a, b] = [await f.client(app.ctx), await f.client(app.ctx)];
    for (const c of [a, b]) await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    // Each first approval queued a sync (docs/behaviour.md "Sync"). Removed before the child worker starts: a
    // sync of org A there would make this process's own run of org A `skipped` (the org's lock).
    await app.ctx.syncQueue.queue.drain(true);
    child = spawn(process.execPath, [HRX_BIN, 'worker'], { env: { ...process.env, ...app.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => {
      childLog += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      childLog += d.toString();
    });
    await waitFor(
      async () => {
        if (child!.exitCode !== null) throw new Error(`worker exited:\n${childLog}`);
        return (await app.ctx.syncQueue.queue.getWorkersCount()) > 0;
      },
      90_000,
      200,
    );

    const setup = sim.setup();
    // Org A: stored directly, synced by this process. Org B: setup-config queues its sync for the child worker.
    await storesOf(app).hrmsConfigs.save({ orgId: a.org.id, hrmsId: 'keka', credentials: setup.access_credentials, apiConfigs: setup.api_configs });
    sim.resetStats();
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: b.org.appKey, client_secret: b.appSecret, ...setup }),
    });
    expect(res.status).toBe(200);
    const started = Date.now();
    expect(await app.ctx.services.sync.run(a.org.id, 'test', 'two-workers-a')).toMatchObject({ status: 'succeeded', employees: 500 });
    const childRun = await waitFor(
      async () => {
        if (child!.exitCode !== null) throw new Error(`worker exited:\n${childLog}`);
        const { rows } = await dbQuery(app, `select status, employees_seen from sync_runs where org_id = $1 and status <> 'running'`, [b.org.id]);
        return rows[0];
      },
      180_000,
      250,
    );
    expect(childRun).toEqual({ status: 'succeeded', employees_seen: 500 });

    const stats = sim.stats();
    // More than one minute's allowance was needed (verification, two syncs), and waited for.
    expect(stats.requests).toBeGreaterThan(50);
    expect(Date.now() - started).toBeGreaterThan(50_000);
    expect(stats.maxInWindow).toBeLessThanOrEqual(50);
    expect(stats).toMatchObject({ throttled: 0, authFailures: 0 });
  }, 240_000);
});
