/**
 * `hrx sync run --org UUID [--follow]` and `hrx sync status [--org UUID]` (docs/cli.md "hrx sync",
 * docs/behaviour.md "Sync"), through the real executable against the test's hrx (its API and sync worker)
 * and the reference HRMS simulator: `--follow` draws a progress bar on stderr from the run's
 * pages and employees until 100% and prints the run; without it the sync is queued and the
 * command returns; `status` lists the org's configuration, next scheduled sync and runs. Orgs
 * without a configuration, or that are not client orgs, are refused in plain words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHrx } from '../../support/cli';
import type { HrmsCredentials } from '../../../src/hrms/connector';
import { dbQuery, storesOf } from '../../support/db';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

const EMPLOYEES = 300;
const PAGE = 25;
const simCreds = { clientId: 'cli-sync', clientSecret: 'cli-sync-secret-5d1' };

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let client: Awaited<ReturnType<typeof f.client>>;
let vendor: Awaited<ReturnType<typeof f.vendor>>;
let env: Record<string, string>;

const succeededRuns = async (orgId: number) =>
  Number((await dbQuery(app, `select count(*) from sync_runs where org_id = $1 and status = 'succeeded'`, [orgId])).rows[0].count);

beforeAll(async () => {
  app = await startTestApp({ env: { HRX_SYNC_BATCH_SIZE: String(PAGE) } });
  env = { ...app.env, LOG_LEVEL: 'silent' };
  // Slow pages: the run lasts seconds, so the bar is seen while it runs.
  sim = await startSim({ employees: EMPLOYEES, latencyMs: 200, ...simCreds });
  vendor = await f.vendor(app.ctx);
  client = await f.client(app.ctx);
  await f.connection(app.ctx, vendor.org.uuid, client.org.uuid, { syncFrequency: 'hourly' });
  const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(f.setupBody(client, sim, simCreds)),
  });
  expect(setup.status).toBe(200);
  await waitFor(async () => (await succeededRuns(client.org.id)) >= 1, 90_000);
}, 180_000);
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

describe('hrx sync run', () => {
  it('--follow shows the progress until 100% and prints the run it followed (--json)', async () => {
    const r = await runHrx(['sync', 'run', '--org', client.org.uuid, '--follow', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      org: client.org.uuid,
      status: 'succeeded',
      run: { trigger: 'operator', status: 'succeeded', employees: EMPLOYEES, pages: EMPLOYEES / PAGE, employees_removed: 0, error: null },
    });
    const { rows } = await dbQuery(app, `select id, trigger, employees_seen, pages from sync_runs where id = $1`, [out.run.id]);
    expect(rows).toEqual([{ id: out.run.id, trigger: 'operator', employees_seen: EMPLOYEES, pages: EMPLOYEES / PAGE }]);
    // The bar (stderr, one line a second off a terminal): the last one at 100% with every employee.
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('sync '));
    expect(lines.at(-1)).toMatch(new RegExp(`^sync \\S+ 100% \\| ${EMPLOYEES / PAGE} pages \\| ${EMPLOYEES} employees \\| succeeded$`));
    // While it ran: a share of the employees the previous run saw, below 100%.
    expect(
      lines.some((l) => new RegExp(`^sync \\S+ (\\d|[1-9]\\d)% \\| \\d+ pages \\| \\d+ employees of ~${EMPLOYEES} \\| (queued|running)$`).test(l)),
      r.stderr,
    ).toBe(true);
  }, 120_000);

  it('--follow in words; without --follow the sync is queued and the command returns', async () => {
    const r = await runHrx(['sync', 'run', '--org', client.org.uuid, '--follow'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${client.org.orgName}: sync succeeded, ${EMPLOYEES} employees in ${EMPLOYEES / PAGE} pages\n`);
    const before = await succeededRuns(client.org.id);
    const q = await runHrx(['sync', 'run', '--org', client.org.uuid, '--json'], env);
    expect(q.code, q.stderr).toBe(0);
    const queued = JSON.parse(q.stdout);
    expect(queued).toEqual({ org: client.org.uuid, job_id: expect.any(String), queued: true });
    expect((await app.ctx.syncQueue.queue.getJob(queued.job_id))?.data).toEqual({ orgId: client.org.id, trigger: 'operator' });
    await waitFor(async () => (await succeededRuns(client.org.id)) > before, 90_000);
  }, 180_000);

  it('--follow of a sync that fails: the run and its reason, exit 1', async () => {
    const c = await f.client(app.ctx);
    // Pending: syncs run for it, and no approval queues one of its own meanwhile.
    await f.connection(app.ctx, vendor.org.uuid, c.org.uuid, { status: 'pending' });
    // Stored as if the HRMS had accepted them once; it refuses them now.
    const credentials: HrmsCredentials = {
      hrms_host: sim.url,
      grant_type: 'client_credentials',
      client_id: simCreds.clientId,
      client_secret: 'no-longer-valid',
    };
    await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId: 'reference', credentials, apiConfigs: [] });
    const r = await runHrx(['sync', 'run', '--org', c.org.uuid, '--follow', '--json'], env);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ org: c.org.uuid, status: 'failed', run: { trigger: 'operator', status: 'failed', employees: 0 } });
    expect(out.reason).toMatch(/^auth: /);
    expect(
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith('sync '))
        .at(-1),
    ).toMatch(/\| failed$/);
  }, 120_000);

  it('refuses an org without HRMS configuration and an org that is not a client (exit 1, plain words)', async () => {
    const bare = await f.client(app.ctx);
    const noConfig = await runHrx(['sync', 'run', '--org', bare.org.uuid, '--follow'], env);
    expect(noConfig.code).toBe(1);
    expect(noConfig.stderr).toBe('hrx: org: the org has no HRMS configuration yet (POST /api/webhook/v1/setup-config/ first)\n');
    const notClient = await runHrx(['sync', 'run', '--org', vendor.org.uuid], env);
    expect(notClient.code).toBe(1);
    expect(notClient.stderr).toBe(`hrx: org: no client org with uuid ${vendor.org.uuid}\n`);
  }, 60_000);
});

describe('hrx sync status', () => {
  it('--json: every configured client org with its latest run and next scheduled sync; --org: its runs, newest first', async () => {
    const all = await runHrx(['sync', 'status', '--json'], env);
    expect(all.code, all.stderr).toBe(0);
    const { orgs } = JSON.parse(all.stdout);
    // The org of the failed sync is listed too, its configuration now invalid.
    expect(orgs.some((o: { config_valid: boolean; last_run: { status: string } }) => o.config_valid === false && o.last_run.status === 'failed')).toBe(true);
    const entry = orgs.find((o: { org: string }) => o.org === client.org.uuid);
    expect(entry).toMatchObject({
      org: client.org.uuid,
      org_name: client.org.orgName,
      hrms_id: 'reference',
      config_valid: true,
      last_run: { status: 'succeeded', employees: EMPLOYEES },
    });
    // hourly: the scheduler's next run is within the hour.
    const next = Date.parse(entry.next_sync_at) - Date.now();
    expect(next).toBeGreaterThan(0);
    expect(next).toBeLessThanOrEqual(3_600_000);

    const one = await runHrx(['sync', 'status', '--org', client.org.uuid, '--json'], env);
    const s = JSON.parse(one.stdout);
    expect(s).toMatchObject({ org: client.org.uuid, hrms_id: 'reference', config_valid: true, next_sync_at: entry.next_sync_at });
    const { rows } = await dbQuery(app, `select id, trigger from sync_runs where org_id = $1 order by started_at desc limit 10`, [client.org.id]);
    expect(s.runs.map((x: { id: string; trigger: string }) => [x.id, x.trigger])).toEqual(rows.map((x) => [x.id, x.trigger]));
    expect(s.runs.map((x: { trigger: string }) => x.trigger)).toEqual(expect.arrayContaining(['setup', 'operator']));
    expect(s.runs[0]).toEqual({
      id: rows[0].id,
      trigger: 'operator',
      status: 'succeeded',
      started_at: expect.stringMatching(/Z$/),
      finished_at: expect.stringMatching(/Z$/),
      pages: EMPLOYEES / PAGE,
      employees: EMPLOYEES,
      employees_removed: 0,
      error: null,
      coverage: { employees: EMPLOYEES, points: expect.any(Object) },
    });
  }, 60_000);

  it('in words: one heading per org and one line per run', async () => {
    const r = await runHrx(['sync', 'status', '--org', client.org.uuid], env);
    expect(r.code, r.stderr).toBe(0);
    const [head, ...runs] = r.stdout.trim().split('\n');
    expect(head).toMatch(new RegExp(`^${client.org.orgName} \\(${client.org.uuid}\\): HRMS reference, next sync \\d{4}-`));
    expect(runs[0]).toMatch(new RegExp(`^  \\d{4}-\\S+Z  succeeded\\s+${EMPLOYEES} employees\\s+${EMPLOYEES / PAGE} pages  operator in \\d+\\.\\d s$`));
  }, 60_000);
});
