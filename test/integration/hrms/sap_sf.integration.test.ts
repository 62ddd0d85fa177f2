/**
 * SAP SuccessFactors' own behaviour (src/hrms/sap_sf/README.md; SAP's descriptions as
 * src/hrms/sap_sf/openapi/rules.yaml encodes them): the sap_sf connector against its simulator
 * over real HTTP on 127.0.0.1 (no mocks, no database). Server-side snapshot paging through `__next`, the two
 * requests a page (persons, then their employments), exited employees, live reads, the OData
 * error body, throttling, and an API server that answers HTML. Each request checked against the
 * description: vendor-contract.integration.test.ts; through hrx: conformance.integration.test.ts.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { HrmsError, type ConnectorOptions, type HrmsConnector } from '../../../src/hrms/connector';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { product } from '../../../src/hrms/sap_sf';
import { startSapSfSim } from '../../../src/hrms/sap_sf/sim';
import { rejectionReason } from '../../../src/setup/service';
import { listAll } from '../../support/dialect';

const fast: ConnectorOptions = { pageSize: 40, retries: 3, minRetryDelayMs: 2, maxRetryDelayMs: 2_000, timeoutMs: 5_000 };
let sim: DialectSim | undefined;
let html: Server | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  html?.close();
  html = undefined;
});

async function start(employees: number, variants: Record<string, string | number | boolean> = {}): Promise<DialectSim> {
  sim = await startSapSfSim({ employees, seed: 'sap_sf', throttle: false, variants });
  return sim;
}
const connect = (s: DialectSim, o: ConnectorOptions = fast, setup = s.setup()): HrmsConnector =>
  product.definition.create({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, o);
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => a.employeeId.localeCompare(b.employeeId));
const pageSize = (max: number) => Math.min(max, fast.pageSize!);

describe('sap_sf: listing', () => {
  it('lists every person in snapshot pages through __next with their employments, equal to the ground truth; two requests a page', async () => {
    const s = await start(90);
    const { pages, employees } = await listAll(connect(s));
    expect(pages.map((p) => p.employees.length)).toEqual([40, 40, 10]);
    expect(pages.map((p) => typeof p.next)).toEqual(['string', 'string', 'undefined']);
    expect(norm(employees)).toEqual(norm(s.expected()));
    expect(s.stats().requests).toBe(6);
    expect(await product.minSyncRequests!(s, pageSize)).toBe(6);
  });

  it('a count that is a multiple of the page ends without an empty page (the last answer has no __next), as minSyncRequests counts', async () => {
    const s = await start(80);
    const { pages, employees } = await listAll(connect(s));
    expect(pages.map((p) => p.employees.length)).toEqual([40, 40]);
    expect(employees).toHaveLength(80);
    expect(s.stats().requests).toBe(4);
    expect(await product.minSyncRequests!(s, pageSize)).toBe(4);
  });

  it('the snapshot is fixed at the first page: persons deleted mid-listing shift nothing, every other person is listed exactly once', async () => {
    const s = await start(120);
    const ids = s.employeeIds();
    const seen: string[] = [];
    let pages = 0;
    for await (const page of connect(s).listEmployees()) {
      seen.push(...page.employees.map((e) => e.employeeId));
      // After the first page: two persons already listed are deleted (under $top/$skip the next
      // page would start two persons late and skip two), and one not yet reached.
      if (++pages === 1) for (const id of [ids[0]!, ids[1]!, ids[100]!]) s.remove(id);
    }
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(ids.filter((id) => id !== ids[100]));
    expect(norm(s.expected().filter((e) => seen.includes(e.employeeId)))).toHaveLength(117);
  });

  it('exited employees are listed: endDate is their terminationDate, status Inactive; the others are Active without one', async () => {
    const s = await start(300);
    const { employees } = await listAll(connect(s, { ...fast, pageSize: 100 }));
    const left = employees.filter((e) => e.status === 'Inactive');
    expect(left.length).toBeGreaterThan(5);
    expect(left.every((e) => typeof e.terminationDate === 'string' && e.terminationDate <= new Date().toISOString().slice(0, 10))).toBe(true);
    expect(employees.filter((e) => e.status === 'Active').length).toBeGreaterThan(200);
    expect(norm(employees)).toEqual(norm(s.expected()));
  });

  it('a person hired mid-listing is in no page of the snapshot and none is repeated; the next full sync lists them', async () => {
    const s = await startSapSfSim({ employees: 90, seed: 'sap_sf', throttle: false, variants: { pending: 10 } });
    sim = s;
    const before = s.employeeIds();
    expect(before).toHaveLength(80);
    const seen: string[] = [];
    let hired = '';
    for await (const page of connect(s).listEmployees()) {
      seen.push(...page.employees.map((e) => e.employeeId));
      if (!hired) hired = s.hire();
    }
    expect(seen).toEqual(before);
    expect(s.employeeIds()).toContain(hired);
    const again = (await listAll(connect(s))).employees.map((e) => e.employeeId);
    expect(again).toEqual([...before, hired].sort());
    expect(norm((await listAll(connect(s))).employees)).toEqual(norm(s.expected()));
  });

  it('resumes at its cursor (the __next link); a cursor it did not make, or a link off hrms_host or off PerPerson, is refused', async () => {
    const s = await start(100);
    const first = await listAll(connect(s));
    const cursor = first.pages[1]!.next!;
    const { employees } = await listAll(connect(s), { cursor });
    expect(employees.map((e) => e.employeeId)).toEqual(s.employeeIds().slice(80));
    for (const bad of ['page:2', 'person:80', 'changes:40']) {
      await expect(listAll(connect(s), { cursor: bad })).rejects.toMatchObject({
        kind: 'bad_response',
        message: 'not a cursor of the SAP SuccessFactors connector',
      });
    }
    const link = (next: string) => Buffer.from(JSON.stringify({ next })).toString('base64url');
    s.resetStats();
    await expect(listAll(connect(s), { cursor: link('https://evil.example/odata/v2/PerPerson?$skiptoken=x') })).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'HRMS pointed to another host',
    });
    await expect(listAll(connect(s), { cursor: link(`${s.url}/odata/v2/EmpEmployment?$skiptoken=x`) })).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'HRMS pointed to another resource',
    });
    expect(s.stats().requests).toBe(0);
  });

  it("an answer's __next on another host is bad_response: hrx never follows it", async () => {
    html = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ d: { results: [], __next: 'http://other.example/odata/v2/PerPerson?$skiptoken=x' } })),
    );
    html.listen(0, '127.0.0.1');
    await once(html, 'listening');
    const s = await start(1);
    const setup = s.setup();
    setup.access_credentials.hrms_host = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
    await expect(listAll(connect(s, fast, setup))).rejects.toMatchObject({ kind: 'bad_response', message: 'HRMS pointed to another host' });
  });

  it('a live read is PerPerson by key and its employment; an unknown id is null, an id no key can be is null without a request', async () => {
    const s = await start(20);
    const [, second] = s.employeeIds();
    expect(normalizeRecord((await connect(s).getEmployee(second!))!, 'x')).toEqual(normalizeRecord(s.expected()[1]!, 'x'));
    s.resetStats();
    expect(await connect(s).getEmployee('EMP99999')).toBeNull();
    expect(s.stats().requests).toBe(1);
    s.resetStats();
    expect(await connect(s).getEmployee('x'.repeat(33))).toBeNull();
    expect(await connect(s).getEmployee(' ')).toBeNull();
    expect(await connect(s).getEmployee(` ${second!}`)).toBeNull();
    expect(await connect(s).getEmployee(`${second!}\u0000`)).toBeNull();
    expect(s.stats().requests).toBe(0);
  });
});

describe('sap_sf: changes', () => {
  it("lists the persons whose PerPhone or EmpJob changed (PerPerson's own stamp does not move); a deleted one waits for a full sync", async () => {
    const s = await start(300);
    const since = new Date(Date.now() - 1_000);
    s.change('EMP00007');
    s.change('EMP00250');
    s.remove('EMP00009');
    s.resetStats();
    const { pages, employees } = await listAll(connect(s), { since });
    expect(pages.flatMap((p) => p.removedIds ?? [])).toEqual([]);
    expect(norm(employees)).toEqual(norm(s.expected().filter((e) => ['EMP00007', 'EMP00250'].includes(e.employeeId))));
    // Two change lists (PerPerson with its navigations, EmpEmployment with its jobs), then one page: persons and employments.
    expect(s.stats().requests).toBe(4);
    expect(product.definition).toMatchObject({ incremental: true, reportsRemovals: false });
  });

  it('nothing changed: one empty page after the two change lists; more changes than a page are paged and resumable', async () => {
    const s = await start(120);
    expect((await listAll(connect(s), { since: new Date() })).pages).toEqual([{ employees: [] }]);
    expect(s.stats().requests).toBe(2);
    const since = new Date(Date.now() - 1_000);
    const changed = s.employeeIds().slice(10, 100);
    for (const id of changed) s.change(id);
    const first = (await listAll(connect(s))).pages[0]!.next!;
    const { pages, employees } = await listAll(connect(s), { since });
    expect(pages.map((p) => [p.employees.length, p.next])).toEqual([
      [40, 'changes:40'],
      [40, 'changes:80'],
      [10, undefined],
    ]);
    expect(employees.map((e) => e.employeeId)).toEqual(changed);
    expect((await listAll(connect(s), { since, cursor: 'changes:80' })).employees.map((e) => e.employeeId)).toEqual(changed.slice(80));
    await expect(listAll(connect(s), { since, cursor: first })).rejects.toMatchObject({ kind: 'bad_response' });
  });
});

describe('sap_sf: bad input', () => {
  it('a wrong password is an auth error after one request, never retried, quoting no secret', async () => {
    const s = await start(5);
    const wrong = s.wrongSetup();
    const err = await connect(s, fast, wrong)
      .verifyCredentials()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HrmsError);
    expect(err).toMatchObject({ kind: 'auth', status: 401 });
    expect(String((err as Error).message)).not.toContain(wrong.access_credentials.client_secret!);
    expect(rejectionReason(err)).toBe('the HRMS refused the credentials');
    expect(s.stats()).toMatchObject({ requests: 1, authFailures: 1 });
  });

  it("SAP's OData error body: a 5xx is named by setup-config's check (no retry there), and retried by a sync", async () => {
    const s = await start(30);
    s.setFaults({ rate5xx: 1 });
    const auth = `Basic ${Buffer.from('hrx_api@ACMEINDIA:sf-sim-password-7c2e').toString('base64')}`;
    const res = await fetch(`${s.url}/odata/v2/PerPerson?$top=1`, { headers: { accept: 'application/json', authorization: auth } });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'COE_GENERAL_SERVER_FAILURE', message: 'Internal server error' } });
    const err = await connect(s, { ...fast, retries: 0 })
      .verifyCredentials()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unavailable', status: 500 });
    expect(rejectionReason(err)).toBe('the HRMS answered 500 Internal Server Error');
    s.setFaults({ rate5xx: 0.3 });
    expect(norm((await listAll(connect(s, { ...fast, retries: 8 }))).employees)).toEqual(norm(s.expected()));
  });

  it('a property the API user may not read is left out (and is a 400 with the OData error body when selected): that field stays empty', async () => {
    const s = await start(30, { hidden: 'dateOfBirth' });
    const auth = `Basic ${Buffer.from('hrx_api@ACMEINDIA:sf-sim-password-7c2e').toString('base64')}`;
    const res = await fetch(`${s.url}/odata/v2/PerPerson?$select=dateOfBirth`, { headers: { accept: 'application/json', authorization: auth } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'COE_PROPERTY_NOT_FOUND', message: '[COE0021]Invalid property names: PerPerson/dateOfBirth.' } });
    const { employees } = await listAll(connect(s));
    expect(employees.every((e) => e.dob === undefined)).toBe(true);
    expect(norm(employees)).toEqual(norm(s.expected()));
  });

  it('a 429 with Retry-After is waited out: the listing completes', async () => {
    const s = await start(120, { retryAfterSec: 1 });
    s.setFaults({ rateThrottle: 0.3 });
    const t0 = Date.now();
    const { employees } = await listAll(connect(s, { ...fast, retries: 8 }));
    expect(norm(employees)).toEqual(norm(s.expected()));
    expect(s.stats().throttled).toBeGreaterThanOrEqual(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000 * s.stats().throttled - 100);
  });

  it('an hrms_host that answers HTML (the sign-in site, not the API server) is a clear setup-config error, never a crash', async () => {
    html = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><html><body>Log in</body></html>'));
    html.listen(0, '127.0.0.1');
    await once(html, 'listening');
    const s = await start(1);
    const setup = s.setup();
    setup.access_credentials.hrms_host = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
    const err = await connect(s, fast, setup)
      .verifyCredentials()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'bad_response', status: 200 });
    expect(rejectionReason(err)).toBe('the HRMS answered 200 OK with a body hrx could not read');
  });

  it('the simulator answers Atom XML unless JSON is asked, as the API does; the connector asks for JSON', async () => {
    const s = await start(3);
    const res = await fetch(`${s.url}/odata/v2/PerPerson?$top=1`, {
      headers: { authorization: `Basic ${Buffer.from('hrx_api@ACMEINDIA:sf-sim-password-7c2e').toString('base64')}` },
    });
    expect(res.headers.get('content-type')).toBe('application/atom+xml');
    expect((await listAll(connect(s))).employees).toHaveLength(3);
  });

  it('setup-config names each missing field; one budget per company on a shared API server', () => {
    const d = product.definition;
    expect(d.checkCredentials({ credentials: { hrms_host: 'https://api4.successfactors.com', grant_type: 'api_key' }, apiConfigs: [] })).toEqual([
      { field: 'access_credentials.grant_type', message: 'must be basic or saml2_bearer for sap_sf' },
      { field: 'access_credentials.client_id', message: 'required for sap_sf' },
      { field: 'access_credentials.api_key', message: 'required for sap_sf' },
      { field: 'access_credentials.client_secret', message: 'required for sap_sf' },
    ]);
    const tenant = (company: string) =>
      d.tenantOf({
        credentials: { hrms_host: 'https://api4.successfactors.com/', grant_type: 'basic', client_id: company, api_key: 'u', client_secret: 'p' },
        apiConfigs: [],
      });
    expect(tenant('ACME')).toBe('https://api4.successfactors.com#ACME');
    expect(tenant('ACME')).not.toBe(tenant('OTHERCO'));
  });
});
