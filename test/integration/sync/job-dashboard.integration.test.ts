/**
 * The job dashboard tells the truth about syncs (docs/operations.md "The job dashboard: `/admin/queues`"; jobs/sync.worker.ts), over the
 * real sync queue and worker: a running sync's job carries its progress `{pages, employees}`,
 * a sync the HRMS refuses (wrong credentials) is a failed job with the run's reason, not
 * retried, one whose HRMS keeps failing is retried with backoff, and Bull Board's own API shows
 * them.
 */
import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { dbQuery } from '../../support/db';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const creds = { clientId: 'dash-client', clientSecret: `dash-secret-${randomUUID()}` };
const N = 60;

beforeAll(async () => {
  // Pages of 10, each answered after 150 ms: a sync of 6 pages runs long enough to be watched.
  // One HRMS retry per request, so an HRMS that keeps failing fails the attempt quickly.
  app = await startTestApp({ env: { HRX_SYNC_BATCH_SIZE: '10', HRX_HRMS_RETRIES: '1' } });
  sim = await startSim({ employees: N, latencyMs: 150, ...creds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

/** A client org connected to a vendor, its HRMS at `at` (default the simulator) with `secret`. */
async function clientAt(secret: string, at: { url: string } = sim): Promise<number> {
  const v = await f.vendor(app.ctx);
  const c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  // The first approval queues a sync (docs/behaviour.md "Sync"); with no HRMS configured yet it ends at
  // once.
  // Removed once ended, so the dashboard's counts below are the tests' own jobs.
  const approval = await waitFor(
    async () => {
      const jobs = await app.ctx.syncQueue.queue.getJobs(['active', 'waiting', 'delayed', 'completed', 'failed']);
      const j = jobs.find((x) => x.data.orgId === c.org.id && x.data.trigger === 'approval');
      return j && ['completed', 'failed'].includes(await j.getState()) ? j : null;
    },
    30_000,
    50,
  );
  await approval.remove();
  await f.hrmsAt(app.ctx, c.org.id, at, { clientId: creds.clientId, clientSecret: secret });
  return c.org.id;
}

/** The sync job of `orgId` this test queued (any state; the org's scheduled job is another). */
async function jobOf(orgId: number): Promise<Job | undefined> {
  const jobs = await app.ctx.syncQueue.queue.getJobs(['active', 'waiting', 'delayed', 'completed', 'failed']);
  return jobs.find((j) => j.data.orgId === orgId && j.data.trigger === 'test');
}

describe('sync jobs on the dashboard', () => {
  it('a running sync job shows its progress in pages and employees', async () => {
    const orgId = await clientAt(creds.clientSecret);
    await app.ctx.syncQueue.syncNow(orgId, 'test');
    const seen: { pages: number; employees: number }[] = [];
    // Sampled while the job is active: every progress it shows is a whole number of pages.
    const done = await waitFor(
      async () => {
        const job = await jobOf(orgId);
        if (!job) return null;
        const state = await job.getState();
        if (state === 'active' && typeof job.progress === 'object') seen.push(job.progress as { pages: number; employees: number });
        // Fetched again once completed: `job` was read before `getState`, so a job that ended in
        // between still holds its last active progress and no return value.
        return state === 'completed' ? ((await jobOf(orgId)) ?? null) : null;
      },
      60_000,
      50,
    );
    const during = seen.filter((p) => p.pages < N / 10);
    expect(during.length).toBeGreaterThan(0);
    for (const p of seen) expect(p.employees).toBe(p.pages * 10);
    expect(done.progress).toStrictEqual({ pages: 6, employees: N });
    expect(done.returnvalue).toMatchObject({ status: 'succeeded', employees: N, pages: 6 });
  }, 90_000);

  it("a sync the HRMS refuses (wrong credentials) is a failed job with the run's reason, not retried", async () => {
    const orgId = await clientAt('not-the-secret');
    await app.ctx.syncQueue.syncNow(orgId, 'test');
    const job = await waitFor(async () => {
      const j = await jobOf(orgId);
      // Fetched again once failed (as above: `j` may predate the failure, without its reason).
      return j && (await j.getState()) === 'failed' ? ((await jobOf(orgId)) ?? null) : null;
    }, 60_000);
    const [run] = (await dbQuery(app, `select id, status, error from sync_runs where org_id = $1`, [orgId])).rows;
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^auth: /);
    expect(job.failedReason).toBe(`sync run ${run.id} failed: ${run.error}`);
    // An auth stop is final: one attempt of the 8 the job allows, no retry scheduled.
    expect(job.attemptsMade).toBe(1);
    expect(job.opts.attempts).toBe(8);
    expect(await job.getState()).toBe('failed');
    // The secret given never reaches the reason.
    expect(job.failedReason).not.toContain('not-the-secret');
    const [cfg] = (await dbQuery(app, `select valid from hrms_configs where org_id = $1`, [orgId])).rows;
    expect(cfg.valid).toBe(false);
  }, 90_000);

  it('a sync whose HRMS keeps failing (5xx) fails its attempt and is retried with backoff', async () => {
    const flaky = await startSim({ employees: 5, rate5xx: 1, ...creds });
    try {
      const orgId = await clientAt(creds.clientSecret, flaky);
      await app.ctx.syncQueue.syncNow(orgId, 'test');
      const job = await waitFor(async () => {
        const j = await jobOf(orgId);
        return j && j.attemptsMade >= 1 && (await j.getState()) === 'delayed' ? j : null;
      }, 60_000);
      expect(job.failedReason).toBeTruthy();
      expect(job.failedReason).not.toMatch(/^sync run /);
      // Out of the way of the next test's counts (a job that just became active again stays).
      await app.ctx.syncQueue.queue.remove(job.id!).catch(() => undefined);
    } finally {
      await flaky.close();
    }
  }, 90_000);

  it("Bull Board's API lists the failed sync with its reason and the completed one with its progress", async () => {
    const headers = { authorization: `Bearer ${app.env.HRX_ADMIN_TOKEN}` };
    const failed = await call(`${app.url}/admin/queues/api/queues?activeQueue=sync&status=failed&page=1`, { headers });
    expect(failed.status).toBe(200);
    const sync = failed.body.queues.find((q: { name: string }) => q.name === 'sync');
    expect(sync.counts).toMatchObject({ failed: 1, completed: 1 });
    expect(sync.jobs).toHaveLength(1);
    expect(sync.jobs[0].failedReason).toMatch(/^sync run [0-9a-f-]{36} failed: auth: /);
    const completed = await call(`${app.url}/admin/queues/api/queues?activeQueue=sync&status=completed&page=1`, { headers });
    const jobs = completed.body.queues.find((q: { name: string }) => q.name === 'sync').jobs;
    expect(jobs.map((j: { progress: unknown }) => j.progress)).toStrictEqual([{ pages: 6, employees: N }]);
  });
});
