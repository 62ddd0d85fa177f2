/**
 * The periodic check of the job schedulers (docs/operations.md "Job schedulers at scale"): the
 * expected set's fingerprint computed in PostgreSQL equals the one computed in the process; a
 * change made through hrx keeps the stored fingerprint in line (no full pass); a change made
 * behind hrx's back (a row edited in PostgreSQL, a scheduler or the fingerprint lost in Redis)
 * makes the check run a full pass that puts every scheduler back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcilerDeps } from '../../../jobs/deps';
import { startScheduleReconciler, type ScheduleReconciler } from '../../../jobs/schedules';
import { fingerprintOf, FREQUENCY_MS, schedulerHash } from '../../../src/sync/schedules';
import { dbQuery, storesOf } from '../../support/db';
import * as f from '../../support/factories';
import { startTestApp, waitFor, type TestApp } from '../../support/harness';

let app: TestApp;
let reconciler: ScheduleReconciler;
const orgs: number[] = [];

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  const v = await f.vendor(app.ctx);
  for (const freq of ['hourly', 'daily', 'weekly'] as const) {
    const c = await f.client(app.ctx);
    await storesOf(app).hrmsConfigs.save({
      orgId: c.org.id,
      hrmsId: 'reference',
      apiConfigs: [],
      credentials: { client_id: 'x', client_secret: 'y', api_key: '', grant_type: 'client_credentials', hrms_host: 'http://127.0.0.1:9' },
    });
    await f.connection(app.ctx, v.org.uuid, c.org.uuid, { syncFrequency: freq });
    orgs.push(c.org.id);
  }
  // No periodic timer: the test calls the check itself.
  reconciler = startScheduleReconciler({ ...reconcilerDeps(app.ctx), everyMs: 3_600_000 });
});

afterAll(async () => {
  await reconciler?.stop();
  await app?.stop();
});

/** The sync schedulers in Redis: org id → every (ms). */
async function actual(): Promise<Record<number, number>> {
  const all = await app.ctx.syncQueue.queue.getJobSchedulers(0, -1);
  return Object.fromEntries(all.map((s) => [Number(/\d+$/.exec(s.key)![0]), Number(s.every)]));
}

const wanted = (every: number[]) => Object.fromEntries(orgs.map((o, i) => [o, every[i]!]));

describe('job scheduler check', () => {
  it('computes the same fingerprint in PostgreSQL as in the process, and finds Redis in line after a full pass', async () => {
    await reconciler.reconcile();
    const expected = await app.ctx.syncSchedules.expected();
    expect(Object.fromEntries(expected)).toEqual(wanted([FREQUENCY_MS.hourly!, FREQUENCY_MS.daily!, FREQUENCY_MS.weekly!]));
    const fp = fingerprintOf(expected);
    expect(fp.count).toBe(3);
    expect(fp.sum).toBe(orgs.reduce((s, o) => s + schedulerHash(o, expected.get(o)!), 0));
    expect(await app.ctx.syncSchedules.fingerprint()).toEqual(fp);
    expect(await app.ctx.syncQueue.schedulerState()).toEqual({ stored: fp, count: 3 });
    expect(await actual()).toEqual(Object.fromEntries(expected));
    expect(await reconciler.check()).toBe(true);
  });

  it('stays in line without a full pass when hrx itself changes a scheduler', async () => {
    await dbQuery(app.ctx, `update connections set sync_frequency = 'every_6_hours' where client_org_id = $1`, [orgs[2]]);
    await app.ctx.services.sync.refreshSchedule(orgs[2]!);
    await dbQuery(app.ctx, `update hrms_configs set valid = false where org_id = $1`, [orgs[1]]);
    await app.ctx.services.sync.refreshSchedule(orgs[1]!);
    expect(await actual()).toEqual({ [orgs[0]!]: FREQUENCY_MS.hourly!, [orgs[2]!]: FREQUENCY_MS.every_6_hours! });
    expect(await reconciler.check()).toBe(true);
    await dbQuery(app.ctx, `update hrms_configs set valid = true where org_id = $1`, [orgs[1]]);
    await app.ctx.services.sync.refreshSchedule(orgs[1]!);
    expect(await reconciler.check()).toBe(true);
    expect(await actual()).toEqual(wanted([FREQUENCY_MS.hourly!, FREQUENCY_MS.daily!, FREQUENCY_MS.every_6_hours!]));
  });

  it('runs a full pass when PostgreSQL changed behind its back', async () => {
    await dbQuery(app.ctx, `update connections set sync_frequency = 'every_12_hours' where client_org_id = $1`, [orgs[0]]);
    expect(await reconciler.check()).toBe(false);
    expect(await actual()).toEqual(wanted([FREQUENCY_MS.every_12_hours!, FREQUENCY_MS.daily!, FREQUENCY_MS.every_6_hours!]));
    expect(await reconciler.check()).toBe(true);
  });

  it('runs a full pass when a scheduler or the fingerprint is lost in Redis', async () => {
    const all = wanted([FREQUENCY_MS.every_12_hours!, FREQUENCY_MS.daily!, FREQUENCY_MS.every_6_hours!]);
    // A scheduler removed behind hrx's back: the fingerprint still says 3, the queue holds 2.
    await app.ctx.syncQueue.queue.removeJobScheduler(`sync-org-${orgs[1]}`);
    expect(await reconciler.check()).toBe(false);
    expect(await actual()).toEqual(all);
    // The fingerprint lost (Redis flushed or restarted empty without a reconnect seen).
    await app.ctx.requestRedis.del(`${app.ctx.syncQueue.queue.qualifiedName}:scheduler-fingerprint`);
    expect(await reconciler.check()).toBe(false);
    expect(await reconciler.check()).toBe(true);
    // A scheduler no org needs (a terminated connection whose removal never reached Redis).
    await dbQuery(app.ctx, `update connections set status = 'terminated' where client_org_id = $1`, [orgs[1]]);
    expect(await reconciler.check()).toBe(false);
    const { [orgs[1]!]: _, ...rest } = all;
    await waitFor(async () => JSON.stringify(await actual()) === JSON.stringify(rest), 5_000);
    expect(await reconciler.check()).toBe(true);
  });
});
