/**
 * End to end (docs/cli.md "Typical session"): orgs and a connection made with the CLI, setup-config pointing at a
 * running reference HRMS simulator, the sync, then every employee read through the API and
 * compared field by field with what the simulator served, after normalization and masking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskRecord } from '../../../src/domain/masking';
import { normalizeRecord, NOT_AVAILABLE } from '../../../src/domain/record';
import { mapEmployee } from '../../../src/hrms/reference/mapping';
import type { NativeEmployee } from '../../../src/hrms/sim/data';
import { ormQuery } from '../../support/db';
import { hrxJson } from '../../support/cli';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

const EMPLOYEES = 60;

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const simCreds = { clientId: 'e2e-client', clientSecret: 'e2e-secret-value' };
let vendor: { uuid: string; api_key: string };
let client: { id: number; uuid: string; app_key: string; app_secret: string };
let native: NativeEmployee[];

beforeAll(async () => {
  app = await startTestApp();
  sim = await startSim({ employees: EMPLOYEES, seed: 'e2e', ...simCreds });
  const v = await hrxJson(['org', 'create', '--name', 'Lender One', '--vendor'], app.env);
  const c = await hrxJson(['org', 'create', '--name', 'Employer One', '--client', '--domain', 'employer.example'], app.env);
  expect(Object.keys(v).sort()).toEqual(['app_key', 'app_secret', 'id', 'org_name', 'uuid']);
  const key = await hrxJson(['apikey', 'create', '--org', v.uuid], app.env);
  expect(key.api_key).toMatch(/^hrx_[A-Za-z0-9_-]{43}$/);
  const conn = await hrxJson(['connection', 'create', '--vendor', v.uuid, '--client', c.uuid, '--no-consent-required', '--sync-frequency', 'hourly'], app.env);
  expect(conn.status).toBe('approved');
  vendor = { uuid: v.uuid, api_key: key.api_key };
  client = c;
  const pages = await fetch(`${sim.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: simCreds.clientId, client_secret: simCreds.clientSecret }),
  })
    .then((r) => r.json() as Promise<{ access_token: string }>)
    .then((t) => fetch(`${sim.url}/api/v1/employees?page=1&per_page=500`, { headers: { authorization: `Bearer ${t.access_token}` } }))
    .then((r) => r.json() as Promise<{ employees: NativeEmployee[] }>);
  native = pages.employees;
  expect(native).toHaveLength(EMPLOYEES);
});

afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const read = (id: string) =>
  call(`${app.url}/api/employee_details/${id}?org=${client.uuid}&vendor_org=${vendor.uuid}`, {
    headers: { username: vendor.api_key },
  });

describe('end to end: CLI, setup-config, sync, read', () => {
  it('setup-config answers with the configuration, never the credentials', async () => {
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: client.app_key,
        client_secret: client.app_secret,
        hrms_id: 'reference',
        access_credentials: {
          client_id: simCreds.clientId,
          client_secret: simCreds.clientSecret,
          api_key: '',
          grant_type: 'client_credentials',
          hrms_host: sim.url,
        },
        api_configs: [],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    expect(res.body.data).toMatchObject({ org_id: client.uuid, hrms_id: 'reference', configured_apis: ['employees'] });
    expect(JSON.stringify(res.body)).not.toContain(simCreds.clientSecret);
    // Stored encrypted, bound to the org.
    const [hrmsConfig] = await ormQuery<{ credentials_enc: string }>(app, `select credentials_enc from hrms_configs where org_id = ?`, [client.id]);
    expect(hrmsConfig!.credentials_enc).toMatch(/^v1\./);
    expect(hrmsConfig!.credentials_enc).not.toContain(simCreds.clientSecret);
    // The org's job scheduler runs on its connections' most frequent sync_frequency (hourly).
    const scheduler = await app.ctx.syncQueue.queue.getJobScheduler(`sync-org-${client.id}`);
    expect(scheduler?.every).toBe(3_600_000);
  });

  it('syncs every employee and serves each one masked, field for field', async () => {
    await waitFor(async () => (await read(`EMP${String(EMPLOYEES).padStart(5, '0')}`)).status === 200, 60_000);
    for (const n of native) {
      const res = await read(n.employee_code);
      expect(res.status, n.employee_code).toBe(200);
      expect(res.body.message).toBe('success');
      const got = res.body.data;
      const expected = maskRecord(normalizeRecord(mapEmployee(n), got.id));
      expect(got).toEqual(expected);
      // Independent checks of the normalization, not through the mapping code.
      expect(got.employeeId).toBe(n.employee_code);
      expect(got.name).toBe([n.first_name, n.middle_name, n.last_name].filter((s) => s && s.trim()).join(' '));
      const [d, m, y] = n.date_of_joining.split('/');
      expect(got.doj).toBe(`${y}-${m}-${d}`);
      expect(got.pan).toBe('*'.repeat(n.pan_number.length));
      expect(got.aadhar).toBe('*'.repeat(n.aadhaar_number.replace(/\D/g, '').length));
      expect(got.email).toBe(n.official_email);
      expect(got.bankDetails.accountNumber).toBe(n.bank ? '*'.repeat(n.bank.account_number.length) : NOT_AVAILABLE);
      expect(got.terminationDate).toBe(n.exit_date ? n.exit_date.split('/').reverse().join('-') : '');
      expect(got.dependentDetails).toHaveLength(n.dependents.length);
      expect(got.salaryDetails.ctc.basic).toBe(n.compensation ? n.compensation.annual.basic : null);
    }
  });

  it('reads by the store id as well as by employeeId', async () => {
    const byCode = await read('EMP00002');
    const byId = await read(byCode.body.data.id);
    expect(byId.status).toBe(200);
    expect(byId.body.data).toEqual(byCode.body.data);
  });
});

describe('end to end: what the run leaves: the connection list, the audit log, ciphertext at rest', () => {
  it('lists the connection with its last successful sync', async () => {
    const res = await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: vendor.api_key } });
    expect(res.status).toBe(200);
    expect(res.body.pageInfo).toEqual({ totalPages: 1, totalItems: 1, items: 1, next: false, previous: false });
    const [entry] = res.body.data;
    expect(entry.org_id).toBe(client.uuid);
    expect(entry.org_name).toBe('Employer One');
    expect(entry.application_connection_status).toBe('Active');
    expect(entry.sync_frequency).toBe('hourly');
    expect(entry.hrms_code).toBe('reference');
    expect(entry.last_successful_sync).toMatch(/^\d{1,2}(st|nd|rd|th) [A-Z][a-z]+ \d{4}, \d\d:\d\d (AM|PM)$/);
    expect(entry.not_shared_data_points).toEqual([]);
    expect(entry.shared_data_points).toContain('ctc_basic');
  });

  it('writes an audit entry for every read served', async () => {
    const res = await read('EMP00003');
    const rows = await ormQuery<{ action: string; employee_id: string; data_points: string[] }>(
      app,
      `select action, employee_id, data_points from audit_log where request_id = ?`,
      [res.body.requestId],
    );
    expect(rows).toEqual([{ action: 'employee.read', employee_id: 'EMP00003', data_points: ['*'] }]);
  });

  it('keeps every value of the record encrypted at rest', async () => {
    const n = native[0]!;
    const [row] = await ormQuery<{ row: string; record_enc: string; masked_enc: string }>(
      app,
      `select t::text as row, record_enc, masked_enc from employees t where employee_id = ?`,
      [n.employee_code],
    );
    expect(row!.record_enc).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(row!.masked_enc).toMatch(/^v1\.[0-9a-f]{8}\./);
    const mapped = mapEmployee(n);
    const secrets = [n.pan_number, n.aadhaar_number, n.official_email, mapped.name, mapped.dob].filter((x): x is string => typeof x === 'string');
    expect(secrets).toHaveLength(5);
    for (const secret of secrets) expect(row!.row).not.toContain(secret);
  });
});
