/**
 * Coverage is visible (docs/behaviour.md "Coverage", docs/events.md `sync.degraded`): every sync
 * run records per data point how many of its employees have a value (`sync_runs.coverage`,
 * exactly `{employees, points}`); the job's return value on the dashboard, `hrx sync status` and
 * `sync.completed` (as shares, only the points the vendor's connection shares) carry it; and when
 * the reference simulator stops sending `date_of_birth` (its `omitFields` switch), the next full
 * sync raises `sync.degraded` naming `dob`, which a vendor's endpoint receives and verifies with
 * the official `standardwebhooks` package, and a warning log that names no employee value.
 */
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_DATA_POINTS } from '../../../src/domain/data-points';
import { generateEmployee } from '../../../src/hrms/sim/data';
import { hrxJson, runHrx } from '../../support/cli';
import { dbQuery, storesOf } from '../../support/db';
import { client, connection, vendor } from '../../support/factories';
import { startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, type Receiver } from '../../support/receiver';

const N = 30;
const creds = { clientId: 'coverage-client', clientSecret: 'coverage-secret-5d2' };
const lines: string[] = [];
let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let rx: Receiver;
let c: Awaited<ReturnType<typeof client>>;
let allSecret: string;
let namesSecret: string;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await startTestApp({ worker: false, env: { HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1', HRX_SYNC_BATCH_SIZE: '10', LOG_LEVEL: 'info' }, logStream: sink });
  await app.startEventsWorker();
  rx = await startReceiver();
  sim = await startSim({ employees: N, seed: 'coverage', ...creds });
  c = await client(app.ctx);
  const all = await vendor(app.ctx);
  const names = await vendor(app.ctx);
  // `all` subscribes to every event type (sync.degraded included) and shares every data point;
  // `names` shares `name` and `email` only.
  allSecret = (await app.ctx.services.endpoints.add({ orgUuid: all.org.uuid, url: rx.url('/all') })).secret;
  namesSecret = (await app.ctx.services.endpoints.add({ orgUuid: names.org.uuid, url: rx.url('/names') })).secret;
  await connection(app.ctx, all.org.uuid, c.org.uuid);
  await connection(app.ctx, names.org.uuid, c.org.uuid, { shared: ['name', 'email'] });
  await app.ctx.syncQueue.queue.drain(true); // the approvals' syncs: each test runs its own
  await storesOf(app).hrmsConfigs.save({
    orgId: c.org.id,
    hrmsId: 'reference',
    credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, api_key: '', hrms_host: sim.url },
    apiConfigs: [],
  });
}, 90_000);
afterAll(async () => {
  await sim?.close();
  await rx?.close();
  await app?.stop();
});

/** A received event, verified as a vendor would with the `standardwebhooks` package (throws when the signature is wrong). */
function verified(secret: string, r: { body: string; headers: Record<string, string | string[] | undefined> }) {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));
  return new Webhook(secret).verify(r.body, headers) as { type: string; data: Record<string, any> };
}
const storedCoverage = async (runId: string) => (await dbQuery(app, `select coverage from sync_runs where id = $1`, [runId])).rows[0].coverage;

describe('coverage of a sync run', () => {
  it('is stored on the run as {employees, points}, every data point counted, and sent as shares the vendor shares', async () => {
    const outcome = await app.ctx.services.sync.run(c.org.id, 'test', 'coverage-1');
    expect(outcome).toMatchObject({ status: 'succeeded', kind: 'full', employees: N });
    if (outcome.status !== 'succeeded') return;
    const stored = await storedCoverage(outcome.runId);
    expect(Object.keys(stored).sort()).toEqual(['employees', 'points']);
    expect(stored.employees).toBe(N);
    expect(Object.keys(stored.points).sort()).toEqual([...ALL_DATA_POINTS].sort());
    expect(Object.values(stored.points).every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= N)).toBe(true);
    // Every simulated employee has a name and a date of birth; nobody has a fifth manager.
    expect([stored.points.name, stored.points.dob, stored.points.managerEmail5]).toEqual([N, N, 0]);
    expect(outcome.coverage).toEqual(stored);

    const [all] = await rx.waitForCount('/all', 1, 'sync.completed', 30_000);
    const event = verified(allSecret, all!);
    expect(event.data.coverage).toEqual(Object.fromEntries(Object.entries(stored.points as Record<string, number>).map(([p, n]) => [p, n / N])));
    const [names] = await rx.waitForCount('/names', 1, 'sync.completed', 30_000);
    expect(verified(namesSecret, names!).data.coverage).toEqual({ name: 1, email: stored.points.email / N });
  });

  it('`hrx sync status` shows it (JSON and text)', async () => {
    const status = await hrxJson(['sync', 'status', '--org', c.org.uuid], app.env);
    const latest = status.runs[0];
    expect(latest.coverage).toEqual(await storedCoverage(latest.id));
    const text = await runHrx(['sync', 'status', '--org', c.org.uuid], app.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`coverage of ${N} employees: \\d+ data points on everyone, \\d+ on no one`));
  });
});

describe('coverage that falls by more than half since the previous full sync', () => {
  it('raises sync.degraded naming dob, verified with standardwebhooks, and a warning without values; the job shows the coverage', async () => {
    sim.control.set({ omitFields: ['date_of_birth'] });
    const worker = app.startWorker();
    try {
      const jobId = await app.ctx.syncQueue.syncNow(c.org.id, 'operator');
      await waitFor(async () => (await app.ctx.syncQueue.queue.getJobState(jobId)) === 'completed', 60_000);
      const job = (await app.ctx.syncQueue.queue.getJob(jobId))!;
      // The dashboard's job: its return value is the outcome, with the run's coverage.
      const ret = job.returnvalue as { runId: string; coverage: { employees: number; points: Record<string, number> } };
      expect(ret.coverage).toEqual(await storedCoverage(ret.runId));
      expect(ret.coverage.points.dob).toBe(0);

      const [received] = await rx.waitForCount('/all', 1, 'sync.degraded', 30_000);
      const event = verified(allSecret, received!);
      const previous = (
        await dbQuery(app, `select id from sync_runs where org_id = $1 and id <> $2 and status = 'succeeded' order by started_at desc limit 1`, [
          c.org.id,
          ret.runId,
        ])
      ).rows[0].id;
      expect(event).toEqual({
        type: 'sync.degraded',
        timestamp: expect.any(String),
        data: {
          client_org_id: c.org.uuid,
          sync_run_id: ret.runId,
          previous_sync_run_id: previous,
          employees_seen: N,
          data_points: [{ name: 'dob', previous: 1, current: 0 }],
          started_at: expect.any(String),
          finished_at: expect.any(String),
        },
      });
      // A forged signature is refused by the same check.
      expect(() => verified(allSecret, { ...received!, body: received!.body.replace('"dob"', '"pan"') })).toThrow();
      // The vendor that does not share dob hears nothing of it.
      await rx.waitForCount('/names', 2, 'sync.completed', 30_000);
      expect(rx.at('/names').filter((r) => r.json.type === 'sync.degraded')).toEqual([]);

      const warning = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'sync coverage degraded');
      expect(warning).toMatchObject({ level: 40, runId: ret.runId, dataPoints: [{ name: 'dob', previous: 1, current: 0 }] });
      // No employee value in it: no id, name or date of birth of any synced employee.
      const text = JSON.stringify(warning);
      for (let i = 1; i <= N; i++) {
        const e = generateEmployee('coverage', i) as unknown as Record<string, string>;
        for (const value of [e.employee_code, e.first_name, e.last_name, e.date_of_birth]) expect(text).not.toContain(value);
      }
    } finally {
      sim.control.set({ omitFields: [] });
      await worker.close();
    }
  }, 120_000);
});
