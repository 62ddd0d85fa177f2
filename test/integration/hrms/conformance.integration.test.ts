/**
 * The connector conformance suite (docs/hrms/connectors.md): run for every `hrms_id` with a
 * simulator in `DIALECT_SIMS`, through hrx end to end (setup-config over HTTP, the real sync
 * service, PostgreSQL, Redis, the shared request budget):
 * - a full sync of 500 employees equals the simulator's ground truth, field by field;
 * - wrong credentials: setup-config refuses them, and stored ones that went wrong mark the
 *   configuration invalid after a handful of requests (no retry storm);
 * - throttling is waited out, and under a budget small enough that the sync has to wait for it
 *   (at least two data requests that are not retries), no window at the simulator holds more
 *   requests than that budget;
 * - a token that expires mid-sync is refreshed without losing or repeating a page;
 * - an incremental sync (products that list changes) picks up a change, and a removal (or, for a
 *   product whose listings show no removals, the next full sync does); a product that lists no
 *   changes removes, by its next full sync, an employee the HRMS stops listing;
 * - a live read (`source=hrms`) answers from the HRMS.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorFor } from '../../../src/hrms/registry';
import { DIALECT_SIMS } from '../../../src/hrms/sim/dialects';
import type { DialectSim, DialectSimFactory } from '../../../src/hrms/sim/dialect';
import { normalizeRecord } from '../../../src/domain/record';
import { maskRecord } from '../../../src/domain/masking';
import { client, connection, vendor } from '../../support/factories';
import { storesOf, dbQuery } from '../../support/db';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { storedRecords } from '../../support/stored';

const EMPLOYEES = 500;
/**
 * The throttling test's limit, on both sides (hrx's budget and the simulator's counted window):
 * one request per 500 ms (hrx's budget adds its 1 s margin). The published limits (50 to 6000 a
 * minute) never bind on a sync of a few requests; this one binds on every request after the first.
 * greytHR asks each section of each page (about 40 data requests for 500 employees), so it gets
 * a few per window to keep the run short; it still binds.
 */
const smallBudget = (hrmsId: string) => ({ requests: hrmsId === 'greythr' ? 5 : 1, windowMs: 500 });
let n = 0;

/** The ids whose stored record differs from the ground truth (at most 5), with the first difference in full. */
async function mismatches(app: TestApp, orgId: number, sim: DialectSim) {
  const stored = await storedRecords(app, orgId);
  const bad: string[] = [];
  let first: { stored: unknown; expected: unknown } | undefined;
  for (const e of sim.expected()) {
    const s = stored.get(e.employeeId);
    const expected = normalizeRecord(e, s?.record.id ?? 'missing');
    if (!s || s.removed || !isDeepStrictEqual(s.record, expected)) {
      bad.push(e.employeeId);
      first ??= { stored: s?.record, expected };
    }
  }
  const live = [...stored.values()].filter((s) => !s.removed).length;
  return { bad: bad.slice(0, 5), first, live };
}

/** What a throttling test needs of its product's suite. */
interface ThrottlingSuite {
  app: TestApp;
  hrmsId: string;
  startDialect: DialectSimFactory;
  definition: NonNullable<ReturnType<typeof connectorFor>>;
  configured: (on?: DialectSim) => Promise<{ c: Awaited<ReturnType<typeof client>> }>;
  sync: (orgId: number, trigger: 'setup' | 'schedule') => ReturnType<TestApp['ctx']['services']['sync']['run']>;
}

/**
 * Throttling is waited out, and under a small budget no window holds more requests than it
 * allows (a test of the conformance suite, here to keep its describe short).
 */
async function throttlingUnderSmallBudget({ app, hrmsId, startDialect, definition, configured, sync }: ThrottlingSuite): Promise<void> {
  // A simulator of the same employees whose limit is the small budget, and hrx's budget of this
  // product shrunk to it (the sync service reads the definition's budget at each run).
  const SMALL_BUDGET = smallBudget(hrmsId);
  const small = await startDialect({ variants: NO_PAY_HISTORY, employees: EMPLOYEES, seed: `conformance-${hrmsId}`, limit: SMALL_BUDGET });
  const published = definition.budget;
  try {
    // Set up on the usual simulator (its credential check counts in that tenant's budget, not
    // the small one's), then pointed at the small one: the same employees.
    const { c } = await configured();
    const access = small.setup();
    await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId, credentials: access.access_credentials, apiConfigs: access.api_configs });
    small.resetStats();
    small.setFaults({ rateThrottle: 0.3, throttleLockoutMs: 300 });
    definition.budget = SMALL_BUDGET;
    const started = Date.now();
    expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
    // Data requests that are not retries (each throttled answer is retried once more): a product
    // whose full listing is one request (a whole dataset in one answer) syncs again, so the budget
    // binds on first requests, not only on retries of throttled ones.
    const firstRequests = () => small.stats().requests - small.stats().tokenRequests - small.stats().throttled;
    if (firstRequests() <= SMALL_BUDGET.requests) {
      expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
    }
    const stats = small.stats();
    expect(stats.throttled).toBeGreaterThan(0);
    expect(stats.limit).toEqual(SMALL_BUDGET);
    // More first data requests than one window allows, and at least two: the budget had to hold
    // the sync back for requests that were not retries.
    expect(firstRequests()).toBeGreaterThanOrEqual(2);
    expect(firstRequests()).toBeGreaterThan(SMALL_BUDGET.requests);
    expect(stats.maxInWindow).toBeLessThanOrEqual(SMALL_BUDGET.requests);
    // Waiting, not failing: at least one full window went by.
    expect(Date.now() - started).toBeGreaterThanOrEqual(SMALL_BUDGET.windowMs);
    expect(await mismatches(app, c.org.id, small)).toEqual({ bad: [], first: undefined, live: EMPLOYEES });
  } finally {
    definition.budget = published;
    await small.close();
  }
}

/**
 * A product without incremental listing finds removals by its full syncs alone (docs/hrms/connectors.md
 * "Full and incremental syncs"): the employee the HRMS no longer lists is removed by the next one.
 */
async function fullSyncRemoves({ app, sim, configured, sync }: Pick<ThrottlingSuite, 'app' | 'configured' | 'sync'> & { sim: DialectSim }): Promise<void> {
  const { c } = await configured(sim);
  expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', kind: 'full', removed: 0 });
  const gone = sim.employeeIds()[7]!;
  sim.remove(gone);
  expect(await sync(c.org.id, 'schedule')).toMatchObject({ status: 'succeeded', kind: 'full', removed: 1 });
  expect((await storedRecords(app, c.org.id)).get(gone)?.removed).toBe(true);
  expect(await mismatches(app, c.org.id, sim)).toEqual({ bad: [], first: undefined, live: EMPLOYEES - 1 });
}

/**
 * Simulators that serve a payroll API serve no pay months here: the first full sync would backfill
 * 24 months at the product's published limit (minutes for a 50-a-minute tenant). Conformance is
 * about the employee sync; the backfill has its own suites (`sync/pay-backfill`, the products'
 * payroll suites, and the payroll block of `vendor-contract`).
 */
const NO_PAY_HISTORY = { payHistoryMonths: 0 };

/**
 * Runs `test` on a simulator of the same employees on its own port: its own HRMS tenant, so
 * its own request budget. The tests that sync an org two or three times use one: on the
 * shared simulator, the syncs of the tests before them (each full sync reads the employee
 * pages and the payroll listing) would have spent a 50-a-minute product's budget, and the
 * run would wait out a window, which is right but takes a minute.
 */
async function withOwnTenant(hrmsId: string, startDialect: DialectSimFactory, test: (own: DialectSim) => Promise<void>): Promise<void> {
  const own = await startDialect({ variants: NO_PAY_HISTORY, employees: EMPLOYEES, seed: `conformance-${hrmsId}` });
  try {
    await test(own);
  } finally {
    await own.close();
  }
}

/**
 * An incremental sync picks up a change and a removal, or, for a product whose incremental
 * listings show no removals, the next full sync does (docs/hrms/connectors.md "Full and
 * incremental syncs"), on `own`, a simulator of its own tenant.
 */
async function incrementalPicksUp({
  app,
  own,
  definition,
  configured,
  sync,
}: Pick<ThrottlingSuite, 'app' | 'definition' | 'configured' | 'sync'> & { own: DialectSim }): Promise<void> {
  const { c } = await configured(own);
  expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', kind: 'full' });
  const [changed, gone] = [own.employeeIds()[3]!, own.employeeIds()[7]!];
  own.change(changed);
  own.remove(gone);
  own.resetStats();
  const outcome = await sync(c.org.id, 'schedule');
  // A product that cannot list removals (definition.reportsRemovals false) keeps the removed
  // employee until the next full sync, which finds it (docs/hrms/connectors.md: at least daily).
  const reports = definition.reportsRemovals !== false;
  expect(outcome).toMatchObject({ status: 'succeeded', kind: 'incremental', removed: reports ? 1 : 0 });
  const stored = await storedRecords(app, c.org.id);
  expect(stored.get(gone)?.removed).toBe(reports);
  expect(await mismatches(app, c.org.id, own)).toEqual({ bad: [], first: undefined, live: EMPLOYEES - (reports ? 1 : 0) });
  expect(stored.get(changed)!.record).toEqual(
    normalizeRecord(
      own.expected().find((e) => e.employeeId === changed)!,
      stored.get(changed)!.record.id,
    ),
  );
  // Fewer requests than listing everyone again.
  expect(own.stats().requests).toBeLessThan(EMPLOYEES / 100);
  // The runs' kinds as stored (what the next run's plan reads back: the last full run's start).
  const kinds = async () => (await dbQuery(app, `select kind, status from sync_runs where org_id = $1 order by started_at, id`, [c.org.id])).rows;
  expect(await kinds()).toEqual([
    { kind: 'full', status: 'succeeded' },
    { kind: 'incremental', status: 'succeeded' },
  ]);
  if (!reports) {
    expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', kind: 'full', removed: 1 });
    expect((await storedRecords(app, c.org.id)).get(gone)?.removed).toBe(true);
    expect(await mismatches(app, c.org.id, own)).toEqual({ bad: [], first: undefined, live: EMPLOYEES - 1 });
    expect((await kinds()).map((r) => r.kind)).toEqual(['full', 'incremental', 'full']);
  }
}

for (const [hrmsId, startDialect] of DIALECT_SIMS) {
  describe(`conformance: ${hrmsId}`, () => {
    let app: TestApp;
    let sim: DialectSim;
    const definition = connectorFor(hrmsId)!;

    beforeAll(async () => {
      // No worker: each test runs the sync itself, with the trigger it needs.
      app = await startTestApp({ worker: false, env: { HRX_SYNC_BATCH_SIZE: '100', HRX_HRMS_RETRY_MIN_MS: '20' } });
      sim = await startDialect({ variants: NO_PAY_HISTORY, employees: EMPLOYEES, seed: `conformance-${hrmsId}` });
    });
    afterAll(async () => {
      await sim?.close();
      await app?.stop();
    });

    /** A client org connected to a vendor and configured on `on` (the describe's simulator) through setup-config. */
    async function configured(on: DialectSim = sim) {
      const v = await vendor(app.ctx, `Conf vendor ${++n}`);
      const c = await client(app.ctx, `Conf client ${n}`);
      await connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
      const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...on.setup() }),
      });
      expect(res.status).toBe(200);
      return { v, c };
    }
    const sync = (orgId: number, trigger: 'setup' | 'schedule') => app.ctx.services.sync.run(orgId, trigger, `conf-${hrmsId}-${++n}`);

    it('a full sync of 500 employees equals the ground truth, field by field', async () => {
      expect(definition).toBeDefined();
      const { c } = await configured();
      sim.resetStats();
      const outcome = await sync(c.org.id, 'setup');
      expect(outcome).toMatchObject({ status: 'succeeded', kind: 'full', employees: EMPLOYEES });
      expect(await mismatches(app, c.org.id, sim)).toEqual({ bad: [], first: undefined, live: EMPLOYEES });
      expect(sim.stats().maxInWindow).toBeLessThanOrEqual(sim.stats().limit.requests);
    });

    it('a live read (source=hrms) answers from the HRMS', async () => {
      const { v, c } = await configured();
      const e = sim.expected()[0]!;
      const res = await call(`${app.url}/api/employee_details/${encodeURIComponent(e.employeeId)}?org=${c.org.uuid}&vendor_org=${v.org.uuid}&source=hrms`, {
        headers: { username: v.apiKey },
      });
      expect(res.status).toBe(200);
      const { id: _id, ...data } = res.body.data;
      const { id: _x, ...want } = maskRecord(normalizeRecord(e, 'live'));
      expect(data).toEqual(want);
    });

    it('wrong credentials: refused by setup-config; gone wrong later, the configuration is marked invalid without a retry storm', async () => {
      const { c } = await configured();
      const refused = await call(`${app.url}/api/webhook/v1/setup-config/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...sim.wrongSetup() }),
      });
      expect([refused.status, refused.body.message]).toEqual([400, 'HRMS credentials rejected: the HRMS refused the credentials']);
      const wrong = sim.wrongSetup();
      await storesOf(app).hrmsConfigs.save({ orgId: c.org.id, hrmsId, credentials: wrong.access_credentials, apiConfigs: wrong.api_configs });
      sim.resetStats();
      expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'failed', reason: 'auth' });
      expect(sim.stats().requests).toBeLessThanOrEqual(3);
      const { rows } = await dbQuery(app, `select valid from hrms_configs where org_id = $1`, [c.org.id]);
      expect(rows).toEqual([{ valid: false }]);
    });

    it('throttling is waited out, and under a small budget no window holds more requests than it allows', () =>
      throttlingUnderSmallBudget({ app, hrmsId, startDialect, definition, configured, sync }));

    it('a token that expires mid-sync is refreshed: no page lost or repeated', async (t) => {
      // A product without tokens (Basic or an API key on every request) has nothing to expire.
      if (sim.issuesTokens === false) return t.skip();
      const { c } = await configured();
      // The data requests of a full sync whose token never expires: what the run below must ask
      // again, plus exactly one re-asked request per refused (expired) token.
      const dataRequests = (s: ReturnType<DialectSim['stats']>) => s.requests - s.tokenRequests;
      // The org's first full sync backfills 24 pay months where the product has a payroll API,
      // every later one 2 (docs/sync.md "Pay history"): the two syncs compared are both later ones.
      expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
      sim.resetStats();
      expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
      const clean = sim.stats();
      expect(clean.authFailures).toBe(0);
      sim.resetStats();
      sim.setFaults({ tokenExpiresAfterCalls: 2 });
      try {
        expect(await sync(c.org.id, 'setup')).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
      } finally {
        sim.setFaults({ tokenExpiresAfterCalls: 0 });
      }
      const expired = sim.stats();
      expect(expired.tokenRequests).toBeGreaterThan(1);
      expect(expired.authFailures).toBeGreaterThan(0);
      // No page lost (the records) and none asked twice (the count): a page asked again beyond the
      // one refused request would show as an extra data request.
      expect(dataRequests(expired) - expired.authFailures).toBe(dataRequests(clean));
      expect(await mismatches(app, c.org.id, sim)).toMatchObject({ bad: [], live: EMPLOYEES });
    });

    it('an incremental sync picks up a change and a removal (from the full sync where the product lists none)', async (t) => {
      if (!definition.incremental) return t.skip();
      await withOwnTenant(hrmsId, startDialect, (own) => incrementalPicksUp({ app, own, definition, configured, sync }));
    });

    it('a full sync removes an employee the HRMS stops listing (a product that lists no changes)', async (t) => {
      if (definition.incremental) return t.skip();
      await withOwnTenant(hrmsId, startDialect, (own) => fullSyncRemoves({ app, sim: own, configured, sync }));
    });
  });
}
