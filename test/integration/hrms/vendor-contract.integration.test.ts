/**
 * The connectors against the vendors' own published API descriptions (docs/hrms/connectors.md
 * "The vendor's published API is the authority"): each product of the catalog that publishes a
 * description (its `publishedApi`) is run
 * against its simulator through a recording proxy (setup's credential check, a wrong key, a full
 * listing, an incremental one after a change, a live read of one employee), and EVERY request is
 * checked against the committed description (operation, path and query parameters and their
 * values, the security scheme the operation accepts, the body) and EVERY simulator answer
 * against that operation's response schema (test/support/vendor-contract.ts). A stored record
 * (the full listing's) must hold what a live read of the same employee holds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { HRMS_CATALOG } from '../../../src/hrms/catalog';
import { startBambooHrSim } from '../../../src/hrms/bamboohr/sim';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { startCountingProxy, type CountingProxy } from '../../support/counting-proxy';
import { VendorDescription } from '../../support/vendor-contract';
import { listAll } from '../../support/dialect';

const opts = { pageSize: 5, retries: 2, minRetryDelayMs: 2, maxRetryDelayMs: 50, timeoutMs: 5_000 };

/** Every product of the catalog that publishes a description (its `publishedApi`, src/hrms/product-module.ts). */
const PRODUCTS = HRMS_CATALOG.flatMap((p) => (p.publishedApi ? [{ ...p, api: p.publishedApi }] : []));
const descriptionPath = (hrmsId: string, file: string) => fileURLToPath(new URL(`../../../src/hrms/${hrmsId}/${file}`, import.meta.url));

let sim: DialectSim | undefined;
let proxy: CountingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
  sim = proxy = undefined;
});

/** The simulator's setup with every host of it pointed at the proxy instead. */
function throughProxy(setup: ReturnType<DialectSim['setup']>, from: string, to: string): ReturnType<DialectSim['setup']> {
  const swap = (v: string) => v.split(from).join(to);
  return {
    ...setup,
    access_credentials: { ...setup.access_credentials, hrms_host: swap(setup.access_credentials.hrms_host) },
    api_configs: setup.api_configs.map((c) => ({ ...c, access_credentials: { ...c.access_credentials, hrms_host: swap(c.access_credentials.hrms_host) } })),
  };
}

const byId = (rs: PartialEmployeeRecord[]) => new Map(rs.map((r) => [r.employeeId, normalizeRecord(r, 'x')]));

describe('vendor contract: each connector speaks its vendor description, each simulator answers it', () => {
  it('runs every product that publishes a description', () => {
    expect(PRODUCTS.length).toBeGreaterThanOrEqual(3);
  });

  for (const p of PRODUCTS) {
    it(`${p.hrmsId}: setup check, full and incremental sync, live read: every request and answer as described; stored = live`, async () => {
      const description = new VendorDescription(descriptionPath(p.hrmsId, p.api.file));
      sim = await p.startSim({ employees: 12, seed: `vendor-contract-${p.definition.hrmsId}`, throttle: false });
      proxy = await startCountingProxy(sim.url, { keepHost: true });
      const good = throughProxy(sim.setup(), sim.url, proxy.url);
      const wrong = throughProxy(sim.wrongSetup(), sim.url, proxy.url);
      const connector = (s = good) => p.definition.create({ credentials: s.access_credentials, apiConfigs: s.api_configs }, opts);

      await expect(connector(wrong).verifyCredentials()).rejects.toMatchObject({ kind: 'auth' });
      const refused = proxy.exchanges.splice(0);
      expect(description.checkAll(refused)).toEqual(p.api.outsideOnWrongCredentials ?? []);
      await connector().verifyCredentials();
      const full = await listAll(connector());
      expect([...byId(full.employees).keys()].sort()).toEqual(sim.employeeIds().sort());

      const since = new Date(Date.now() - 1_000);
      await new Promise((r) => setTimeout(r, 5));
      const [changed, other] = sim.employeeIds();
      sim.change(changed!);
      const incremental = await listAll(connector(), { since });
      expect(incremental.employees.map((e) => e.employeeId)).toContain(changed);

      const live = await connector().getEmployee(other!);
      expect(live).not.toBeNull();
      // The stored record (the full listing's) holds what a live read holds, value for value.
      expect(byId(full.employees).get(other!)).toEqual(normalizeRecord(live!, 'x'));
      // ... and both hold every data point the simulator's ground truth has: a field one request
      // names differently from the other (BambooHR's report aliases) is not lost from either.
      const truth = byId(sim.expected()).get(other!);
      expect(truth).toBeDefined();
      expect(byId(full.employees).get(other!)).toEqual(truth);

      const exchanges = proxy.exchanges;
      expect(exchanges.length).toBeGreaterThan(3);
      expect(description.checkAll(exchanges)).toEqual([]);
      expect(description.operations([...refused, ...exchanges])).toEqual(expect.arrayContaining([...p.api.operations]));
    });
  }
});

describe('vendor contract: the payroll operations of each product that backfills pay history', () => {
  const PAYROLL = PRODUCTS.filter((p) => p.definition.payroll);
  it('runs at least one product with a payroll source', () => {
    expect(PAYROLL.length).toBeGreaterThanOrEqual(1);
  });

  for (const p of PAYROLL) {
    it(`${p.hrmsId}: a pay history backfill, every payroll request and answer as described`, async () => {
      const description = new VendorDescription(descriptionPath(p.hrmsId, p.api.file));
      sim = await p.startSim({ employees: 30, seed: `vendor-contract-${p.hrmsId}-payroll`, throttle: false });
      proxy = await startCountingProxy(sim.url, { keepHost: true });
      const s = throughProxy(sim.setup(), sim.url, proxy.url);
      const connector = p.definition.create({ credentials: s.access_credentials, apiConfigs: s.api_configs }, opts);
      let entries = 0;
      for await (const page of connector.listPayMonths!({ months: 3 })) entries += page.entries.length;
      expect(entries).toBeGreaterThan(0);
      const exchanges = proxy.exchanges;
      // More than one page of pay months (pageSize 5 for 30 employees), so page links are followed and checked too.
      expect(exchanges.length).toBeGreaterThan(3);
      expect(description.checkAll(exchanges)).toEqual([]);
    });
  }
});

describe('vendor contract: the checker reports what a description forbids', () => {
  it("Basic auth on BambooHR's OAuth-only GET /api/v1/employees, an unknown field and an undescribed answer are reported", async () => {
    const description = new VendorDescription(descriptionPath('bamboohr', 'openapi/public.yaml'));
    sim = await startBambooHrSim({ employees: 3, seed: 'vendor-contract-checker', throttle: false });
    proxy = await startCountingProxy(sim.url);
    const key = sim.setup().access_credentials.api_key!;
    const basic = `Basic ${Buffer.from(`${key}:x`).toString('base64')}`;
    await fetch(`${proxy.url}/api/v1/employees?fields=status,dateOfBirth&page%5Blimit%5D=1`, { headers: { authorization: basic, accept: 'application/json' } });
    await fetch(`${proxy.url}/api/v1/employees/1?fields=firstName`, { headers: { authorization: basic, accept: 'application/json' } });
    const [listed, read] = proxy.exchanges.sort((a, b) => a.url.length - b.url.length).reverse();
    const problems = description.check(listed!);
    expect(problems).toContain('GET /api/v1/employees: security: sent HTTP Basic, the operation accepts only oauth');
    expect(problems.some((x) => x.startsWith('GET /api/v1/employees: query parameter `fields`') && x.includes('dateOfBirth'))).toBe(true);
    // The same key on an operation that accepts Basic is not reported.
    expect(description.check(read!).filter((x) => x.includes('security'))).toEqual([]);
    // A request the description has no operation for, and an answer status it does not describe.
    expect(description.check({ ...read!, method: 'DELETE' })).toEqual(['DELETE /api/v1/employees/1: no operation in the description']);
    expect(description.check({ ...read!, status: 204 })).toContain(
      'GET /api/v1/employees/1: answer status 204 is not described (described: 200, 400, 403, 404)',
    );
  });
});
