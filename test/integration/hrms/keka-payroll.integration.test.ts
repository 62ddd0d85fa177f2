/**
 * Keka's pay history backfill (src/hrms/keka/README.md "Pay history"): `listPayMonths` against the
 * Keka simulator's pay groups, pay cycles and pay registers over real HTTP: the newest 24 or 2
 * finalized months equal to the simulator's ground truth, the requests counted at the simulator,
 * Keka's 50 requests a window never exceeded through the budget, a 429 of the pay register
 * waited out, resuming from a cursor, and a malformed answer refused without quoting it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectorOptions, HrmsConnector, PayMonthEntry, PayMonthsOptions, PayMonthsPage } from '../../../src/hrms/connector';
import { createKekaConnector } from '../../../src/hrms/keka/connector';
import { KEKA_DEFINITION } from '../../../src/hrms/keka/definition';
import { KekaSim } from '../../../src/hrms/keka/sim/server';
import type { DialectSimOptions } from '../../../src/hrms/sim/dialect';
import { startCountingProxy, type CountingProxy } from '../../support/counting-proxy';
import { WindowBudget } from '../../support/dialect';

const sims: KekaSim[] = [];
let proxy: CountingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function start(opts: Partial<DialectSimOptions> = {}): Promise<KekaSim> {
  const sim = await new KekaSim({ employees: 250, seed: 'keka-payroll', throttle: false, ...opts }).listen();
  sims.push(sim);
  return sim;
}
const fast: ConnectorOptions = { retries: 8, minRetryDelayMs: 5, maxRetryDelayMs: 2_000, timeoutMs: 5_000 };
function connect(sim: KekaSim, options: ConnectorOptions = {}, host = sim.url): HrmsConnector {
  const s = sim.setup();
  const swap = (v: string) => v.split(sim.url).join(host);
  return createKekaConnector(
    {
      credentials: { ...s.access_credentials, hrms_host: swap(s.access_credentials.hrms_host) },
      apiConfigs: s.api_configs.map((c) => ({ ...c, access_credentials: { ...c.access_credentials, hrms_host: swap(c.access_credentials.hrms_host) } })),
    },
    { ...fast, ...options },
  );
}
async function payMonths(connector: HrmsConnector, options: PayMonthsOptions): Promise<{ pages: PayMonthsPage[]; entries: PayMonthEntry[] }> {
  const pages: PayMonthsPage[] = [];
  for await (const page of connector.listPayMonths!(options)) pages.push(page);
  return { pages, entries: pages.flatMap((p) => p.entries) };
}
const key = (e: PayMonthEntry) => `${e.employeeId}|${e.month.year}-${String(e.month.month).padStart(2, '0')}`;
const sorted = (es: PayMonthEntry[]) => [...es].sort((a, b) => key(a).localeCompare(key(b)));
const monthsOf = (es: PayMonthEntry[]) => [...new Set(es.map((e) => `${e.month.year}-${String(e.month.month).padStart(2, '0')}`))].sort().reverse();
/** Data requests a backfill of `expected` needs at `pageSize`: pay groups, pay cycles, and each month's register pages. */
function requestsFor(expected: PayMonthEntry[], pageSize: number, groups = 1): number {
  const perMonth = new Map<string, number>();
  for (const e of expected) perMonth.set(`${e.month.year}-${e.month.month}`, (perMonth.get(`${e.month.year}-${e.month.month}`) ?? 0) + 1);
  return 1 + groups + [...perMonth.values()].reduce((n, rows) => n + Math.ceil(rows / (pageSize * groups)) * groups, 0);
}

describe('Keka pay register backfill', () => {
  it('reads the newest 24 finalized months on months: 24 and 2 on months: 2, equal to the ground truth, requests counted', async () => {
    const sim = await start();
    const full = await payMonths(connect(sim, { pageSize: 100 }), { months: 24 });
    const truth = sim.expectedPayMonths(24);
    expect(monthsOf(full.entries)).toHaveLength(24);
    expect(monthsOf(full.entries)[0]).toBe('2025-12');
    expect(monthsOf(full.entries)[23]).toBe('2024-01');
    expect(new Set(full.entries.map(key)).size).toBe(full.entries.length);
    expect(sorted(full.entries)).toEqual(sorted(truth));
    // Pay follows the current salary: the newest month is the canonical monthly gross, earlier years lower.
    const one = truth.find((e) => e.month.year === 2025 && e.month.month === 12)!;
    const yearBefore = truth.find((e) => e.employeeId === one.employeeId && e.month.year === 2024 && e.month.month === 12)!;
    expect(yearBefore.month.grossPay!).toBeLessThan(one.month.grossPay!);
    expect(sim.stats()).toMatchObject({ tokenRequests: 1, requests: 1 + requestsFor(truth, 100) });

    sim.resetStats();
    const later = await payMonths(connect(sim, { pageSize: 200 }), { months: 2 });
    expect(monthsOf(later.entries)).toEqual(['2025-12', '2025-11']);
    expect(sorted(later.entries)).toEqual(sorted(sim.expectedPayMonths(2)));
    expect(sim.stats().requests - sim.stats().tokenRequests).toBe(requestsFor(sim.expectedPayMonths(2), 200));
  });

  it('reads every pay group, whatever order Keka lists cycles in, and reads nothing on months: 0', async () => {
    const sim = await start({ employees: 120, variants: { payGroups: 2, cycleOrder: 'newest' } });
    const got = await payMonths(connect(sim, { pageSize: 50 }), { months: 3 });
    expect(sorted(got.entries)).toEqual(sorted(sim.expectedPayMonths(3)));
    expect(new Set(got.entries.map((e) => Number(e.employeeId.slice(3)) % 2))).toEqual(new Set([0, 1]));
    sim.resetStats();
    expect((await payMonths(connect(sim), { months: 0 })).entries).toEqual([]);
    expect(sim.stats().requests).toBe(0);
  });

  it("never sends more than Keka's 50 requests within a window through the budget, never throttled", async () => {
    const { requests } = KEKA_DEFINITION.budget;
    expect(KEKA_DEFINITION.budget).toEqual({ requests: 50, windowMs: 60_000 });
    // Keka's 50 requests, in a window shortened from 60 s to 1 s so the run needs three windows.
    const sim = await start({ employees: 150, throttle: true, limit: { requests, windowMs: 1_000 } });
    const budget = new WindowBudget(requests, 1_000);
    const got = await payMonths(connect(sim, { pageSize: 20, budget }), { months: 24 });
    expect(sorted(got.entries)).toEqual(sorted(sim.expectedPayMonths(24)));
    expect(sim.stats().requests).toBeGreaterThan(2 * requests);
    expect(sim.stats().maxInWindow).toBeLessThanOrEqual(requests);
    expect(sim.stats().throttled).toBe(0);
    expect(budget.takes, 'every request, the token one too, took the budget').toBe(sim.stats().requests);
  });

  it('waits out a 429 of the pay register on the budget and carries on, losing and repeating nothing', async () => {
    const sim = await start({ employees: 60, throttle: true, variants: { limit: 4, windowMs: 400, retryAfter: true } });
    proxy = await startCountingProxy(sim.url, { keepHost: true });
    const budget = new WindowBudget(1_000, 1_000);
    const got = await payMonths(connect(sim, { pageSize: 20, budget }, proxy.url), { months: 4 });
    expect(sorted(got.entries)).toEqual(sorted(sim.expectedPayMonths(4)));
    const throttledRegister = proxy.exchanges.filter((x) => x.status === 429 && x.url.includes('/payregister'));
    expect(throttledRegister.length).toBeGreaterThan(0);
    expect(JSON.parse(throttledRegister[0]!.responseBody.toString())).toMatchObject({ errors: ['rateLimitExceeded'] });
    // Each 429's Retry-After held the whole tenant off, so no worker asked again before it.
    expect(budget.holds.length).toBeGreaterThanOrEqual(throttledRegister.length);
    expect(budget.holds.every((ms) => ms === 1_000)).toBe(true);
  });

  it('resumes from a cursor mid-register and at a cycle boundary without repeating or losing a month', async () => {
    const sim = await start({ employees: 90 });
    const iter = connect(sim, { pageSize: 40 }).listPayMonths!({ months: 3 })[Symbol.asyncIterator]();
    const first = (await iter.next()).value as PayMonthsPage;
    const second = (await iter.next()).value as PayMonthsPage;
    const rest = await payMonths(connect(sim, { pageSize: 40 }), { months: 3, cursor: first.next! });
    expect(sorted([...first.entries, ...rest.entries])).toEqual(sorted(sim.expectedPayMonths(3)));
    const fromSecond = await payMonths(connect(sim, { pageSize: 40 }), { months: 3, cursor: second.next! });
    expect(fromSecond.entries.length + first.entries.length + second.entries.length).toBe(sim.expectedPayMonths(3).length);
    expect(rest.pages.at(-1)!.next).toBeUndefined();
    await expect(payMonths(connect(sim), { months: 3, cursor: 'bm90IGEgY3Vyc29y' })).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it('stops when the sync cancels: a backfill waiting for its budget ends with the abort, asking nothing more', async () => {
    const sim = await start({ employees: 60 });
    const abort = new AbortController();
    // Token, pay groups, two pages of pay cycles and the first register page use the whole budget of the window.
    const budget = new WindowBudget(5, 60_000);
    const iter = connect(sim, { pageSize: 20, budget, signal: abort.signal }).listPayMonths!({ months: 6 })[Symbol.asyncIterator]();
    await iter.next();
    const sent = sim.stats().requests;
    const pending = iter.next();
    setTimeout(() => abort.abort(), 50);
    await expect(pending).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toBe(5);
    expect(sim.stats().requests).toBe(sent);
  });

  it('guesses no month: without cycleMonthName every row is skipped with a warning naming the field', async () => {
    const sim = await start({ employees: 10, variants: { cycleMonthName: false } });
    const warnings: { field: string; reason: string }[] = [];
    const got = await payMonths(connect(sim, { onWarning: (w) => warnings.push(w) }), { months: 2 });
    expect(got.entries).toEqual([]);
    expect(warnings.map((w) => w.field)).toEqual(['cycleMonthName']);
  });
});

describe('Keka pay register: malformed answers', () => {
  /** A broken Keka: one pay group, one finalized cycle, and `register` as the pay register's body. */
  async function brokenRegister(register: string, run: (c: (o?: ConnectorOptions) => HrmsConnector) => Promise<void>): Promise<void> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      const body =
        path === '/connect/token'
          ? JSON.stringify({ access_token: 't', expires_in: 60 })
          : path.endsWith('/payregister')
            ? register
            : JSON.stringify({
                succeeded: true,
                data: path.endsWith('/paycycles') ? [{ identifier: 'c1', endDate: '2025-12-31T00:00:00+05:30' }] : [{ identifier: 'g1' }],
                nextPage: null,
              });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await run((o = {}) =>
        createKekaConnector(
          {
            credentials: { hrms_host: host, grant_type: 'kekaapi', client_id: 'c', client_secret: `s-${host}`, api_key: 'k' },
            apiConfigs: [{ api_id: 'token', access_credentials: { hrms_host: host, grant_type: 'kekaapi' } }],
          },
          { ...fast, retries: 1, ...o },
        ),
      );
    } finally {
      server.close();
    }
  }
  const secret = 'ABCPE1234F-9876543.21';

  for (const [what, register] of [
    ['data not a list', JSON.stringify({ succeeded: true, data: secret })],
    ['a row not an object', JSON.stringify({ succeeded: true, data: [secret], nextPage: null })],
    ['not JSON', `<html>${secret}</html>`],
    ['succeeded false', JSON.stringify({ succeeded: false, message: secret, data: [] })],
  ] as const) {
    it(`${what}: HrmsError bad_response naming no value`, async () => {
      await brokenRegister(register, async (c) => {
        const err = await payMonths(c(), { months: 1 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ name: 'HrmsError', kind: 'bad_response' });
        expect((err as Error).message).not.toContain(secret);
        expect((err as Error).message).not.toContain('ABCPE');
      });
    });
  }

  it('follows a pay register page link only on the Keka host (the token never goes elsewhere)', async () => {
    const row = { employeeNumber: 'EMP00001', cycleMonthName: 'December', cycleYear: 2025, grossAmount: 1000 };
    const register = {
      succeeded: true,
      data: [row],
      pageNumber: 1,
      totalPages: 2,
      nextPage: 'http://evil.invalid/api/v1/payroll/paygroups/g1/paycycles/c1/payregister?pageNumber=2',
    };
    await brokenRegister(JSON.stringify(register), async (c) => {
      await expect(payMonths(c(), { months: 1 })).rejects.toMatchObject({ kind: 'bad_response', message: 'HRMS pointed to another host' });
    });
  });

  it('a money field that is not a number is left out with a warning naming the field, never the value', async () => {
    const row = { employeeNumber: 'EMP00001', cycleMonthName: 'December', cycleYear: 2025, grossAmount: secret, netAmount: 1000 };
    await brokenRegister(JSON.stringify({ succeeded: true, data: [row], nextPage: null }), async (c) => {
      const warnings: { field: string; reason: string }[] = [];
      const got = await payMonths(c({ onWarning: (w) => warnings.push(w) }), { months: 1 });
      expect(got.entries).toEqual([{ employeeId: 'EMP00001', month: { month: 12, year: 2025, netPay: 1000 } }]);
      expect(warnings).toEqual([{ field: 'grossAmount', reason: 'not a number: left empty' }]);
      expect(JSON.stringify(warnings)).not.toContain('ABCPE');
    });
  });
});
