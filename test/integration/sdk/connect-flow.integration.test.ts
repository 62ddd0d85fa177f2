/**
 * The Connect flow end to end (docs/connect.md "The session"): SDK token → Connect page → session cookie → HRMS
 * credentials pointing at a running reference HRMS simulator → approval with one optional point
 * opted out → the connection's three lists → after the sync, the vendor's read serves the opted-out
 * point as its empty value. Then the reject path, and decisions that cannot be taken twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_DATA_POINTS, filterRecord } from '../../../src/domain/data-points';
import { maskRecord } from '../../../src/domain/masking';
import { normalizeRecord, NOT_AVAILABLE } from '../../../src/domain/record';
import { mapEmployee } from '../../../src/hrms/reference/mapping';
import { SUPPORTED_HRMS } from '../../../src/hrms/registry';
import type { NativeEmployee } from '../../../src/hrms/sim/data';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid, plain } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail, type TestSession } from '../../support/connect';
import { DATA_POINT_CATEGORIES } from '../../../src/domain/data-point-labels';
import { hrmsProduct } from '../../../src/hrms/products';
import { dbQuery, storesOf } from '../../support/db';

const VENDOR_NAME = 'Lender <b>"One"</b> & Co\'s';
const FLAGS = { detail_info_fields: { name: -1, gender: 1, dob: 1, pan: 0 }, ctc_details_fields: { ctc_basic: 1 } };

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const simCreds = { clientId: 'connect-client', clientSecret: 'connect-secret-value-9f2' };
let v: Awaited<ReturnType<typeof f.vendor>>;
let native: NativeEmployee[];

beforeAll(async () => {
  app = await startTestApp();
  sim = await startSim({ employees: 12, seed: 'connect', ...simCreds });
  v = await f.vendor(app.ctx, VENDOR_NAME);
  const tok = await fetch(`${sim.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: simCreds.clientId, client_secret: simCreds.clientSecret }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  native = (
    await fetch(`${sim.url}/api/v1/employees?page=1&per_page=100`, { headers: { authorization: `Bearer ${tok.access_token}` } }).then(
      (r) => r.json() as Promise<{ employees: NativeEmployee[] }>,
    )
  ).employees;
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const issue = (body: Record<string, unknown>) =>
  call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const widget = (session: TestSession, path: string, body?: unknown) => connectCall(app.url, session, path, body);
const hrmsBody = (secret = simCreds.clientSecret, host = sim.url) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: simCreds.clientId, client_secret: secret, hrms_host: host },
});
/** The HRMS step's products as the view serves them (src/hrms/products.ts), one per supported connector. */
type Fields = NonNullable<ReturnType<typeof hrmsProduct>>['fields'];
const fieldsOf = (fs: Fields) =>
  fs.map((x) => ({
    target: x.target,
    label: x.label,
    help: x.help,
    required: x.required,
    secret: x.secret,
    placeholder: x.placeholder ?? null,
    multiline: x.multiline === true,
  }));
const products = SUPPORTED_HRMS.map((id) => hrmsProduct(id)!).map((p) => ({
  hrms_id: p.hrmsId,
  display_name: p.displayName,
  grant_type: p.grantType,
  grant_label: p.grantLabel ?? null,
  fields: fieldsOf(p.fields),
  other_grants: (p.otherGrants ?? []).map((g) => ({ grant_type: g.grantType, label: g.label, fields: fieldsOf(g.fields) })),
}));
const connectionRow = async (id: string) =>
  (await dbQuery(app, `select status, shared_data_points, not_shared_data_points, not_requested_data_points from connections where id = $1`, [id])).rows[0];

// The approve path: its tests run in order on one connection, through two describes.
let token: string;
let session: TestSession;
let orgId: string;
let connectionId: string;
const notRequested = ALL_DATA_POINTS.filter((p) => !['name', 'gender', 'dob', 'ctc_basic'].includes(p));

describe('Connect flow: approve, up to the HRMS credentials', () => {
  it('issues a token; the Connect page is served without it (the token stays in the fragment), CSP as before', async () => {
    const res = await issue({ email: 'priya@globex.example', org_name: 'Globex', fullname: 'Priya Nair', data_model_flags: FLAGS });
    expect(res.status).toBe(200);
    token = res.body.data.access_token;
    orgId = res.body.data.org_id;
    const page = await fetch(`${app.url}/connect`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // Names come from the session endpoint through textContent; nothing of the vendor is server-rendered.
    expect(html).not.toContain('Lender');
    expect(html).not.toContain('Globex');
    expect(html).toContain('<dd id="n-org"></dd>');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]{24}'; style-src 'nonce-/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).not.toMatch(/<script(?![^>]*nonce)|\bsrc=/);
    // Nothing is loaded from elsewhere: the links are the inline favicon and the operator's contact (here, without
    // HRX_OPERATOR_CONTACT, the address of HRX_SMTP_FROM).
    expect([...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.slice(0, 19))).toStrictEqual(['data:image/svg+xml,', 'mailto:no-reply@hrx']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("require-trusted-types-for 'script'; trusted-types 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    // The old query form is no longer read: same page, no names.
    const old = await fetch(`${app.url}/connect?token=${encodeURIComponent(token)}`);
    expect(old.status).toBe(200);
    expect(await old.text()).not.toContain('Globex');
  });

  it('an invalid, missing or forged token opens no session: 401, no cookie', async () => {
    for (const body of [{ token: token.slice(0, -3) + 'abc' }, { token: 'not.a.jwt' }]) {
      const res = await call(`${app.url}/api/sdk/connect/session/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expectError(res, 401, plain('Invalid token.'));
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const missing = await call(`${app.url}/api/sdk/connect/session/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expectError(missing, 400, invalid('token', 'required'));
    session = await openSession(app.url, token);
  });

  it('the session shows the vendor, the user and the requested data points', async () => {
    const res = await widget(session, '');
    expect(res.status).toBe(200);
    connectionId = res.body.data.connection_id;
    expect(res.body).toStrictEqual({
      requestId: res.headers.get('x-request-id'),
      message: 'success',
      data: {
        connection_id: connectionId,
        status: 'pending',
        vendor: { org_id: v.org.uuid, org_name: VENDOR_NAME },
        org: { org_id: orgId, org_name: 'Globex', invite_status: 'pending' },
        user: { email: 'priya@globex.example', fullname: 'Priya Nair' },
        // Record order (docs/data-points.md), whatever the order of the flags.
        required_data_points: ['name'],
        optional_data_points: ['dob', 'gender', 'ctc_basic'],
        hrms: { supported: [...SUPPORTED_HRMS], configured: null, entered: false, products },
        proof: { required: false, proven: false },
        email_verification: { required: true, available: true, establishes: true, verified: false, sent_to: 'priya@globex.example', code_expires_at: null },
        lock: { locked_until: null },
        notice: {
          vendor_purpose: null,
          vendor_privacy_url: null,
          operator_name: 'the operator of this service',
          operator_contact: 'no-reply@hrx.test',
          sync_frequency: 'daily',
        },
        data_points: [
          { name: 'name', label: 'Full name', category: 'personal', sensitive: false, required: true },
          { name: 'dob', label: 'Date of birth', category: 'personal', sensitive: false, required: false },
          { name: 'gender', label: 'Gender', category: 'personal', sensitive: false, required: false },
          { name: 'ctc_basic', label: 'Basic pay (annual CTC)', category: 'annual_ctc', sensitive: false, required: false },
        ],
        data_point_categories: DATA_POINT_CATEGORIES.map((c) => ({ ...c })),
        always_shared: [
          { name: 'id', label: 'hrx record ID' },
          { name: 'employeeId', label: 'Employee ID (from your HRMS)' },
        ],
        decided_at: null,
        decided_by: null,
        reauth: null,
        shared_data_points: [],
        not_shared_data_points: ['name', 'dob', 'gender', 'ctc_basic'],
        not_requested_data_points: notRequested,
      },
    });
  });

  it('approval needs HRMS credentials entered first; wrong ones are refused and not stored', async () => {
    expectError(
      await widget(session, 'approve/', { opted_in: ['gender'], opted_out: [] }),
      400,
      invalid('hrms', 'enter the HRMS credentials before approving'),
    );
    await verifyEmail(app, session);
    expectError(await widget(session, 'hrms/', hrmsBody('wrong-secret')), 400, {
      code: 400,
      message: 'HRMS credentials rejected: the HRMS refused the credentials',
      data: null,
    });
    const org = (await dbQuery(app, `select id from orgs where uuid = $1`, [orgId])).rows[0];
    expect(await storesOf(app).hrmsConfigs.load(org.id)).toBeNull();
  });

  it('stores the HRMS credentials encrypted, never echoes them, and queues a sync', async () => {
    const res = await widget(session, 'hrms/', hrmsBody());
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ org_id: orgId, hrms_id: 'reference', configured_apis: ['employees'] });
    expect(JSON.stringify(res.body)).not.toContain(simCreds.clientSecret);
    const [row] = (await dbQuery(app, `select h.credentials_enc from hrms_configs h join orgs o on o.id = h.org_id where o.uuid = $1`, [orgId])).rows;
    expect(row.credentials_enc).toMatch(/^v1\./);
    expect(row.credentials_enc).not.toContain(simCreds.clientSecret);
    const view = await widget(session, '');
    expect(view.body.data.hrms).toStrictEqual({ supported: [...SUPPORTED_HRMS], configured: 'reference', entered: true, products });
    // This session entered the org's first configuration: no further proof needed here.
    expect(view.body.data.proof).toStrictEqual({ required: false, proven: false });
  });
});

describe('Connect flow: approve, the decision and the read', () => {
  it('refuses opt choices that are not optional points of this connection', async () => {
    expectError(
      await widget(session, 'approve/', { opted_in: ['pan'], opted_out: [] }),
      400,
      invalid('opted_in.0', 'not an optional data point of this connection'),
    );
    expectError(
      await widget(session, 'approve/', { opted_in: ['gender'], opted_out: ['dob', 'name'] }),
      400,
      invalid('opted_out.1', 'not an optional data point of this connection'),
    );
    expectError(await widget(session, 'approve/', { opted_in: ['gender', 'dob'], opted_out: ['dob'] }), 400, invalid('opted_out.0', 'also opted in'));
    expectError(await widget(session, 'approve/', { opted_in: ['gender'], shared: ['pan'] }), 400, invalid('shared', 'unknown field'));
    expect((await connectionRow(connectionId)).status).toBe('pending');
  });

  it('approves with one optional point opted out: the exact three lists, the org accepted', async () => {
    const res = await widget(session, 'approve/', { opted_in: ['gender', 'ctc_basic'], opted_out: ['dob'] });
    expect(res.status).toBe(200);
    const lists = { shared_data_points: ['name', 'gender', 'ctc_basic'], not_shared_data_points: ['dob'], not_requested_data_points: notRequested };
    expect(res.body.data).toStrictEqual({ connection_id: connectionId, status: 'approved', ...lists });
    expect(await connectionRow(connectionId)).toStrictEqual({ status: 'approved', ...lists });
    expect((await dbQuery(app, `select invite_status from orgs where uuid = $1`, [orgId])).rows[0].invite_status).toBe('accepted');
    const listing = await call(`${app.url}/api/vendor/connections/?status=approved`, { headers: { authorization: v.apiKey } });
    expect(listing.body.data).toHaveLength(1);
    expect(listing.body.data[0]).toMatchObject({
      org_id: orgId,
      org_name: 'Globex',
      application_connection_status: 'Active',
      salary_details_flag: true,
      ...lists,
    });
  });

  it('a decided connection cannot be decided again, nor its HRMS changed, in this session', async () => {
    for (const [path, body] of [
      ['approve/', { opted_in: ['dob'], opted_out: [] }],
      ['reject/', undefined],
      ['hrms/', hrmsBody()],
    ] as const) {
      const res = await call(`${app.url}/api/sdk/connect/${path}`, {
        method: 'POST',
        headers: { cookie: session.cookie, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : '',
      });
      expectError(res, 409, plain('Connection already approved'));
    }
    expect((await widget(session, '')).body.data).toMatchObject({ status: 'approved', shared_data_points: ['name', 'gender', 'ctc_basic'] });
    expect((await connectionRow(connectionId)).shared_data_points).toStrictEqual(['name', 'gender', 'ctc_basic']);
  });

  it('after the sync the vendor reads an employee with the opted-out point empty', async () => {
    const n = native.find((e) => e.compensation && e.date_of_birth)!;
    const giveConsent = () =>
      call(`${app.url}/api/v1/employee/consent-data/`, {
        method: 'POST',
        headers: { authorization: v.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          org: orgId,
          employee_id: n.employee_code,
          consent_language: 'I agree to share my data with the lender.',
          consent_timestamp: new Date().toISOString(),
          consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
        }),
      });
    const read = () => call(`${app.url}/api/employee_details/${n.employee_code}?org=${orgId}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
    // Consent can be recorded once the sync has stored the employee (the connection requires it).
    await waitFor(async () => (await giveConsent()).status === 200, 60_000, 200);
    const res = await read();
    expect(res.status).toBe(200);
    const got = res.body.data;
    const expected = filterRecord(maskRecord(normalizeRecord(mapEmployee(n), got.id)), new Set(['name', 'gender', 'ctc_basic']));
    expect(got).toEqual(expected);
    expect(got.dob).toBe(NOT_AVAILABLE);
    expect(got.pan).toBe(NOT_AVAILABLE);
    expect(got.employeeId).toBe(n.employee_code);
    expect(got.name).not.toBe(NOT_AVAILABLE);
    expect(got.salaryDetails.ctc.basic).toBe(n.compensation!.annual.basic);
    expect(got.salaryDetails.ctc.hra).toBeNull();
  });
});

describe('Connect flow: reject', () => {
  describe('reject', () => {
    it('rejects: connection rejected, org still pending, nothing readable, no second decision', async () => {
      const res = await issue({
        email: 'hr@initech.example',
        org_name: 'Initech',
        fullname: 'Bill L',
        data_model_flags: { detail_info_fields: { name: -1, dob: 1 } },
      });
      const token = await openSession(app.url, res.body.data.access_token);
      const orgId = res.body.data.org_id;
      const rejected = await widget(token, 'reject/');
      expect(rejected.status).toBe(200);
      expect(rejected.body.data).toStrictEqual({
        connection_id: rejected.body.data.connection_id,
        status: 'rejected',
        shared_data_points: [],
        not_shared_data_points: ['name', 'dob'],
        not_requested_data_points: ALL_DATA_POINTS.filter((p) => p !== 'name' && p !== 'dob'),
      });
      expect((await connectionRow(rejected.body.data.connection_id)).status).toBe('rejected');
      expect((await dbQuery(app, `select invite_status from orgs where uuid = $1`, [orgId])).rows[0].invite_status).toBe('pending');
      expectError(await widget(token, 'approve/', { opted_in: ['dob'], opted_out: [] }), 409, plain('Connection already rejected'));
      expectError(await widget(token, 'reject/'), 409, plain('Connection already rejected'));
      expectError(
        await call(`${app.url}/api/employee_details/EMP00001?org=${orgId}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } }),
        404,
        plain('Invalid Organisation ID'),
      );
      const listing = await call(`${app.url}/api/vendor/connections/?status=rejected`, { headers: { authorization: v.apiKey } });
      expect(listing.body.data.map((e: { org_id: string }) => e.org_id)).toStrictEqual([orgId]);
    });

    it('a terminated connection is over for its token', async () => {
      const res = await issue({ email: 'hr@umbrella.example', org_name: 'Umbrella', fullname: 'Alice' });
      const fd = new FormData();
      fd.append('client_org', res.body.data.org_id);
      expect((await call(`${app.url}/api/terminate_connection/`, { method: 'POST', headers: { authorization: v.apiKey }, body: fd })).status).toBe(200);
      const token = await openSession(app.url, res.body.data.access_token);
      expect((await widget(token, '')).body.data.status).toBe('terminated');
      expectError(await widget(token, 'reject/'), 409, { status: 409, message: 'Conflict! Connection already terminated', data: null });
      expectError(await widget(token, 'hrms/', hrmsBody()), 409, { status: 409, message: 'Conflict! Connection already terminated', data: null });
    });
  });
});
