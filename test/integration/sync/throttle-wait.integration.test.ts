/**
 * Waiting is not stalling (docs/behaviour.md "Waiting is not stalling"): a sync of a Keka tenant
 * whose minute another client of the same Keka account used up (the test spends the simulator's
 * window itself the moment hrx asks for page 2) waits out the 429s, keeps its sync lock all
 * along, and succeeds; only an HRMS that answers nothing at all for the stall limit fails the run
 * as `hrms_stalled`. The stall limit is 2 s here (HRX_SYNC_HRMS_STALL_SEC; 60 s in production)
 * and the simulator's Keka window 6 s (a `windowMs` variant), so each wait is several stall
 * limits long and the test stays short. hrx's own calls are counted at a proxy in front of the
 * simulator: never more than 50 in any 60 s.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECT_SIMS } from '../../../src/hrms/sim/dialects';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import * as f from '../../support/factories';
import { dbQuery, storesOf } from '../../support/db';
import { startTestApp, type TestApp } from '../../support/harness';
import { maxInAnyWindow, spendWindow } from '../../support/dialect';

const LIST_PATH = '/api/v1/hris/employees';
const WINDOW_MS = 6000;
let app: TestApp;

beforeAll(async () => {
  // Pages of 10; a 2 s stall limit; a lock living 5 s unrenewed, so a
  // wait of several seconds keeps it only by renewal; retries from 100 ms (0.1, 0.4, 1.6, 6.4 s).
  app = await startTestApp({
    worker: false,
    env: { HRX_SYNC_BATCH_SIZE: '10', HRX_SYNC_HRMS_STALL_SEC: '2', HRX_SYNC_LOCK_TTL_SEC: '5', HRX_HRMS_RETRY_MIN_MS: '100' },
  });
});
afterAll(async () => app?.stop());

/** A proxy in front of `sim` noting when hrx called the employee listing, calling `onPage(n)` (awaited) before forwarding the n-th. */
async function hrmsProxy(sim: DialectSim, onPage: (n: number) => Promise<void>) {
  const target = new URL(sim.url);
  const calls: { at: number; status: number }[] = [];
  let pages = 0;
  const server: Server = createServer((req, res) => {
    const isPage = (req.url ?? '').startsWith(LIST_PATH);
    const at = Date.now();
    const forward = () => {
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (r) => {
          if (isPage) calls.push({ at, status: r.statusCode ?? 0 });
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (isPage) void onPage(++pages).then(forward);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

/** "Another client of the same Keka account": spends the simulator's whole window (its count starts at hrx's page 1). */
const spendKekaWindow = (sim: DialectSim): Promise<void> => spendWindow(`${sim.url}${LIST_PATH}`);

/** A client org syncing from a Keka simulator (40 employees, window `WINDOW_MS`) through a proxy whose page 2 finds the window spent. */
async function throttledTenant(variants: Record<string, string | number | boolean>, atPage2: (sim: DialectSim) => void = () => undefined) {
  const sim = await DIALECT_SIMS.get('keka')!({
    employees: 40,
    seed: 'throttle-wait',
    variants: { windowMs: WINDOW_MS, nextPage: 'relative', payHistoryMonths: 0, ...variants },
  });
  const proxy = await hrmsProxy(sim, async (n) => {
    if (n !== 2) return;
    await spendKekaWindow(sim);
    atPage2(sim);
  });
  const v = await f.vendor(app.ctx);
  const c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await app.ctx.syncQueue.queue.drain(true); // the approval's sync: this test runs its own
  const setup = JSON.parse(JSON.stringify(sim.setup()).replaceAll(sim.url, proxy.url)) as ReturnType<DialectSim['setup']>;
  await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId: 'keka', credentials: setup.access_credentials, apiConfigs: setup.api_configs });
  return { sim, proxy, orgId: c.org.id, close: async () => Promise.all([proxy.close(), sim.close()]) };
}

/** Runs the org's sync, sampling its lock's holder every 200 ms until it ends. */
async function runWatchingLock(orgId: number, owner: string) {
  const holders: (string | null)[] = [];
  let done = false;
  const started = Date.now();
  const sampling = (async () => {
    while (!done) {
      holders.push(await app.ctx.lock.holder(orgId));
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    const outcome = await app.ctx.services.sync.run(orgId, 'test', owner);
    return { outcome, holders, ms: Date.now() - started };
  } finally {
    done = true;
    await sampling;
  }
}

describe('waiting out throttling is not a stall', () => {
  for (const retryAfter of [false, true]) {
    it(`a Keka minute spent by another client (429 rateLimitExceeded, ${retryAfter ? 'with' : 'without'} Retry-After): the sync waits, keeps its lock and succeeds`, async () => {
      const t = await throttledTenant({ retryAfter });
      try {
        const { outcome, holders, ms } = await runWatchingLock(t.orgId, `wait-${retryAfter}`);
        expect(outcome).toMatchObject({ status: 'succeeded', employees: 40 });
        // It did wait: 429s answered, the wait longer than the stall limit and the lock's life.
        expect(t.proxy.calls.filter((x) => x.status === 429).length).toBeGreaterThanOrEqual(1);
        expect(ms).toBeGreaterThan(5000);
        // The lock was the run's own from start to end (renewed through the wait).
        const held = holders.slice(
          holders.findIndex((h) => h !== null),
          holders.findLastIndex((h) => h !== null) + 1,
        );
        expect(held.length).toBeGreaterThan(20);
        expect(new Set(held)).toEqual(new Set([`sync:wait-${retryAfter}`]));
        // hrx's own calls stay within Keka's 50 a minute, and the 429s were not hammered.
        expect(
          maxInAnyWindow(
            t.proxy.calls.map((x) => x.at).sort((a, b) => a - b),
            60_000,
          ),
        ).toBeLessThanOrEqual(50);
        expect(t.proxy.calls.length).toBeLessThanOrEqual((outcome.status === 'succeeded' ? outcome.pages : 0) + 5);
        expect((await dbQuery(app, `select status, error from sync_runs where org_id = $1`, [t.orgId])).rows).toEqual([{ status: 'succeeded', error: null }]);
      } finally {
        await t.close();
      }
    }, 60_000);
  }
});

describe('an HRMS silent for longer than the stall limit is a stall', () => {
  it('after waiting out the 429s, a page that never comes fails the run as hrms_stalled and releases the lock', async () => {
    // The window is spent and, from then on, every answer that gets past the throttle never comes.
    const t = await throttledTenant({ retryAfter: false }, (sim) => sim.setFaults({ latencyMs: 600_000 }));
    try {
      const { outcome, ms } = await runWatchingLock(t.orgId, 'silent');
      expect(outcome).toMatchObject({ status: 'failed', reason: 'hrms_stalled', message: 'hrms_stalled: the HRMS gave no answer for 2 s' });
      // The throttling was waited out first (the 6 s window), then 2 s of silence ended it.
      expect(ms).toBeGreaterThan(WINDOW_MS);
      expect(ms).toBeLessThan(WINDOW_MS + 10_000);
      expect(await app.ctx.lock.holder(t.orgId)).toBeNull();
    } finally {
      t.sim.setFaults({ latencyMs: 0 });
      await t.close();
    }
  }, 60_000);
});
