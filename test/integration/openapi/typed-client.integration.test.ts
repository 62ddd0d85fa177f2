/**
 * The API through the typed client generated from its OpenAPI document (openapi-typescript +
 * openapi-fetch, test/support/api-client.ts), one endpoint or more of each feature: setup,
 * employees (read and update webhook), consent, orgs, connections, external (JWKS and V2), sdk,
 * credentials (issue, the vendor's view, revoke, the issuer metadata), ops (health, readiness, metrics) and openapi (the document itself).
 * Every answer, success and error, is also checked against the document's schema for its status:
 * the document describes what the server does.
 */
import { decodeJwt, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { apiClient, DOCUMENT, expectDocumented } from '../../support/api-client';
import { appBasic, client, connection, setupBody, v2Vendor } from '../../support/factories';
import { startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let v: Awaited<ReturnType<typeof v2Vendor>>;
let employer: Awaited<ReturnType<typeof client>>;
let connectionId: string;
const simCreds = { clientId: 'typed-client', clientSecret: 'typed-secret' };

beforeAll(async () => {
  app = await startTestApp();
  sim = await startSim({ employees: 5, ...simCreds });
  v = await v2Vendor(app.ctx);
  employer = await client(app.ctx);
  connectionId = (await connection(app.ctx, v.org.uuid, employer.org.uuid, { consentRequired: true })).id;
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

describe('the typed client, from setup-config to reads', () => {
  it('sets up the HRMS, waits for the sync, records consent and reads (setup, connections, consent, employees)', async () => {
    const api = apiClient(app.url);
    const setup = await api.POST('/api/webhook/v1/setup-config/', { body: setupBody(employer, sim, simCreds) });
    expect(setup.response.status).toBe(200);
    expectDocumented('POST', '/api/webhook/v1/setup-config/', 200, setup.data);
    expect(setup.data?.data).toMatchObject({ org_id: employer.org.uuid, hrms_id: 'reference', configured_apis: ['employees'] });

    const synced = await waitFor(async () => {
      const list = await api.GET('/api/vendor/connections/', { params: { query: { status: 'approved' } }, headers: { authorization: v.apiKey } });
      return list.data?.data[0]?.last_successful_sync !== 'NOT AVAILABLE' ? list : undefined;
    });
    expectDocumented('GET', '/api/vendor/connections/', 200, synced.data);
    expect(synced.data?.pageInfo).toEqual({ totalPages: 1, totalItems: 1, items: 1, next: false, previous: false });

    const read = () =>
      api.GET('/api/employee_details/{id}', {
        params: { path: { id: 'EMP00001' }, query: { org: employer.org.uuid, vendor_org: v.org.uuid } },
        headers: { username: v.apiKey },
      });
    const refused = await read();
    expect(refused.response.status).toBe(403);
    expect(expectDocumented('GET', '/api/employee_details/{id}', 403, refused.error)).toMatchObject({ message: 'Consent not found or expired', data: null });

    const now = Date.now();
    const consent = await api.POST('/api/v1/employee/consent-data/', {
      headers: { authorization: v.apiKey },
      body: {
        org: employer.org.uuid,
        employee_id: 'EMP00001',
        consent_language: 'I agree that my employer shares my salary details with the lender.',
        consent_timestamp: new Date(now).toISOString(),
        consent_expiry: new Date(now + 86_400_000).toISOString(),
      },
    });
    expect(consent.response.status).toBe(200);
    expect(expectDocumented('POST', '/api/v1/employee/consent-data/', 200, consent.data)?.data.employeeId).toBe('EMP00001');

    const ok = await read();
    expect(ok.response.status).toBe(200);
    const record = expectDocumented('GET', '/api/employee_details/{id}', 200, ok.data)!.data;
    expect(record.employeeId).toBe('EMP00001');
    expect(record.pan).toMatch(/^\*+$/);

    const history = await api.GET('/api/employee_details/{id}/pay_history/', {
      params: { path: { id: 'EMP00001' }, query: { org: employer.org.uuid, vendor_org: v.org.uuid, months: 3 } },
      headers: { username: v.apiKey },
    });
    expect(history.response.status).toBe(200);
    const pay = expectDocumented('GET', '/api/employee_details/{id}/pay_history/', 200, history.data)!.data;
    expect(pay.months.map((m) => [m.year, m.month])).toStrictEqual([
      [2025, 12],
      [2025, 11],
      [2025, 10],
    ]);
  });

  it('pushes an update through the webhook (employees)', async () => {
    const res = await apiClient(app.url).POST('/api/webhook/v1/employee/update/', {
      headers: { authorization: appBasic(employer) },
      body: { employeeId: 'EMP00001', designation: 'Lead Engineer' },
    });
    expect(res.response.status).toBe(200);
    expect(expectDocumented('POST', '/api/webhook/v1/employee/update/', 200, res.data)?.data).toMatchObject({
      employeeId: 'EMP00001',
      updated_fields: ['designation'],
    });
  });

  it('reads the org record, top-level (orgs)', async () => {
    const res = await apiClient(app.url).GET('/api/org_details/{org}/', { params: { path: { org: employer.org.uuid } }, headers: { authorization: v.apiKey } });
    expect(res.response.status).toBe(200);
    expect(expectDocumented('GET', '/api/org_details/{org}/', 200, res.data)).toMatchObject({ uuid: employer.org.uuid, is_client: true });
    const unknown = await apiClient(app.url).GET('/api/org_details/{org}/', {
      params: { path: { org: crypto.randomUUID() } },
      headers: { authorization: v.apiKey },
    });
    expect(expectDocumented('GET', '/api/org_details/{org}/', 404, unknown.error)).toMatchObject({ message: 'Not found.' });
  });

  it('reads V2 through the JWKS and the encrypted endpoint (external)', async () => {
    const api = apiClient(app.url);
    const jwks = await api.GET('/.well-known/jwks.json');
    expectDocumented('GET', '/.well-known/jwks.json', 200, jwks.data);
    const keys = jwks.data as JSONWebKeySet;
    const encrypted_payload = await buildEncryptedRequest({
      connectionId,
      employeeId: 'EMP00001',
      vendorPrivateKey: v.privateKey,
      vendorKid: v.kid,
      servicePublicJwk: keys.keys.find((k) => k.use === 'enc')!,
    });
    const res = await api.POST('/api/external/employee/', { headers: { authorization: v.authorization }, body: { encrypted_payload } });
    expect(res.response.status).toBe(200);
    const body = expectDocumented('POST', '/api/external/employee/', 200, res.data)!;
    expect(body).toMatchObject({ message: 'success', status_code: 'success', status: 200 });
    const opened = await openEncryptedResponse({ data: body.data, vendorPrivateKey: v.privateKey, serviceSigningJwks: keys });
    expect(opened.employee).toMatchObject({ employeeId: 'EMP00001', designation: 'Lead Engineer' });
    const bad = await api.POST('/api/external/employee/', { headers: { authorization: v.authorization }, body: { encrypted_payload: 'a.b.c.d.e' } });
    expect(expectDocumented('POST', '/api/external/employee/', 400, bad.error)).toMatchObject({ message: 'Invalid encrypted payload' });
  });

  it("manages the vendor's own endpoints and keys (events, external)", async () => {
    const api = apiClient(app.url);
    const headers = { authorization: v.apiKey };
    const added = await api.POST('/api/vendor/endpoints/', { headers, body: { url: 'https://93.184.215.14/hooks', events: ['sync.completed'] } });
    expect(added.response.status).toBe(201);
    const ep = expectDocumented('POST', '/api/vendor/endpoints/', 201, added.data)!.data;
    expect(ep).toMatchObject({ url: 'https://93.184.215.14/hooks', events: ['sync.completed'] });
    const listed = await api.GET('/api/vendor/endpoints/{id}/deliveries/', { headers, params: { path: { id: ep.id } } });
    expect(expectDocumented('GET', '/api/vendor/endpoints/{id}/deliveries/', 200, listed.data)!.data).toEqual([]);
    const keys = await api.GET('/api/vendor/keys/', { headers });
    expect(expectDocumented('GET', '/api/vendor/keys/', 200, keys.data)!.data.map((k) => k.kid)).toEqual([v.kid]);
    const missing = await api.DELETE('/api/vendor/keys/{kid}/', { headers, params: { path: { kid: 'nope' } } });
    expect(expectDocumented('DELETE', '/api/vendor/keys/{kid}/', 404, missing.error)).toMatchObject({ message: 'Not found.' });
  });

  it('issues an SDK token and refuses a bad e-mail (sdk)', async () => {
    const api = apiClient(app.url);
    const res = await api.POST('/api/sdk/token/', {
      headers: { authorization: v.apiKey },
      body: {
        email: 'hr@typed-client.example',
        org_name: 'Typed Client Ltd',
        fullname: 'Asha Rao',
        data_model_flags: { detail_info_fields: { gender: -1, dob: 1 } },
      },
    });
    expect(res.response.status).toBe(200);
    expect(expectDocumented('POST', '/api/sdk/token/', 200, res.data)?.data.exp).toBe(3600);
    const bad = await api.POST('/api/sdk/token/', { headers: { authorization: v.apiKey }, body: { email: 'nope', org_name: 'X', fullname: 'Y' } });
    expect(expectDocumented('POST', '/api/sdk/token/', 400, bad.error)).toEqual({
      requestId: bad.response.headers.get('x-request-id'),
      error: 'invalid_email',
      code: 400,
      message: 'Invalid Email Passed!',
      data: null,
    });
  });

  it('answers a credential error and a validation failure in the documented envelope', async () => {
    const api = apiClient(app.url);
    const none = await api.GET('/api/vendor/connections/', {});
    expect(expectDocumented('GET', '/api/vendor/connections/', 401, none.error)).toMatchObject({ message: 'Authentication credentials were not provided.' });
    const tooBig = await api.GET('/api/vendor/connections/', { params: { query: { page_size: 101 } }, headers: { authorization: v.apiKey } });
    expect(expectDocumented('GET', '/api/vendor/connections/', 400, tooBig.error)).toMatchObject({ code: 400, data: { errors: [{ field: 'page_size' }] } });
  });
});

describe('the typed client, on credentials (after the consent recorded above)', () => {
  it('issues a credential, reads its state and revokes it; months 13 is a 400 (credentials)', async () => {
    const api = apiClient(app.url);
    const headers = { authorization: v.apiKey };
    // EMP00001 has the consent recorded above (the connection requires it).
    const issued = await api.POST('/api/credentials/employment/', { headers, body: { org: employer.org.uuid, employee_id: 'EMP00001', months: 0 } });
    expect(issued.response.status).toBe(201);
    const cred = expectDocumented('POST', '/api/credentials/employment/', 201, issued.data)!.data;
    const payload = decodeJwt(cred.sd_jwt.split('~')[0]!) as { cnf: { jwk: { kid: string } }; exp: number };
    expect(payload.cnf.jwk.kid).toBe(v.kid);
    expect(new Date(payload.exp * 1000).toISOString()).toBe(cred.exp);
    const path = { credential_id: cred.credential_id };
    const state = await api.GET('/api/credentials/{credential_id}/', { headers, params: { path } });
    expect(expectDocumented('GET', '/api/credentials/{credential_id}/', 200, state.data)!.data).toMatchObject({ status: 'valid', revoked_reason: null });
    const revoked = await api.DELETE('/api/credentials/{credential_id}/', { headers, params: { path } });
    expect(expectDocumented('DELETE', '/api/credentials/{credential_id}/', 200, revoked.data)!.data).toMatchObject({
      status: 'revoked',
      revoked_reason: 'vendor',
    });
    const unknown = await api.GET('/api/credentials/{credential_id}/', { headers, params: { path: { credential_id: crypto.randomUUID() } } });
    expect(expectDocumented('GET', '/api/credentials/{credential_id}/', 404, unknown.error)).toMatchObject({ message: 'Not found.' });
    const tooMany = await api.POST('/api/credentials/employment/', { headers, body: { org: employer.org.uuid, employee_id: 'EMP00001', months: 13 } });
    expect(expectDocumented('POST', '/api/credentials/employment/', 400, tooMany.error)).toMatchObject({ code: 400, data: { errors: [{ field: 'months' }] } });
    const issuer = await api.GET('/.well-known/jwt-vc-issuer');
    expect(expectDocumented('GET', '/.well-known/jwt-vc-issuer', 200, issuer.data)!.jwks.keys.some((k) => k.alg === 'ES256')).toBe(true);
  });
});

describe('the typed client, on the operator endpoints', () => {
  it('answers liveness, readiness and the metrics scrape (ops)', async () => {
    const api = apiClient(app.url);
    const health = await api.GET('/healthz');
    expect(health.response.status).toBe(200);
    expect(expectDocumented('GET', '/healthz', 200, health.data)).toEqual({ status: 'ok', checks: { process: 'ok' } });
    const ready = await api.GET('/readyz');
    expect(ready.response.status).toBe(200);
    const checks = expectDocumented('GET', '/readyz', 200, ready.data)!;
    expect(checks).toMatchObject({ status: 'ok', checks: { postgresql: { status: 'ok' }, redis: { status: 'ok' } } });

    // A distinct client address: the scrape is rate-limited per address like any admin call.
    const admin = { authorization: `Bearer ${app.env.HRX_ADMIN_TOKEN}`, 'x-forwarded-for': '10.0.9.1' };
    const metrics = await api.GET('/metrics', { headers: admin, parseAs: 'text' });
    expect(metrics.response.status).toBe(200);
    expect(metrics.response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(typeof metrics.data).toBe('string');
    expect(metrics.data).toMatch(/^# TYPE hrx_http_requests_total counter$/m);
    expect(metrics.data).toMatch(/^hrx_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m);
    const refused = await api.GET('/metrics', { headers: { 'x-forwarded-for': '10.0.9.2' } });
    expect(refused.response.status).toBe(401);
    expect(expectDocumented('GET', '/metrics', 401, refused.error)).toMatchObject({ message: 'Authentication credentials were not provided.' });
  });

  it('serves its own OpenAPI document (openapi)', async () => {
    const res = await apiClient(app.url).GET('/openapi.json');
    expect(res.response.status).toBe(200);
    const doc = expectDocumented('GET', '/openapi.json', 200, res.data)!;
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.info).toMatchObject({ title: 'hrx — HR data exchange', version: DOCUMENT.info.version });
    // The served document describes the same operations as the checked-in one the client is typed by.
    expect(Object.keys(doc.paths ?? {}).sort()).toEqual(Object.keys(DOCUMENT.paths).sort());
  });
});
