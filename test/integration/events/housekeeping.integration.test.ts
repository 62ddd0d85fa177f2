/**
 * The periodic jobs of events (outbox relay, consent-expiry scan; docs/events.md "Outbox") run on the
 * `housekeeping` queue (src/queue/housekeeping.ts, jobs/housekeeping.worker.ts), out of the way
 * of the sync and delivery lists of the job dashboard (docs/operations.md "The job dashboard: `/admin/queues`"): none of their jobs is in
 * the `sync` or `events` queue, their own history is kept short, and the schedulers an older hrx
 * left on the events queue are removed. Real workers, BullMQ and Bull Board's own API.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_QUEUE } from '../../../src/events/queue';
import { bullPrefix } from '../../../src/queue/bull';
import { call, REDIS_URL, startTestApp, waitFor, type TestApp } from '../../support/harness';

let app: TestApp;
const HOUSEKEEPING = ['relay', 'consent-scan'];
const ALL_STATES = ['active', 'waiting', 'delayed', 'prioritized', 'paused', 'completed', 'failed'] as const;

beforeAll(async () => {
  app = await startTestApp({ env: { HRX_EVENTS_RELAY_MS: '200', HRX_EVENTS_CONSENT_SCAN_MS: '300' } });
  // What an older hrx left in Redis: its schedulers on the events queue, each with its next job
  // delayed (a job already due when the worker starts completes as skipped: events.worker.ts).
  const older = new Queue(EVENTS_QUEUE, { connection: { url: REDIS_URL }, prefix: bullPrefix(app.config.HRX_REDIS_PREFIX, EVENTS_QUEUE) });
  const later = { every: 60_000, startDate: Date.now() + 60_000 };
  await older.upsertJobScheduler('events-relay', later, { name: 'relay', data: {} });
  await older.upsertJobScheduler('events-consent-scan', later, { name: 'consent-scan', data: {} });
  expect((await older.getJobs(['delayed'])).map((j) => j.name).sort()).toStrictEqual(['consent-scan', 'relay']);
  await older.close();
  await app.startEventsWorker();
});
afterAll(async () => {
  await app?.stop();
});

describe('housekeeping jobs on a queue of their own', () => {
  it('runs the relay and the consent scan on the housekeeping queue, never on sync or events', async () => {
    const { housekeepingQueue, eventsQueue, syncQueue } = app.ctx;
    const done = await waitFor(async () => {
      const jobs = await housekeepingQueue.queue.getJobs(['completed']);
      const names = new Set(jobs.map((j) => j.name));
      return names.has('relay') && names.has('consent-scan') ? jobs : null;
    }, 20_000);
    const relay = done.find((j) => j.name === 'relay')!;
    expect(relay.returnvalue).toStrictEqual({ queued: 0 });
    expect(done.find((j) => j.name === 'consent-scan')!.returnvalue).toStrictEqual({ announced: 0 });
    expect(Object.fromEntries((await housekeepingQueue.queue.getJobSchedulers(0, -1)).map((s) => [s.key, Number(s.every)]))).toStrictEqual({
      'events-relay': 200,
      'events-consent-scan': 300,
      'credential-sweep': 15_000,
    });
    // The older hrx's schedulers are gone from the events queue, with their next jobs.
    expect(await eventsQueue.queue.getJobSchedulers(0, -1)).toStrictEqual([]);
    for (const q of [eventsQueue.queue, syncQueue.queue]) {
      const names = (await q.getJobs([...ALL_STATES])).map((j) => j.name);
      expect(names.filter((n) => HOUSEKEEPING.includes(n))).toStrictEqual([]);
    }
  });

  it('keeps only the last 20 finished housekeeping jobs', async () => {
    // Five runs a second: past 20 within seconds, then trimmed as each one completes.
    await waitFor(async () => (await app.ctx.housekeepingQueue.queue.getCompletedCount()) >= 20, 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await app.ctx.housekeepingQueue.queue.getCompletedCount()).toBe(20);
  });

  it('Bull Board lists the four queues, and the sync and events lists hold no housekeeping job', async () => {
    const headers = { authorization: `Bearer ${app.env.HRX_ADMIN_TOKEN}` };
    const res = await call(`${app.url}/admin/queues/api/queues?activeQueue=housekeeping&status=completed&page=1`, { headers });
    expect(res.status).toBe(200);
    const queues = res.body.queues as { name: string; counts: Record<string, number>; jobs: { name: string }[] }[];
    expect(queues.map((q) => q.name).sort()).toStrictEqual(['events', 'housekeeping', 'retention', 'sync']);
    const byName = Object.fromEntries(queues.map((q) => [q.name, q]));
    expect(byName.housekeeping!.jobs.length).toBeGreaterThan(0);
    expect(new Set(byName.housekeeping!.jobs.map((j) => j.name))).toStrictEqual(new Set(HOUSEKEEPING));
    for (const name of ['sync', 'events']) {
      expect(byName[name]!.counts).toMatchObject({ completed: 0, failed: 0, waiting: 0, delayed: 0, active: 0 });
    }
  });
});
