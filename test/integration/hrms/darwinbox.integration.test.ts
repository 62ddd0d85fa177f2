/**
 * Darwinbox's quirks (the sources in src/hrms/darwinbox/README.md): the darwinbox
 * connector against the Darwinbox simulator over real HTTP on 127.0.0.1 (no mocks, no database).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsError, type ConnectorOptions, type EmployeePage, type HrmsConnector } from '../../../src/hrms/connector';
import { createDarwinboxConnector } from '../../../src/hrms/darwinbox/connector';
import { DARWINBOX_DEFINITION } from '../../../src/hrms/darwinbox/definition';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { startDarwinboxSim, type DarwinboxSim } from '../../../src/hrms/darwinbox/sim';

const fast: ConnectorOptions = { pageSize: 100, retries: 5, minRetryDelayMs: 2, maxRetryDelayMs: 40, timeoutMs: 5_000 };
let sim: DarwinboxSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(employees: number, variants: Record<string, string | number | boolean> = {}): Promise<DarwinboxSim> {
  sim = await startDarwinboxSim({ employees, seed: 'darwinbox-quirks', throttle: false, variants });
  return sim;
}
const connect = (s: DarwinboxSim, o: ConnectorOptions = fast, setup = s.setup()): HrmsConnector =>
  createDarwinboxConnector({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, o);

async function pagesOf(c: HrmsConnector, since?: Date, cursor?: string): Promise<EmployeePage[]> {
  const out: EmployeePage[] = [];
  for await (const p of c.listEmployees({ ...(since ? { since } : {}), ...(cursor ? { cursor } : {}) })) out.push(p);
  return out;
}
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => a.employeeId.localeCompare(b.employeeId));
const authError = (err: unknown) => err instanceof HrmsError && err.kind === 'auth';

describe('darwinbox: auth and setup', () => {
  it('a wrong dataset key (HTTP 200 {status: 0}) and a wrong password (401) are auth errors after one request', async () => {
    const s = await start(20);
    const good = s.setup();
    const badKey = { ...good, api_configs: [{ ...good.api_configs[0]!, access_credentials: { ...good.api_configs[0]!.access_credentials, api_key: 'nope' } }] };
    await expect(connect(s, fast, badKey).verifyCredentials()).rejects.toSatisfy(authError);
    await expect(connect(s, fast, s.wrongSetup()).verifyCredentials()).rejects.toSatisfy(authError);
    await expect(pagesOf(connect(s, fast, badKey))).rejects.toSatisfy(authError);
    expect(s.stats()).toMatchObject({ requests: 3, authFailures: 3 });
    await expect(connect(s).verifyCredentials()).resolves.toBeUndefined();
  });

  it('the 401 variant of a wrong key is an auth error too', async () => {
    const s = await start(5, { badKeyAnswer: 401 });
    const setup = s.setup();
    setup.access_credentials.api_key = 'wrong';
    await expect(connect(s, fast, setup).verifyCredentials()).rejects.toSatisfy(authError);
  });

  it('checkCredentials names the missing fields, the employees_active entry among them', () => {
    const problems = DARWINBOX_DEFINITION.checkCredentials({
      credentials: { hrms_host: 'https://acme.darwinbox.in', grant_type: 'basic', client_id: 'u' },
      apiConfigs: [],
    });
    expect(problems.map((p) => p.field)).toEqual(['access_credentials.client_secret', 'access_credentials.api_key', 'api_configs']);
    expect(problems[2]!.message).toContain('employees_active');
  });
});

describe('darwinbox: the whole dataset, streamed', () => {
  it('both datasets come back in pages of pageSize, equal to the ground truth; exited employees only from the inactive one', async () => {
    const s = await start(450);
    const pages = await pagesOf(connect(s));
    expect(pages.slice(0, -1).every((p) => p.next)).toBe(true);
    expect(pages.at(-1)!.next).toBeUndefined();
    expect(pages.every((p) => p.employees.length <= 100)).toBe(true);
    const all = pages.flatMap((p) => p.employees);
    expect(new Set(all.map((e) => e.employeeId)).size).toBe(450);
    expect(norm(all)).toEqual(norm(s.expected()));
    expect(s.calls().map((c) => c.dataset)).toEqual(['active', 'inactive']);
    const inactive = all.filter((e) => e.status !== 'Active');
    expect(inactive.length).toBeGreaterThan(10);
    expect(inactive.every((e) => e.terminationDate)).toBe(true);
  });

  it('a connection cut mid-dataset is resumed by re-requesting and skipping: nothing lost or repeated', async () => {
    const s = await start(300);
    s.breakAfter(150);
    const all = (await pagesOf(connect(s))).flatMap((p) => p.employees);
    expect(all.map((e) => e.employeeId)).toHaveLength(300);
    expect(norm(all)).toEqual(norm(s.expected()));
    expect(s.calls().filter((c) => c.dataset === 'active').length).toBe(2);
  });

  it('a cursor resumes at its dataset and offset', async () => {
    const s = await start(300);
    const first = await pagesOf(connect(s));
    const resumed = await pagesOf(connect(s), undefined, first[0]!.next);
    expect(resumed.flatMap((p) => p.employees).map((e) => e.employeeId)).toEqual(
      first
        .slice(1)
        .flatMap((p) => p.employees)
        .map((e) => e.employeeId),
    );
  });

  it('a server that takes only GET with a JSON body is asked that way', async () => {
    const s = await start(30, { methods: 'get' });
    const all = (await pagesOf(connect(s))).flatMap((p) => p.employees);
    expect(norm(all)).toEqual(norm(s.expected()));
    expect(s.calls().every((c) => c.method === 'GET')).toBe(true);
  });

  it('a response slower than the timeout is unavailable; the streamed byte cap (not the whole-body one) refuses a dataset past it', async () => {
    const s = await start(40);
    s.setFaults({ latencyMs: 600 });
    await expect(pagesOf(connect(s, { ...fast, timeoutMs: 200, retries: 0 }))).rejects.toMatchObject({ kind: 'unavailable' });
    expect((await pagesOf(connect(s, { ...fast, timeoutMs: 3_000 }))).flatMap((p) => p.employees)).toHaveLength(40);
    s.setFaults({ latencyMs: 0 });
    await expect(pagesOf(connect(s, { ...fast, maxStreamedBytes: 8_192 }))).rejects.toMatchObject({ kind: 'bad_response' });
    // The cap of answers held whole does not bound the streamed dataset (memory stays flat).
    expect((await pagesOf(connect(s, { ...fast, maxResponseBytes: 8_192 }))).flatMap((p) => p.employees)).toHaveLength(40);
  });
});

describe('darwinbox: formats and tenant-defined columns', () => {
  for (const variants of [
    { dateFormat: 'dmy-mon' },
    { dateFormat: 'dmy-slash' },
    { dateFormat: 'iso' },
    { nestedAddresses: true },
    { personalColumns: true },
    { statusWords: 'plain' },
  ] as Record<string, string | boolean>[]) {
    it(`maps the dataset with ${JSON.stringify(variants)} to the ground truth`, async () => {
      const s = await start(120, variants);
      expect(norm((await pagesOf(connect(s))).flatMap((p) => p.employees))).toEqual(norm(s.expected()));
    });
  }

  it('managers come from "Name (ID)" strings; the CEO has none', async () => {
    const s = await start(10);
    const all = (await pagesOf(connect(s))).flatMap((p) => p.employees);
    expect(all.find((e) => e.employeeId === 'EMP00001')!.manager).toBeUndefined();
    expect(all.find((e) => e.employeeId === 'EMP00002')!.manager).not.toMatch(/\(|EMP/);
  });
});

describe('darwinbox: incremental', () => {
  for (const zone of ['IST', 'UTC']) {
    it(`last_modified (dd-mm-yyyy HH:MM:SS) picks up a change whichever zone Darwinbox reads it in (${zone})`, async () => {
      const s = await start(200, { lastModifiedZone: zone });
      const since = new Date(Date.now() - 1_000);
      s.change('EMP00042');
      const pages = await pagesOf(connect(s), since);
      expect(pages.flatMap((p) => p.employees).map((e) => e.employeeId)).toEqual(['EMP00042']);
      expect(pages.flatMap((p) => p.employees)[0]!.designation).toBe('Principal Consultant 1');
      expect(s.calls().map((c) => c.lastModified)).toEqual(Array(2).fill(expect.stringMatching(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/)));
    });
  }

  it('a live read asks by employee_ids and finds an exited employee in the inactive dataset', async () => {
    const s = await start(200);
    const exited = s.expected().find((e) => e.status !== 'Active')!;
    expect(normalizeRecord((await connect(s).getEmployee(exited.employeeId))!, 'x')).toEqual(normalizeRecord(exited, 'x'));
    expect(await connect(s).getEmployee('EMP99999')).toBeNull();
  });
});
