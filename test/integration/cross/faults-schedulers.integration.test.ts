/**
 * Job schedulers survive Redis loss (docs/operations.md "Redis or PostgreSQL down; shutdown"): a worker (`startProcess`, as `hrx worker`
 * runs it) over a private PostgreSQL and redis-server; Redis is killed and started EMPTY, and
 * every scheduler (each client org's sync scheduler at its approved frequency, the events relay,
 * the consent-expiry scan on the housekeeping queue, the retention purge on the retention queue)
 * is back within 60 s, recreated from PostgreSQL and the configuration. An org whose connection
 * was terminated while Redis was away gets none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs } from '../../../jobs/index';
import { startProcess, type Running } from '../../../src/cli/run';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { FREQUENCY_MS } from '../../../src/sync/service';
import * as f from '../../support/factories';
import { waitFor } from '../../support/harness';
import { privateEnv } from '../../support/private-app';
import { startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../../support/private-services';
import { dbQuery, storesOf } from '../../support/db';

let pgs: PrivatePostgres;
let redis: PrivateRedis;
let worker: Running;

beforeAll(async () => {
  [pgs, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  const config = loadConfig(privateEnv(pgs.url, redis.url));
  worker = await startProcess(config, createLogger(config.LOG_LEVEL), { api: false, worker: true, migrateFirst: true, startJobs });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await redis?.stop();
  await pgs?.destroy();
});

/** Every scheduler in Redis, of every queue: id → every (ms). */
async function schedulers(): Promise<Record<string, number>> {
  const { syncQueue, eventsQueue, housekeepingQueue, retentionQueue } = worker.ctx;
  const all = (await Promise.all([syncQueue, eventsQueue, housekeepingQueue, retentionQueue].map((q) => q.queue.getJobSchedulers(0, -1)))).flat();
  return Object.fromEntries(all.map((s) => [s.key, Number(s.every)]).sort());
}

describe('schedulers after Redis restarts empty', () => {
  it('recreates every sync, housekeeping and retention scheduler within 60 s', async () => {
    const { ctx } = worker;
    const v = await f.vendor(ctx);
    const orgs: { id: number; uuid: string; freq: 'hourly' | 'daily' | 'weekly' }[] = [];
    for (const freq of ['hourly', 'daily', 'weekly'] as const) {
      const c = await f.client(ctx);
      await storesOf(ctx).hrmsConfigs.save({
        orgId: c.org.id,
        hrmsId: 'reference',
        apiConfigs: [],
        credentials: { client_id: 'x', client_secret: 'y', api_key: '', grant_type: 'client_credentials', hrms_host: 'http://127.0.0.1:9' },
      });
      await f.connection(ctx, v.org.uuid, c.org.uuid, { syncFrequency: freq });
      orgs.push({ id: c.org.id, uuid: c.org.uuid, freq });
    }
    const expected: Record<string, number> = {
      'credential-sweep': 15_000,
      'events-consent-scan': ctx.config.HRX_EVENTS_CONSENT_SCAN_MS,
      'events-relay': ctx.config.HRX_EVENTS_RELAY_MS,
      'retention-purge': ctx.config.HRX_RETENTION_PURGE_MS,
      ...Object.fromEntries(orgs.map((o) => [`sync-org-${o.id}`, FREQUENCY_MS[o.freq]!])),
    };
    await waitFor(async () => JSON.stringify(await schedulers()) === JSON.stringify(Object.fromEntries(Object.entries(expected).sort())), 10_000);

    await redis.stop();
    // While Redis is away, the weekly org's connection is terminated in PostgreSQL (as the
    // API would: the scheduler removal it attempts cannot reach Redis).
    const gone = orgs[2]!;
    await dbQuery(ctx, `update connections set status = 'terminated' where client_org_id = $1`, [gone.id]);
    await redis.start();
    const t = Date.now();
    const { [`sync-org-${gone.id}`]: _, ...want } = expected;
    const wanted = JSON.stringify(Object.fromEntries(Object.entries(want).sort()));
    await waitFor(async () => JSON.stringify(await schedulers()) === wanted, 60_000, 250);
    console.log(`[faults-schedulers] ${Object.keys(want).length} schedulers back ${Date.now() - t} ms after Redis restarted empty`);
    expect(Date.now() - t).toBeLessThan(60_000);
  }, 120_000);
});
