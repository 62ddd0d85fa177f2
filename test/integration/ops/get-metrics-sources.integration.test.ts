/**
 * `GET /metrics` (src/ops, docs/operations.md "Metrics: `GET /metrics`"), the part read at scrape time: sync runs by outcome and
 * duration, employees synced and event deliveries by outcome (counted by the workers in Redis,
 * src/ops/counters.ts), queue depths (BullMQ) and pending deliveries (PostgreSQL). The syncs and
 * deliveries are real (the sync worker against the reference simulator, the events worker
 * against a real receiver); with Redis gone (a private redis-server), the scrape still answers
 * and says which source it could not read.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCompletedEvent } from '../../../src/events/catalog';
import * as f from '../../support/factories';
import { startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';
import { usePrivateRedisApp } from '../../support/setups';
import { startReceiver, type Receiver } from '../../support/receiver';
import { parseExposition, sampleValue } from '../../support/prom';

async function scrape(a: { url: string; env: Record<string, string> }) {
  const res = await fetch(`${a.url}/metrics`, { headers: { authorization: `Bearer ${a.env.HRX_ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

describe('GET /metrics: syncs and queues', () => {
  let app: TestApp;
  let sim: Awaited<ReturnType<typeof startSim>>;
  const creds = { clientId: 'metrics-client', clientSecret: `metrics-secret-${randomUUID()}` };

  beforeAll(async () => {
    app = await startTestApp();
    sim = await startSim({ employees: 25, ...creds });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.stop();
  });

  /** A client org connected to a vendor, its HRMS at the simulator with `secret`; synced by its first approval (docs/behaviour.md "Sync"). */
  async function syncedOrg(secret: string): Promise<number> {
    const v = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    await f.hrmsAt(app.ctx, c.org.id, sim, { clientId: creds.clientId, clientSecret: secret });
    await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    await waitFor(async () => (await dbQuery(app, `select 1 from sync_runs where org_id = $1 and status <> 'running'`, [c.org.id])).rowCount, 60_000);
    return c.org.id;
  }

  it('reports sync runs by outcome with their durations, and the employees synced', async () => {
    const before = await scrape(app);
    expect(sampleValue(before, 'hrx_sync_runs_total', { outcome: 'succeeded' })).toBe(0);
    expect(sampleValue(before, 'hrx_sync_runs_total', { outcome: 'failed' })).toBe(0);
    await syncedOrg(creds.clientSecret);
    await syncedOrg('a-wrong-secret');
    const rows = (await dbQuery(app, `select status, extract(epoch from finished_at - started_at)::float8 as d from sync_runs order by status desc`)).rows;
    expect(rows.map((r) => r.status)).toEqual(['succeeded', 'failed']);

    const s = await scrape(app);
    expect(sampleValue(s, 'hrx_sync_runs_total', { outcome: 'succeeded' })).toBe(1);
    expect(sampleValue(s, 'hrx_sync_runs_total', { outcome: 'failed' })).toBe(1);
    expect(sampleValue(s, 'hrx_sync_employees_total')).toBe(25);
    const h = 'hrx_sync_run_duration_seconds';
    expect(sampleValue(s, `${h}_count`, { outcome: 'succeeded' })).toBe(1);
    expect(sampleValue(s, `${h}_bucket`, { outcome: 'succeeded', le: '+Inf' })).toBe(1);
    expect(sampleValue(s, `${h}_sum`, { outcome: 'succeeded' })).toBeCloseTo(rows[0].d, 3);
    // Cumulative buckets: 0 below the run's duration, 1 from the first bound at or above it.
    const bounds = s.filter((x) => x.name === `${h}_bucket` && x.labels.outcome === 'succeeded' && x.labels.le !== '+Inf');
    expect(bounds.length).toBe(11);
    for (const b of bounds) expect(b.value).toBe(Number(b.labels.le) >= rows[0].d ? 1 : 0);
  }, 90_000);

  it('counts each run in the buckets whose bound is at or above its duration, a bound itself included', async () => {
    const real = (await dbQuery(app, `select status, extract(epoch from finished_at - started_at)::float8 as d from sync_runs`)).rows as {
      status: string;
      d: number;
    }[];
    // Failed runs of exactly 5 s, 0.5 s and 20,000 s (above every bound), counted as the sync service does.
    const more = [5, 0.5, 20_000].map((d) => ({ status: 'failed', d }));
    for (const m of more) app.ctx.ops.counters.syncRun({ outcome: 'failed', seconds: m.d, employees: 0, removed: 0 });
    await app.ctx.requestRedis.ping();
    const rows = [...real, ...more];
    const s = await scrape(app);
    const h = 'hrx_sync_run_duration_seconds';
    for (const outcome of ['succeeded', 'failed']) {
      const mine = rows.filter((r) => r.status === outcome);
      const bounds = s.filter((x) => x.name === `${h}_bucket` && x.labels.outcome === outcome && x.labels.le !== '+Inf');
      expect(bounds.map((b) => b.labels.le)).toStrictEqual(['1', '5', '15', '30', '60', '120', '300', '600', '1800', '3600', '10800']);
      for (const b of bounds)
        expect({ le: b.labels.le, n: b.value }).toStrictEqual({ le: b.labels.le, n: mine.filter((r) => r.d <= Number(b.labels.le)).length });
      expect(sampleValue(s, `${h}_bucket`, { outcome, le: '+Inf' })).toBe(mine.length);
      expect(sampleValue(s, `${h}_count`, { outcome })).toBe(mine.length);
      expect(sampleValue(s, `${h}_sum`, { outcome })).toBeCloseTo(
        mine.reduce((a, r) => a + r.d, 0),
        3,
      );
    }
    expect(sampleValue(s, 'hrx_sync_runs_total', { outcome: 'failed' })).toBe(4);
  });

  it('reports the depth of every queue by state', async () => {
    // Two deliveries queued with no events worker running: they wait.
    await app.ctx.eventsQueue.enqueue([randomUUID(), randomUUID()]);
    const s = await scrape(app);
    expect(sampleValue(s, 'hrx_queue_jobs', { queue: 'events', state: 'waiting' })).toBe(2);
    // The two syncs above: one completed job, one failed (wrong credentials).
    expect(sampleValue(s, 'hrx_queue_jobs', { queue: 'sync', state: 'completed' })).toBe(1);
    expect(sampleValue(s, 'hrx_queue_jobs', { queue: 'sync', state: 'failed' })).toBe(1);
    expect(sampleValue(s, 'hrx_queue_jobs', { queue: 'housekeeping', state: 'waiting' })).toBe(0);
    expect(sampleValue(s, 'hrx_queue_jobs', { queue: 'retention', state: 'failed' })).toBe(0);
    expect(sampleValue(s, 'hrx_metrics_source_up', { source: 'redis' })).toBe(1);
  });
});

describe('GET /metrics: event deliveries', () => {
  let app: TestApp;
  let rx: Receiver;

  beforeAll(async () => {
    // Two attempts at most, 100 ms apart: a receiver that keeps failing ends `failed` quickly.
    app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_EVENTS_RETRY_SCHEDULE_MS: '100' } });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await app?.stop();
  });

  /** A vendor with an approved connection and one endpoint at `path`; `emit` writes one sync.completed for it. */
  async function subscribed(path: string) {
    const v = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    const ep = await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url(path), events: ['sync.completed'] });
    const emit = () =>
      app.ctx.services.events.emit(
        syncCompletedEvent({
          clientOrgId: c.org.id,
          runId: randomUUID(),
          startedAt: new Date(),
          finishedAt: new Date(),
          employeesSeen: 1,
          employeesRemoved: 0,
        }),
      );
    return { ep, emit };
  }

  it('reports deliveries by outcome (delivered, failed, cancelled) and the pending ones', async () => {
    // Before any worker runs: two deliveries pending, then one endpoint removed (its delivery cancelled).
    const gone = await subscribed('/gone');
    await gone.emit();
    const ok = await subscribed('/ok');
    await ok.emit();
    await ok.emit();
    const down = await subscribed('/down');
    rx.setDefault('/down', 500);
    await down.emit();
    let s = await scrape(app);
    expect(sampleValue(s, 'hrx_event_deliveries_pending')).toBe(4);
    await app.ctx.services.endpoints.remove(gone.ep.id);
    await app.ctx.requestRedis.ping();
    s = await scrape(app);
    expect(sampleValue(s, 'hrx_event_deliveries_pending')).toBe(3);
    expect(sampleValue(s, 'hrx_event_deliveries_total', { outcome: 'cancelled' })).toBe(1);
    expect(sampleValue(s, 'hrx_event_deliveries_total', { outcome: 'delivered' })).toBe(0);

    await app.startEventsWorker();
    await waitFor(async () => (await dbQuery(app, `select 1 from event_deliveries where status = 'pending'`)).rowCount === 0, 20_000);
    const rows = (await dbQuery(app, `select status, count(*)::int as n from event_deliveries group by status order by status`)).rows;
    expect(rows).toStrictEqual([
      { status: 'cancelled', n: 1 },
      { status: 'delivered', n: 2 },
      { status: 'failed', n: 1 },
    ]);
    s = await scrape(app);
    expect(sampleValue(s, 'hrx_event_deliveries_total', { outcome: 'delivered' })).toBe(2);
    expect(sampleValue(s, 'hrx_event_deliveries_total', { outcome: 'failed' })).toBe(1);
    expect(sampleValue(s, 'hrx_event_deliveries_total', { outcome: 'cancelled' })).toBe(1);
    expect(sampleValue(s, 'hrx_event_deliveries_pending')).toBe(0);
    expect(sampleValue(s, 'hrx_metrics_source_up', { source: 'postgresql' })).toBe(1);
  }, 60_000);
});

describe('GET /metrics with Redis down (a private redis-server)', () => {
  const s = usePrivateRedisApp();

  it('still answers, keeps the last queue depths and says Redis was not read', async () => {
    await s.app.ctx.syncQueue.syncNow(1_000_001, 'test');
    const up = await scrape(s.app);
    expect(sampleValue(up, 'hrx_queue_jobs', { queue: 'sync', state: 'waiting' })).toBe(1);
    await s.redis.stop();
    const down = await scrape(s.app);
    expect(sampleValue(down, 'hrx_metrics_source_up', { source: 'redis' })).toBe(0);
    expect(sampleValue(down, 'hrx_metrics_source_up', { source: 'postgresql' })).toBe(1);
    expect(sampleValue(down, 'hrx_queue_jobs', { queue: 'sync', state: 'waiting' })).toBe(1);
    expect(sampleValue(down, 'hrx_sync_runs_total', { outcome: 'succeeded' })).toBe(0);
  }, 30_000);
});
