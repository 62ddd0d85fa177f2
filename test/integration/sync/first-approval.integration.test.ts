/**
 * docs/behaviour.md "Sync": when the org has no approved connection yet, its first approval queues that
 * sync (a connection is never left waiting for the next scheduled run). An employer posts
 * setup-config before any connection exists (its sync is skipped: nothing to sync for), then
 * approves a vendor's request in the Connect flow (over HTTP) or the operator approves one with
 * `hrx connection approve`: a run (trigger `approval`) syncs the org at once, not a day later.
 * A second approval, with an approved connection in place, queues nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession } from '../../support/connect';
import { hrxJson } from '../../support/cli';
import { dbQuery } from '../../support/db';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

const EMPLOYEES = 7;
const simCreds = { clientId: 'first-approval', clientSecret: 'first-approval-secret-9a3' };

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;

beforeAll(async () => {
  app = await startTestApp();
  sim = await startSim({ employees: EMPLOYEES, ...simCreds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const runs = async (orgId: number) =>
  (await dbQuery(app, `select trigger, status, employees_seen from sync_runs where org_id = $1 order by started_at`, [orgId])).rows;
const served = async (orgId: number) =>
  Number((await dbQuery(app, `select count(*) from employees where org_id = $1 and removed_at is null`, [orgId])).rows[0].count);

/** A client org with the given e-mail domain whose setup-config came before any connection. */
async function configuredAlone(domain: string) {
  const { org, appSecret } = await app.ctx.services.orgs.create({ name: `Employer ${domain}`, vendor: false, client: true, domain });
  const c = { org, appSecret };
  const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(f.setupBody(c, sim, simCreds)),
  });
  expect(setup.status).toBe(200);
  // Its sync is queued and skipped (no connection): no run, no employee, no job scheduler.
  const setupJob = await waitFor(
    async () => (await app.ctx.syncQueue.queue.getJobs(['completed'])).find((j) => j.data.orgId === org.id && j.data.trigger === 'setup'),
    30_000,
  );
  expect(setupJob.returnvalue).toEqual({ status: 'skipped', reason: 'no_active_connection' });
  expect(await runs(org.id)).toEqual([]);
  expect(await served(org.id)).toBe(0);
  expect(await app.ctx.syncQueue.queue.getJobScheduler(`sync-org-${org.id}`)).toBeFalsy();
  return c;
}

describe('the first approval queues the sync (docs/behaviour.md "Sync")', () => {
  it("Connect approve (HTTP): a run syncs the org at once; a second vendor's approval queues none", async () => {
    const c = await configuredAlone('first-connect.example');
    const lender = await f.vendor(app.ctx);
    const token = await f.sdkToken(app.ctx, lender.org, { email: 'hr@first-connect.example', org_name: 'Employer first-connect.example' });
    expect(token.org_id).toBe(c.org.uuid);
    const s = await openSession(app.url, token.access_token);
    // An established org (it has a configuration): the HR admin proves control with its app credentials.
    expect((await connectCall(app.url, s, 'proof/', { app_key: c.org.appKey, app_secret: c.appSecret })).status).toBe(200);
    const approved = await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
    expect(approved.status).toBe(200);
    expect(approved.body.data.status).toBe('approved');
    const approvedAt = Date.now();
    await waitFor(async () => (await runs(c.org.id)).some((r) => r.status === 'succeeded'), 60_000);
    console.log(`[first-approval] Connect approve → synced in ${Date.now() - approvedAt} ms`);
    expect(await runs(c.org.id)).toEqual([{ trigger: 'approval', status: 'succeeded', employees_seen: EMPLOYEES }]);
    expect(await served(c.org.id)).toBe(EMPLOYEES);
    // The scheduler now exists (daily, the Connect default); its first run is a period away.
    expect(await app.ctx.syncQueue.queue.getJobScheduler(`sync-org-${c.org.id}`)).toBeTruthy();

    const other = await f.vendor(app.ctx);
    const before = (await app.ctx.syncQueue.queue.getJobs(['completed', 'waiting', 'active', 'delayed'])).filter((j) => j.data.orgId === c.org.id).length;
    await f.connection(app.ctx, other.org.uuid, c.org.uuid);
    const after = (await app.ctx.syncQueue.queue.getJobs(['completed', 'waiting', 'active', 'delayed'])).filter((j) => j.data.orgId === c.org.id).length;
    expect(after).toBe(before);
  }, 120_000);

  it("hrx connection approve: the operator's first approval of a pending connection syncs at once", async () => {
    const c = await configuredAlone('first-operator.example');
    const lender = await f.vendor(app.ctx);
    const pending = await f.connection(app.ctx, lender.org.uuid, c.org.uuid, { status: 'pending' });
    // A pending connection alone queues nothing.
    expect(await runs(c.org.id)).toEqual([]);
    expect(await hrxJson(['connection', 'approve', pending.id], app.env)).toEqual({ id: pending.id, status: 'approved' });
    await waitFor(async () => (await runs(c.org.id)).some((r) => r.status === 'succeeded'), 60_000);
    expect(await runs(c.org.id)).toEqual([{ trigger: 'approval', status: 'succeeded', employees_seen: EMPLOYEES }]);
    expect(await served(c.org.id)).toBe(EMPLOYEES);
  }, 120_000);
});
