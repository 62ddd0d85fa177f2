/**
 * ADP Workforce Now's pay history backfill (src/hrms/adp_wfn/README.md "Pay history"):
 * `listPayMonths` against the simulator's Payroll Output API over real HTTP (the newest 24 or 2
 * months equal to the simulator's ground truth, a month with an off-cycle run summed as ADP's own
 * answers add up, rejected runs never read, requests counted, resuming from a cursor, amounts only
 * when the employer declares its payroll paid in rupees), answers hrx cannot read whole (another
 * shape: `bad_response` quoting nothing; a payment without its gross; a run of year 0000), and
 * through hrx: the first full sync backfills 24 months, a later one re-reads 2, and the pay
 * history read serves the sums.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorOptions, HrmsConnector, PayMonthEntry, PayMonthsOptions, PayMonthsPage } from '../../../src/hrms/connector';
import { product } from '../../../src/hrms/adp_wfn';
import { startAdpWfnSim, type AdpWfnSim } from '../../../src/hrms/adp_wfn/sim';
import { startCountingProxy, type CountingProxy } from '../../support/counting-proxy';
import { dbQuery } from '../../support/db';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

const fast: ConnectorOptions = { pageSize: 40, retries: 3, minRetryDelayMs: 2, maxRetryDelayMs: 200, timeoutMs: 5_000 };
const PAYROLL = 'GET /payroll/v2/payroll-output';
let sim: AdpWfnSim | undefined;
let proxy: CountingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
  sim = proxy = undefined;
});

async function start(employees: number, variants: Record<string, string | number | boolean> = {}): Promise<AdpWfnSim> {
  sim = await startAdpWfnSim({ employees, seed: 'adp_wfn-payroll', throttle: false, variants });
  proxy = await startCountingProxy(sim.url, { keepHost: true });
  return sim;
}
/** A connector through the counting proxy; `inr`: with the employer's `payroll_inr` declaration. */
function connect(s: AdpWfnSim, inr: boolean, options: ConnectorOptions = fast): HrmsConnector {
  const setup = inr ? s.setupInr() : s.setup();
  const swap = (v: string) => v.split(s.url).join(proxy!.url);
  return product.definition.create(
    {
      credentials: { ...setup.access_credentials, hrms_host: swap(setup.access_credentials.hrms_host) },
      apiConfigs: setup.api_configs.map((c) => ({ ...c, access_credentials: { ...c.access_credentials, hrms_host: swap(c.access_credentials.hrms_host) } })),
    },
    options,
  );
}
async function payMonths(connector: HrmsConnector, options: PayMonthsOptions): Promise<{ pages: PayMonthsPage[]; entries: PayMonthEntry[] }> {
  const pages: PayMonthsPage[] = [];
  for await (const page of connector.listPayMonths!(options)) pages.push(page);
  return { pages, entries: pages.flatMap((p) => p.entries) };
}
const ym = (e: PayMonthEntry) => `${e.month.year}-${String(e.month.month).padStart(2, '0')}`;
const sorted = (es: PayMonthEntry[]) => [...es].sort((a, b) => `${a.employeeId}|${ym(a)}`.localeCompare(`${b.employeeId}|${ym(b)}`));

describe('adp_wfn: payroll output backfill', () => {
  it('reads the newest 24 months on months: 24 and 2 on months: 2, one page a month, equal to the ground truth; one request per completed run', async () => {
    const s = await start(60);
    const warnings: string[] = [];
    const c = connect(s, true, { ...fast, onWarning: (w) => warnings.push(w.field) });
    const full = await payMonths(c, { months: 24 });
    expect(full.pages).toHaveLength(24);
    expect(sorted(full.entries)).toEqual(sorted(s.payMonths(24, true)));
    expect(full.entries.every((e) => typeof e.month.grossPay === 'number' && typeof e.month.netPay === 'number')).toBe(true);
    // Newest month first: December 2025 (the simulator's payroll month), back to January 2024.
    const newestFirst = Array.from({ length: 24 }, (_, k) => 2025 * 12 + 11 - k).map((t) => `${Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, '0')}`);
    expect(full.pages.map((p) => [...new Set(p.entries.map(ym))])).toEqual(newestFirst.map((m) => [m]));
    expect(proxy!.count(PAYROLL)).toBe(s.payrollRequests(24));
    expect(warnings).toEqual([]);

    const before = proxy!.count(PAYROLL);
    const late = await payMonths(c, { months: 2 });
    expect(sorted(late.entries)).toEqual(sorted(s.payMonths(2, true)));
    expect(proxy!.count(PAYROLL) - before).toBe(s.payrollRequests(2));
    // Nothing is asked on months: 0.
    expect((await payMonths(c, { months: 0 })).entries).toEqual([]);
    expect(proxy!.count(PAYROLL) - before).toBe(s.payrollRequests(2));
  });

  it("sums a month's regular and off-cycle runs as ADP's own answers add up; a rejected run is never read", async () => {
    const s = await start(20);
    const { entries } = await payMonths(connect(s, true), { months: 2 });
    // November 2025 has a bonus run on the 15th beside the regular run on the 30th.
    const listing = (await (await fetch(`${s.url}/payroll/v2/payroll-output`, { headers: { authorization: `Bearer ${await token(s)}` } })).json()) as {
      payrollOutputs: {
        itemID: string;
        payrollScheduleReference: { payrollYear: string; payrollRunNumber: string };
        payrollProcessingJobStatusCode: { codeValue: string };
      }[];
    };
    const nov = listing.payrollOutputs.filter((r) => r.payrollScheduleReference.payrollYear === '2025').slice(-3, -1);
    expect(nov.map((r) => r.payrollScheduleReference.payrollRunNumber)).toEqual(['1', '2']);
    const sums = new Map<string, { gross: number; net: number; days: string[] }>();
    for (const run of nov) {
      const url = `${s.url}/payroll/v2/payroll-output?level=pay&$filter=${encodeURIComponent(`itemID eq ${run.itemID}`)}`;
      const body = (await (await fetch(url, { headers: { authorization: `Bearer ${await token(s)}` } })).json()) as {
        payrollOutputs: { associatePayments: { associateOID: string; payments: Record<string, any>[] }[] }[];
      };
      for (const ap of body.payrollOutputs[0]!.associatePayments) {
        for (const p of ap.payments) {
          const gross = (p.paymentSummary.earnings.payrollAccumulations as Record<string, any>[]).find((a) => a.accumulatorTimeUnitCode.codeValue === 'P')!;
          const was = sums.get(ap.associateOID) ?? { gross: 0, net: 0, days: [] };
          sums.set(ap.associateOID, {
            gross: was.gross + gross.accumulatedAmount.amountValue,
            net: was.net + p.paymentAmount.amountValue,
            days: [...was.days, p.paymentDate],
          });
        }
      }
    }
    const november = entries.filter((e) => ym(e) === '2025-11');
    const twice = november.filter((e) => sums.get(e.employeeId)?.days.length === 2);
    expect(twice.length).toBeGreaterThan(0);
    for (const e of november) {
      const sum = sums.get(e.employeeId)!;
      expect(e.month.grossPay).toBeCloseTo(sum.gross, 2);
      expect(e.month.netPay).toBeCloseTo(sum.net, 2);
      expect(e.month.paidOn).toBe('2025-11-30');
    }
    // October 2025 has a rejected run (run number 3): the completed ones only are asked for.
    expect(listing.payrollOutputs.some((r) => r.payrollProcessingJobStatusCode.codeValue === 'PR-EDL')).toBe(true);
    const asked = proxy!.exchanges.filter((x) => x.url.includes('level=pay')).map((x) => decodeURIComponent(x.url.split('itemID%20eq%20')[1]!));
    const rejected = new Set(listing.payrollOutputs.filter((r) => r.payrollProcessingJobStatusCode.codeValue !== 'PR-PRC').map((r) => r.itemID));
    expect(asked.length).toBe(s.payrollRequests(2) - 1);
    expect(asked.filter((id) => rejected.has(id))).toEqual([]);
  });

  it('stores no amount without the payroll_inr declaration (ADP names no currency): month and pay day only, warned by field name', async () => {
    const s = await start(15);
    const warnings: string[] = [];
    const { entries } = await payMonths(connect(s, false, { ...fast, onWarning: (w) => warnings.push(w.field) }), { months: 3 });
    expect(sorted(entries)).toEqual(sorted(s.payMonths(3, false)));
    expect(entries.every((e) => e.month.grossPay === undefined && e.month.netPay === undefined && /^\d{4}-\d\d-\d\d$/.test(e.month.paidOn ?? ''))).toBe(true);
    expect(warnings).toEqual(['paymentAmount']);
  });

  it('resumes from any page cursor without repeating or losing a month; a cursor of a run ADP no longer lists is bad_response', async () => {
    const s = await start(10);
    const warnings: string[] = [];
    const c = connect(s, true, { ...fast, onWarning: (w) => warnings.push(w.field) });
    const whole = await payMonths(c, { months: 6 });
    expect(whole.pages).toHaveLength(6);
    for (const k of [0, 1, 3]) {
      const rest = await payMonths(c, { months: 6, cursor: whole.pages[k]!.next! });
      expect(rest.pages.map((p) => sorted(p.entries))).toEqual(whole.pages.slice(k + 1).map((p) => sorted(p.entries)));
    }
    expect(whole.pages[5]!.next).toBeUndefined();
    // A resume reads the run its cursor names again (the first run of a month not yielded): nothing to warn of.
    expect(warnings).toEqual([]);
    const foreign = Buffer.from(JSON.stringify({ r: 'bm90LWEtcnVu', n: 1, c: '2025-12', w: 'bm90LWEtcnVu' })).toString('base64url');
    await expect(payMonths(c, { months: 6, cursor: foreign })).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it('a company without payroll runs costs one request and yields nothing', async () => {
    const s = await start(5, { payHistoryMonths: 0 });
    expect((await payMonths(connect(s, true), { months: 24 })).entries).toEqual([]);
    expect(proxy!.count(PAYROLL)).toBe(1);
    expect(s.payrollRequests(24)).toBe(1);
  });
});

describe('adp_wfn: payroll output answers hrx cannot read whole', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  });
  /** A stand-in ADP on 127.0.0.1: a token, and `answers(path and query)` for the payroll output. */
  async function fake(answers: (pathAndQuery: string) => unknown): Promise<HrmsConnector> {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/auth/oauth/v2/token') return res.end(JSON.stringify({ access_token: 'fake-token', token_type: 'Bearer', expires_in: 3600 }));
      res.end(JSON.stringify(answers(req.url ?? '')));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const credentials = { hrms_host: host, grant_type: 'client_credentials', client_id: 'fake-payroll-id', client_secret: 'fake-payroll-secret' };
    return product.definition.create(
      { credentials, apiConfigs: [{ api_id: 'payroll_inr', access_credentials: { hrms_host: host, grant_type: 'client_credentials' } }] },
      { ...fast, onWarning: (w) => seen.push(w.field) },
    );
  }
  const seen: string[] = [];
  const run = {
    itemID: 'AAA+/b==',
    payrollScheduleReference: { payrollYear: '2025', payrollWeekNumber: '48', payrollRunNumber: '1' },
    payrollProcessingJobStatusCode: { codeValue: 'PR-PRC' },
  };

  it('a run listing of another shape is bad_response, quoting none of it', async () => {
    const c = await fake(() => ({ runs: 'secret-looking-value' }));
    const failure = payMonths(c, { months: 2 });
    await expect(failure).rejects.toMatchObject({ kind: 'bad_response' });
    await expect(failure).rejects.not.toThrow(/secret-looking-value/);
  });

  it('a payment without the gross of this payroll keeps its net and is warned by field name; a year 0000 run is skipped', async () => {
    seen.length = 0;
    const asked: string[] = [];
    const c = await fake((url) => {
      asked.push(url);
      if (!url.includes('level=pay'))
        return { payrollOutputs: [run, { ...run, itemID: 'ZZZ', payrollScheduleReference: { ...run.payrollScheduleReference, payrollYear: '0000' } }] };
      const payment = { paymentDate: '2025-11-28', paymentAmount: { amountValue: 812.5 }, paymentSummary: { earnings: { payrollAccumulations: [] } } };
      return { payrollOutputs: [{ ...run, associatePayments: [{ associateOID: 'G3AAAAAAAAAAAAAA', payments: [payment] }] }] };
    });
    const { entries } = await payMonths(c, { months: 2 });
    expect(entries).toEqual([{ employeeId: 'G3AAAAAAAAAAAAAA', month: { year: 2025, month: 11, paidOn: '2025-11-28', netPay: 812.5 } }]);
    expect(seen.sort()).toEqual(['payrollAccumulations', 'payrollScheduleReference']);
    expect(asked).toEqual(['/payroll/v2/payroll-output', '/payroll/v2/payroll-output?level=pay&$filter=itemID%20eq%20AAA%2B%2Fb%3D%3D']);
  });
});

/** A bearer token of the simulator, asked for as the connector does. */
async function token(s: AdpWfnSim): Promise<string> {
  const { client_id, client_secret } = s.setup().access_credentials;
  const res = await fetch(`${s.url}/auth/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client_id!, client_secret: client_secret! }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('adp_wfn: pay history through hrx', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('the first full sync backfills 24 months, a later one re-reads 2; the pay history read serves the sums', async () => {
    const s = await start(12);
    const v = await vendor(app.ctx, 'ADP payroll vendor');
    const c = await client(app.ctx, 'ADP payroll client');
    await connection(app.ctx, v.org.uuid, c.org.uuid);
    const setup = s.setupInr();
    const swap = (x: string) => x.split(s.url).join(proxy!.url);
    const body = {
      ...setup,
      access_credentials: { ...setup.access_credentials, hrms_host: swap(setup.access_credentials.hrms_host) },
      api_configs: setup.api_configs.map((a) => ({ ...a, access_credentials: { ...a.access_credentials, hrms_host: swap(a.access_credentials.hrms_host) } })),
    };
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...body }),
    });
    expect(res.status).toBe(200);
    const stored = async () => (await dbQuery(app, `select count(*)::int as n from pay_months where org_id = $1`, [c.org.id])).rows[0].n as number;

    expect(await app.ctx.services.sync.run(c.org.id, 'test', 'adp-pay-1', { full: true })).toMatchObject({ status: 'succeeded', employees: 12 });
    expect(proxy!.count(PAYROLL)).toBe(s.payrollRequests(24));
    expect(await stored()).toBe(s.payMonths(24, true).length);

    const before = proxy!.count(PAYROLL);
    expect(await app.ctx.services.sync.run(c.org.id, 'test', 'adp-pay-2', { full: true })).toMatchObject({ status: 'succeeded' });
    expect(proxy!.count(PAYROLL) - before).toBe(s.payrollRequests(2));
    expect(await stored()).toBe(s.payMonths(24, true).length);

    const truth = s.payMonths(12, true).filter((e) => e.employeeId === s.payMonths(1, true)[0]!.employeeId);
    const id = truth[0]!.employeeId;
    const read = await call(`${app.url}/api/employee_details/${id}/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
      headers: { username: v.apiKey },
    });
    expect(read.status).toBe(200);
    const months = read.body.data.months as { month: number; year: number; grossPay: number; netPay: number; paidOn: string }[];
    const want = [...truth].sort((a, b) => b.month.year * 12 + b.month.month - (a.month.year * 12 + a.month.month));
    expect(months.map((m) => [m.year, m.month, m.grossPay, m.netPay, m.paidOn])).toEqual(
      want.map((e) => [e.month.year, e.month.month, e.month.grossPay, e.month.netPay, e.month.paidOn]),
    );
  });
});
