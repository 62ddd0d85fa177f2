/**
 * The OpenAPI document states every status a route answers (docs/api.md "Health, reference and
 * dashboard"): each route's error answers are provoked over HTTP (no credential, a bad body, a
 * wrong media type, a body over the limit, an unknown or malformed id, a decided connection, a
 * locked source address or spent Connect session for 429, a wrong method for 405), and every
 * answer's status must be one the document lists for that operation, with a body its schema
 * accepts (test/support/api-client.ts). Then each documented status of each operation must have
 * been answered here, unless it is in NOT_PROVOKED with the reason and the test that provokes it.
 */
import { randomUUID } from 'node:crypto';
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest } from '../../../src/crypto/jose/client';
import { DOCUMENT } from '../../support/api-client';
import { openSession, type TestSession } from '../../support/connect';
import { documentedCalls, type Ask } from '../../support/documented';
import * as f from '../../support/factories';
import { call, DATABASE_URL, dropSchema, startTestApp, type TestApp } from '../../support/harness';
import { privateEnv, startPrivateApp } from '../../support/private-app';
import { startPrivateRedis } from '../../support/private-services';
import { consentBody } from '../../support/setups';

/** Why a 409 of a route taking `Idempotency-Key` is not provoked here. */
const RUNNING = 'a request with the same Idempotency-Key still running: cross/idempotency (concurrent duplicates)';

/** Documented statuses not provoked here, by `METHOD /path` (`*`: every operation), and why. */
const NOT_PROVOKED: Record<string, Record<number, string>> = {
  '*': {
    500: 'an unexpected error: no request provokes one',
    503: 'PostgreSQL or Redis not answering: cross/faults-postgres, cross/faults-redis (`/readyz`: below)',
  },
  'POST /api/terminate_connection/': { 423: 'needs a sync running at that moment: connections/terminate-connection' },
  ...Object.fromEntries(
    [
      'POST /api/v1/employee/consent-data/',
      'POST /api/v1/employee/consent-data/revoke/',
      'POST /api/webhook/v1/employee/consent/revoke/',
      'POST /api/webhook/v1/employee/update/',
      'POST /api/webhook/v1/employee/erase/',
      'POST /api/sdk/token/',
      'POST /api/vendor/connections/{client_org}/sync/',
      'POST /api/webhook/v1/setup-config/',
      'POST /api/vendor/endpoints/',
      'DELETE /api/vendor/endpoints/{id}/',
      'POST /api/vendor/endpoints/{id}/rotate-secret/',
      'POST /api/vendor/endpoints/{id}/test/',
      'POST /api/vendor/deliveries/{id}/replay/',
      'POST /api/vendor/keys/',
      'DELETE /api/vendor/keys/{kid}/',
      'DELETE /api/credentials/{credential_id}/',
    ].map((k) => [k, { 409: RUNNING }]),
  ),
  'POST /api/sdk/connect/hrms/': { 403: 'needs an HRMS to compare with: sdk/connect-hrms, sdk/connect-attack' },
  'POST /api/credentials/employment/': { 403: 'needs a connection requiring consent: credentials/issue-employment-credential-refusals' },
  'GET /api/employee_details/{id}/pay_history/': { 403: 'needs a connection requiring consent: employees/get-pay-history' },
  'GET /api/org_details/{org}/': { 400: 'no path segment fails `min(1)`: an empty one is another path' },
  'GET /api/vendor/connections/{client_org}/status/': { 400: 'no path segment fails `min(1)`: an empty one is another path' },
};

const MAX_BODY = 4096;
/** Requests per Connect session (per hour here): more than any one session below needs but the spent one. */
const CONNECT_LIMIT = 20;
let app: TestApp;
const LOCKED = '203.0.113.7';
const ADMIN_LOCKED = '203.0.113.8';
const { expectAnswer, bodyLimits, answered, fresh } = documentedCalls(() => app.url, MAX_BODY);

let v: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
let v2: Awaited<ReturnType<typeof f.v2Vendor>>;
const vendorHeaders = () => ({ authorization: v.apiKey });
const employerHeaders = () => ({ authorization: f.appBasic(c) });

beforeAll(async () => {
  app = await startTestApp({
    worker: false,
    env: {
      HRX_TRUST_PROXY: '1',
      HRX_MAX_BODY_BYTES: String(MAX_BODY),
      HRX_AUTH_FAILURE_LIMIT: '3',
      HRX_AUTH_FAILURE_WINDOW_MS: '3600000',
      HRX_CONNECT_RATE_LIMIT_PER_MINUTE: String(CONNECT_LIMIT),
      HRX_RATE_LIMIT_WINDOW_MS: '3600000',
    },
  });
  v = await f.vendor(app.ctx);
  c = await f.client(app.ctx, 'Documented Employer', 'documented-employer.example');
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await f.employees(app.ctx, c.org.id, [{ employeeId: 'E1' }]);
  v2 = await f.v2Vendor(app.ctx);
  await f.connection(app.ctx, v2.org.uuid, c.org.uuid);
  // Lock two source addresses: three bad API keys, three bad admin tokens.
  for (let i = 0; i < 3; i++) {
    await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: `hrx_${randomUUID()}`, 'x-forwarded-for': LOCKED } });
    await call(`${app.url}/metrics`, { headers: { authorization: `Bearer ${randomUUID()}`, 'x-forwarded-for': ADMIN_LOCKED } });
  }
});
afterAll(async () => {
  await app?.stop();
});

describe('employees, orgs and connections answer as documented', () => {
  it('employee details, update, access log, erasure', async () => {
    const p = '/api/employee_details/{id}';
    const q = (org: string, extra = '') => `/api/employee_details/E1?org=${org}&vendor_org=${v.org.uuid}${extra}`;
    const key = { username: v.apiKey };
    await expectAnswer('GET', p, q(c.org.uuid), {}, 401);
    await expectAnswer('GET', p, `/api/employee_details/E1?vendor_org=${v.org.uuid}`, { headers: key }, 400);
    await expectAnswer('GET', p, q(c.org.uuid, '&source=hrms'), { headers: key }, 403);
    await expectAnswer('GET', p, `/api/employee_details/NOPE?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: key }, 404);
    await expectAnswer('GET', p, q(c.org.uuid), { headers: key, source: LOCKED }, 429);
    const ph = '/api/employee_details/{id}/pay_history/';
    const hq = (id: string, extra = '') => `/api/employee_details/${id}/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}${extra}`;
    await expectAnswer('GET', ph, hq('E1'), {}, 401);
    await expectAnswer('GET', ph, hq('E1', '&months=0'), { headers: key }, 400);
    await expectAnswer('GET', ph, hq('NOPE'), { headers: key }, 404);
    await expectAnswer('GET', ph, hq('E1'), { headers: key, source: LOCKED }, 429);

    for (const [path, bad] of [
      ['/api/webhook/v1/employee/update/', { x: 1 }],
      ['/api/webhook/v1/employee/erase/', {}],
    ] as const) {
      await expectAnswer('POST', path, path, { json: bad }, 401);
      await expectAnswer('POST', path, path, { json: bad, headers: employerHeaders() }, 400);
      await bodyLimits('POST', path, path, employerHeaders());
      await expectAnswer('POST', path, path, { json: bad, headers: employerHeaders(), source: LOCKED }, 429);
    }
    await expectAnswer(
      'POST',
      '/api/webhook/v1/employee/erase/',
      '/api/webhook/v1/employee/erase/',
      { json: { employee_id: 'NOPE' }, headers: employerHeaders() },
      404,
    );

    const log = '/api/webhook/v1/employee/access-log/';
    await expectAnswer('GET', log, `${log}?employee_id=E1`, {}, 401);
    await expectAnswer('GET', log, log, { headers: employerHeaders() }, 400);
    await expectAnswer('GET', log, `${log}?employee_id=E1&page=99`, { headers: employerHeaders() }, 404);
    await expectAnswer('GET', log, `${log}?employee_id=E1`, { headers: employerHeaders(), source: LOCKED }, 429);
  });

  it('org details, vendor connections, status, sync on demand, termination', async () => {
    const org = '/api/org_details/{org}/';
    await expectAnswer('GET', org, `/api/org_details/${c.org.uuid}/`, {}, 401);
    await expectAnswer('GET', org, `/api/org_details/${randomUUID()}/`, { headers: vendorHeaders() }, 404);
    await expectAnswer('GET', org, `/api/org_details/${c.org.uuid}/`, { headers: vendorHeaders(), source: LOCKED }, 429);

    const list = '/api/vendor/connections/';
    await expectAnswer('GET', list, list, {}, 401);
    await expectAnswer('GET', list, `${list}?page=0`, { headers: vendorHeaders() }, 400);
    await expectAnswer('GET', list, `${list}?page=99`, { headers: vendorHeaders() }, 404);
    await expectAnswer('GET', list, list, { headers: vendorHeaders(), source: LOCKED }, 429);

    const status = '/api/vendor/connections/{client_org}/status/';
    await expectAnswer('GET', status, `/api/vendor/connections/${c.org.uuid}/status/`, {}, 401);
    await expectAnswer('GET', status, `/api/vendor/connections/${randomUUID()}/status/`, { headers: vendorHeaders() }, 404);
    await expectAnswer('GET', status, `/api/vendor/connections/${c.org.uuid}/status/`, { headers: vendorHeaders(), source: LOCKED }, 429);

    const sync = '/api/vendor/connections/{client_org}/sync/';
    const syncOf = (o: string) => `/api/vendor/connections/${o}/sync/`;
    await expectAnswer('POST', sync, syncOf(c.org.uuid), {}, 401);
    await expectAnswer('POST', sync, syncOf(c.org.uuid), { headers: vendorHeaders(), json: { full: 'yes' } }, 400);
    await expectAnswer('POST', sync, syncOf(randomUUID()), { headers: vendorHeaders() }, 404);
    await bodyLimits('POST', sync, syncOf(c.org.uuid), vendorHeaders());
    await expectAnswer('POST', sync, syncOf(c.org.uuid), { headers: vendorHeaders(), source: LOCKED }, 429);

    const end = '/api/terminate_connection/';
    const other = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, other.org.uuid);
    await expectAnswer('POST', end, end, { form: { client_org: other.org.uuid } }, 401);
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), form: {} }, 400);
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), form: { client_org: randomUUID() } }, 404);
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), form: { client_org: other.org.uuid } }, 200);
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), form: { client_org: other.org.uuid } }, 409);
    // The field as JSON is read as the form (docs/api.md "Terminate connection"); another media type is 415.
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), json: { client_org: other.org.uuid } }, 409);
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), raw: { type: 'text/plain', body: `client_org=${other.org.uuid}` } }, 415);
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), form: { client_org: 'x'.repeat(MAX_BODY) } }, 413);
    await expectAnswer('POST', end, end, { headers: vendorHeaders(), form: { client_org: other.org.uuid }, source: LOCKED }, 429);
  });
});

describe('setup, consent and V2 answer as documented', () => {
  it('setup-config', async () => {
    const p = '/api/webhook/v1/setup-config/';
    const body = f.setupBody(c, { url: 'http://127.0.0.1:9' }, { clientId: 'x', clientSecret: 'y' });
    await expectAnswer('POST', p, p, { json: {} }, 400);
    await expectAnswer('POST', p, p, { json: { ...body, client_secret: 'wrong' } }, 401);
    await bodyLimits('POST', p, p, {});
    await expectAnswer('POST', p, p, { json: body, source: LOCKED }, 429);
  });

  it('consent: record, history, withdrawal by the vendor and by the employer', async () => {
    const p = '/api/v1/employee/consent-data/';
    const now = Date.now();
    const consent = (org: string) => consentBody(org, { timestamp: new Date(now - 1000), expiry: new Date(now + 86_400_000) });
    await expectAnswer('POST', p, p, { json: consent(c.org.uuid) }, 401);
    await expectAnswer('POST', p, p, { json: {}, headers: vendorHeaders() }, 400);
    await expectAnswer('POST', p, p, { json: consent(randomUUID()), headers: vendorHeaders() }, 404);
    await bodyLimits('POST', p, p, vendorHeaders());
    await expectAnswer('POST', p, p, { json: consent(c.org.uuid), headers: vendorHeaders(), source: LOCKED }, 429);

    await expectAnswer('GET', p, `${p}?org=${c.org.uuid}&employee_id=E1`, {}, 401);
    await expectAnswer('GET', p, `${p}?org=${c.org.uuid}`, { headers: vendorHeaders() }, 400);
    await expectAnswer('GET', p, `${p}?org=${c.org.uuid}&employee_id=E1&page=99`, { headers: vendorHeaders() }, 404);
    await expectAnswer('GET', p, `${p}?org=${c.org.uuid}&employee_id=E1`, { headers: vendorHeaders(), source: LOCKED }, 429);

    for (const [path, headers, good] of [
      ['/api/v1/employee/consent-data/revoke/', vendorHeaders(), { org: c.org.uuid, employee_id: 'E1' }],
      ['/api/webhook/v1/employee/consent/revoke/', employerHeaders(), { employee_id: 'E1' }],
    ] as const) {
      await expectAnswer('POST', path, path, { json: good }, 401);
      await expectAnswer('POST', path, path, { json: { ...good, extra: 1 }, headers }, 400);
      await bodyLimits('POST', path, path, headers);
      await expectAnswer('POST', path, path, { json: good, headers, source: LOCKED }, 429);
    }
    const revoke = '/api/v1/employee/consent-data/revoke/';
    await expectAnswer('POST', revoke, revoke, { json: { org: randomUUID(), employee_id: 'E1' }, headers: vendorHeaders() }, 404);
  });

  it('V2: the encrypted employee read', async () => {
    const p = '/api/external/employee/';
    const keys = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
    const sealed = async (connectionId: string, source?: 'db' | 'hrms') => ({
      encrypted_payload: await buildEncryptedRequest({
        connectionId,
        employeeId: 'E1',
        vendorPrivateKey: v2.privateKey,
        vendorKid: v2.kid,
        servicePublicJwk: keys.keys.find((k) => k.use === 'enc')!,
        ...(source ? { source } : {}),
      }),
    });
    const headers = { authorization: v2.authorization };
    const [conn] = (await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v2.apiKey } })).body.data as { connection_id: string }[];
    await expectAnswer('POST', p, p, { json: { encrypted_payload: 'a.b.c.d.e' } }, 401);
    await expectAnswer('POST', p, p, { json: { encrypted_payload: 'a.b.c.d.e' }, headers }, 400);
    await expectAnswer('POST', p, p, { json: await sealed(conn!.connection_id, 'hrms'), headers }, 403);
    await expectAnswer('POST', p, p, { json: await sealed(randomUUID()), headers }, 404);
    await bodyLimits('POST', p, p, headers);
    await expectAnswer('POST', p, p, { json: { encrypted_payload: 'a.b.c.d.e' }, headers, source: LOCKED }, 429);
  });
});

describe('vendor self-service answers as documented', () => {
  it('event endpoints, deliveries and replay', async () => {
    const list = '/api/vendor/endpoints/';
    await expectAnswer('GET', list, list, {}, 401);
    await expectAnswer('GET', list, list, { headers: vendorHeaders(), source: LOCKED }, 429);
    await expectAnswer('POST', list, list, { json: { url: 'http://127.0.0.1:9/x' } }, 401);
    await expectAnswer('POST', list, list, { json: { url: 'https://10.0.0.1/x' }, headers: vendorHeaders() }, 400);
    await bodyLimits('POST', list, list, vendorHeaders());
    await expectAnswer('POST', list, list, { json: { url: 'https://93.184.215.14/x' }, headers: vendorHeaders(), source: LOCKED }, 429);
    const ep = (
      await call(`${app.url}${list}`, {
        method: 'POST',
        headers: { ...vendorHeaders(), 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://93.184.215.14/x' }),
      })
    ).body.data as { id: string };
    for (const [method, doc, suffix] of [
      ['DELETE', '/api/vendor/endpoints/{id}/', ''],
      ['POST', '/api/vendor/endpoints/{id}/rotate-secret/', 'rotate-secret/'],
      ['POST', '/api/vendor/endpoints/{id}/test/', 'test/'],
      ['GET', '/api/vendor/endpoints/{id}/deliveries/', 'deliveries/'],
    ] as const) {
      await expectAnswer(method, doc, `${list}${ep.id}/${suffix}`, {}, 401);
      await expectAnswer(method, doc, `${list}${randomUUID()}/${suffix}`, { headers: vendorHeaders() }, 404);
      await expectAnswer(method, doc, `${list}${ep.id}/${suffix}`, { headers: vendorHeaders(), source: LOCKED }, 429);
    }
    const deliveries = '/api/vendor/endpoints/{id}/deliveries/';
    await expectAnswer('GET', deliveries, `${list}${ep.id}/deliveries/?page=0`, { headers: vendorHeaders() }, 400);
    const replay = '/api/vendor/deliveries/{id}/replay/';
    await expectAnswer('POST', replay, `/api/vendor/deliveries/${randomUUID()}/replay/`, {}, 401);
    await expectAnswer('POST', replay, `/api/vendor/deliveries/${randomUUID()}/replay/`, { headers: vendorHeaders() }, 404);
    await expectAnswer('POST', replay, `/api/vendor/deliveries/${randomUUID()}/replay/`, { headers: vendorHeaders(), source: LOCKED }, 429);
  });

  it('vendor keys', async () => {
    const keys = '/api/vendor/keys/';
    await expectAnswer('GET', keys, keys, {}, 401);
    await expectAnswer('GET', keys, keys, { headers: vendorHeaders(), source: LOCKED }, 429);
    await expectAnswer('POST', keys, keys, { json: { jwk: { kty: 'RSA' } } }, 401);
    await expectAnswer('POST', keys, keys, { json: { jwk: { kty: 'EC' } }, headers: vendorHeaders() }, 400);
    await bodyLimits('POST', keys, keys, vendorHeaders());
    await expectAnswer('POST', keys, keys, { json: { jwk: { kty: 'RSA' } }, headers: vendorHeaders(), source: LOCKED }, 429);
    const one = '/api/vendor/keys/{kid}/';
    await expectAnswer('DELETE', one, '/api/vendor/keys/nope/', {}, 401);
    await expectAnswer('DELETE', one, '/api/vendor/keys/nope/', { headers: vendorHeaders() }, 404);
    await expectAnswer('DELETE', one, '/api/vendor/keys/nope/', { headers: vendorHeaders(), source: LOCKED }, 429);
  });
});

describe('credentials answer as documented', () => {
  it('issue, view, revoke, status lists', async () => {
    const p = '/api/credentials/employment/';
    const good = { org: c.org.uuid, employee_id: 'E1' };
    const v2Headers = { authorization: v2.apiKey };
    await expectAnswer('POST', p, p, { json: good }, 401);
    await expectAnswer('POST', p, p, { json: { ...good, months: 13 }, headers: v2Headers }, 400);
    await expectAnswer('POST', p, p, { json: { ...good, org: randomUUID() }, headers: v2Headers }, 404);
    await expectAnswer('POST', p, p, { json: good, headers: vendorHeaders() }, 409); // a vendor without a registered key
    await bodyLimits('POST', p, p, v2Headers);
    await expectAnswer('POST', p, p, { json: good, headers: v2Headers, source: LOCKED }, 429);
    const issued = await expectAnswer('POST', p, p, { json: good, headers: v2Headers }, 201);
    const id = (issued.body as { data: { credential_id: string } }).data.credential_id;
    const one = '/api/credentials/{credential_id}/';
    for (const method of ['GET', 'DELETE']) {
      await expectAnswer(method, one, `/api/credentials/${id}/`, {}, 401);
      await expectAnswer(method, one, '/api/credentials/not-a-uuid/', { headers: v2Headers }, 400);
      await expectAnswer(method, one, `/api/credentials/${id}/`, { headers: vendorHeaders() }, 404);
      await expectAnswer(method, one, `/api/credentials/${id}/`, { headers: v2Headers, source: LOCKED }, 429);
      await expectAnswer(method, one, `/api/credentials/${id}/`, { headers: v2Headers }, 200);
    }
    const list = '/credentials/status/{list}';
    await expectAnswer('GET', list, '/credentials/status/x', {}, 400);
    await expectAnswer('GET', list, '/credentials/status/987654', {}, 404);
  });
});

describe('the SDK token and the Connect endpoints answer as documented', () => {
  /** A session of a pending connection: to a new org, or (`email` on its domain) to the established employer. */
  const session = async (email?: string): Promise<TestSession> => {
    const asker = email ? await f.vendor(app.ctx) : v;
    return openSession(app.url, (await f.sdkToken(app.ctx, asker.org, email ? { email, org_name: 'Documented Employer' } : {})).access_token);
  };
  const cookie = (s: TestSession) => ({ cookie: s.cookie });

  it('the token and the session exchange', async () => {
    const p = '/api/sdk/token/';
    const good = { email: 'hr@documented-employer.example', org_name: 'Documented Employer', fullname: 'Asha Rao' };
    await expectAnswer('POST', p, p, { json: good }, 401);
    await expectAnswer('POST', p, p, { json: { ...good, email: 'nope' }, headers: vendorHeaders() }, 400);
    await bodyLimits('POST', p, p, vendorHeaders());
    await expectAnswer('POST', p, p, { json: good, headers: vendorHeaders(), source: LOCKED }, 429);

    const s = '/api/sdk/connect/session/';
    await expectAnswer('POST', s, s, { json: {} }, 400);
    await expectAnswer('POST', s, s, { json: { token: 'a.b.c' } }, 401);
    await bodyLimits('POST', s, s, {});
    await expectAnswer('POST', s, s, { json: { token: 'a.b.c' }, source: LOCKED }, 429);
  });

  it('every Connect endpoint: 401 without the cookie, 429 once the session spent its requests', async () => {
    const spent = await session();
    for (let i = 0; i < CONNECT_LIMIT; i++) await call(`${app.url}/api/sdk/connect/`, { headers: cookie(spent) });
    const endpoints: [string, string, unknown][] = [
      ['GET', '/api/sdk/connect/', undefined],
      ['POST', '/api/sdk/connect/hrms/', { hrms_id: 'reference' }],
      ['POST', '/api/sdk/connect/proof/', { app_key: 'k', app_secret: 's' }],
      ['POST', '/api/sdk/connect/email-code/', undefined],
      ['POST', '/api/sdk/connect/verify-email/', { code: '000000' }],
      ['POST', '/api/sdk/connect/approve/', { opted_in: [], opted_out: [] }],
      ['POST', '/api/sdk/connect/reject/', undefined],
    ];
    for (const [method, path, json] of endpoints) {
      await expectAnswer(method, path, path, { json }, 401);
      await expectAnswer(method, path, path, { json, headers: cookie(spent) }, 429);
    }
  });

  it('bodies, proofs, codes and decisions', async () => {
    const at = (x: string) => `/api/sdk/connect/${x}/`;
    const established = await session('hr@documented-employer.example');
    const s = cookie(established);
    for (const x of ['hrms', 'proof', 'verify-email', 'approve']) {
      await expectAnswer('POST', at(x), at(x), { json: { nope: 1 }, headers: s }, 400);
      await bodyLimits('POST', at(x), at(x), s);
    }
    // An established org: no e-mail code is needed, and approval needs proof of control first.
    await expectAnswer('POST', at('email-code'), at('email-code'), { headers: s }, 400);
    await expectAnswer('POST', at('approve'), at('approve'), { json: { opted_in: [], opted_out: [] }, headers: s }, 403);
    await expectAnswer('POST', at('proof'), at('proof'), { json: { app_key: `k${randomUUID()}`, app_secret: 'wrong' }, headers: s }, 403);

    // A new org: a code sent, a wrong one entered.
    const newOrg = cookie(await session());
    await expectAnswer('POST', at('email-code'), at('email-code'), { headers: newOrg }, 200);
    await expectAnswer('POST', at('verify-email'), at('verify-email'), { json: { code: '000000' }, headers: newOrg }, 403);

    // Decided: every step after the rejection is a 409.
    const decided = cookie(await session());
    await expectAnswer('POST', at('reject'), at('reject'), { headers: decided }, 200);
    await expectAnswer('POST', at('reject'), at('reject'), { headers: decided }, 409);
    await expectAnswer('POST', at('approve'), at('approve'), { json: { opted_in: [], opted_out: [] }, headers: decided }, 409);
    await expectAnswer('POST', at('email-code'), at('email-code'), { headers: decided }, 409);
    await expectAnswer('POST', at('verify-email'), at('verify-email'), { json: { code: '000000' }, headers: decided }, 409);
    await expectAnswer('POST', at('proof'), at('proof'), { json: { app_key: 'k', app_secret: 's' }, headers: decided }, 409);
    const hrms = {
      hrms_id: 'reference',
      access_credentials: { client_id: 'x', client_secret: 'y', api_key: '', grant_type: 'client_credentials', hrms_host: 'http://127.0.0.1:9' },
      api_configs: [],
    };
    await expectAnswer('POST', at('hrms'), at('hrms'), { json: hrms, headers: decided }, 409);
  });
});

describe('operations and routing answer as documented', () => {
  it('metrics: 401 without or with a wrong admin token, 429 from a source past its budget', async () => {
    await expectAnswer('GET', '/metrics', '/metrics', {}, 401);
    await expectAnswer('GET', '/metrics', '/metrics', { headers: { authorization: 'Bearer wrong' } }, 401);
    await expectAnswer('GET', '/metrics', '/metrics', { headers: { authorization: `Bearer ${app.env.HRX_ADMIN_TOKEN}` }, source: ADMIN_LOCKED }, 429);
  });

  it('a method a path does not have is 405, an unknown path 404: the error envelope, as the document says', async () => {
    expect(DOCUMENT.info).toBeDefined();
    const description = (DOCUMENT.info as { description?: string }).description ?? '';
    expect(description).toContain('`404 Not found.`');
    expect(description).toContain('`405 Method "X" not allowed.`');
    const envelope = (res: { body: object }) => expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'message', 'requestId']);
    for (const [docPath, item] of Object.entries(DOCUMENT.paths)) {
      const method = ['DELETE', 'PUT', 'POST', 'GET'].find((m) => !(m.toLowerCase() in item))!;
      const res = await call(`${app.url}${docPath.replace(/\{\w+\}/g, randomUUID())}`, { method, headers: { 'x-forwarded-for': fresh() } });
      expect({ path: docPath, status: res.status, message: res.body.message }).toEqual({
        path: docPath,
        status: 405,
        message: `Method "${method}" not allowed.`,
      });
      envelope(res);
    }
    const unknown = await call(`${app.url}/api/nothing/here/`);
    expect({ status: unknown.status, message: unknown.body.message }).toEqual({ status: 404, message: 'Not found.' });
    envelope(unknown);
  });
});

describe('/readyz while Redis is down', () => {
  it('answers 503 with its own body, as documented', async () => {
    const redis = await startPrivateRedis();
    const down = await startPrivateApp(privateEnv(DATABASE_URL, redis.url));
    try {
      await redis.stop();
      const { expectAnswer: ask } = documentedCalls(() => down.url, MAX_BODY);
      const res = await ask('GET', '/readyz', '/readyz', {}, 503);
      expect(res.body.status).toBe('unavailable');
      answered.add('GET /readyz 503');
    } finally {
      await down.stop();
      await redis.stop();
      await dropSchema(down.config.HRX_DB_SCHEMA);
    }
  });
});

describe('Idempotency-Key answers as documented', () => {
  /** One request of a pair: the path with its parameters filled in and what it carries. */
  interface Sent {
    path: string;
    ask: Ask;
  }
  /**
   * Every route that takes the header (docs/api.md "Idempotency"): its method, its documented path
   * and two requests that differ, in the body or, for a route without one (a DELETE, a POST with
   * no body), in the path. Each may be refused or not: the first answer is kept either way.
   */
  const routes = (): [string, string, Sent, Sent][] => {
    const vendorJson = (path: string, n: number): Sent => ({ path, ask: { headers: vendorHeaders(), json: { probe: n } } });
    const employerJson = (path: string, n: number): Sent => ({ path, ask: { headers: employerHeaders(), json: { probe: n } } });
    const sameBody = (method: string, docPath: string, body: (path: string, n: number) => Sent): [string, string, Sent, Sent] => {
      const path = docPath.replace(/\{\w+\}/, randomUUID());
      return [method, docPath, body(path, 1), body(path, 2)];
    };
    /** No body: the request is its method and path, so another path with the same key is another request. */
    const otherPath = (method: string, docPath: string): [string, string, Sent, Sent] => {
      const ask = { headers: vendorHeaders() };
      return [method, docPath, { path: docPath.replace(/\{\w+\}/, randomUUID()), ask }, { path: docPath.replace(/\{\w+\}/, randomUUID()), ask }];
    };
    return [
      sameBody('POST', '/api/v1/employee/consent-data/', vendorJson),
      sameBody('POST', '/api/v1/employee/consent-data/revoke/', vendorJson),
      sameBody('POST', '/api/webhook/v1/employee/consent/revoke/', employerJson),
      sameBody('POST', '/api/webhook/v1/employee/update/', employerJson),
      sameBody('POST', '/api/webhook/v1/employee/erase/', employerJson),
      sameBody('POST', '/api/sdk/token/', vendorJson),
      sameBody('POST', '/api/vendor/connections/{client_org}/sync/', vendorJson),
      sameBody('POST', '/api/terminate_connection/', (path, n) => ({ path, ask: { headers: vendorHeaders(), form: { client_org: `probe-${n}` } } })),
      sameBody('POST', '/api/webhook/v1/setup-config/', (path, n) => ({
        path,
        ask: { json: { client_id: c.org.appKey, client_secret: c.appSecret, probe: n } },
      })),
      sameBody('POST', '/api/vendor/endpoints/', vendorJson),
      otherPath('DELETE', '/api/vendor/endpoints/{id}/'),
      otherPath('POST', '/api/vendor/endpoints/{id}/rotate-secret/'),
      otherPath('POST', '/api/vendor/endpoints/{id}/test/'),
      otherPath('POST', '/api/vendor/deliveries/{id}/replay/'),
      sameBody('POST', '/api/vendor/keys/', vendorJson),
      otherPath('DELETE', '/api/vendor/keys/{kid}/'),
      sameBody('POST', '/api/credentials/employment/', vendorJson),
      otherPath('DELETE', '/api/credentials/{credential_id}/'),
    ];
  };

  it('422 for a key reused with another request, 400 for a malformed key, on every route that takes one', async () => {
    const takers = Object.entries(DOCUMENT.paths).flatMap(([p, item]) =>
      Object.entries(item)
        .filter(([, op]) => JSON.stringify(op).includes('Idempotency-Key'))
        .map(([method]) => `${method.toUpperCase()} ${p}`),
    );
    expect(takers.sort()).toEqual(
      routes()
        .map(([method, p]) => `${method} ${p}`)
        .sort(),
    );
    for (const [method, docPath, first, second] of routes()) {
      const key = { 'idempotency-key': `documented-${randomUUID()}` };
      const ask = first.ask;
      const headers: Record<string, string> = { 'x-forwarded-for': fresh(), ...ask.headers, ...key };
      if (ask.json !== undefined) headers['content-type'] = 'application/json';
      const body = ask.json !== undefined ? JSON.stringify(ask.json) : ask.form ? new URLSearchParams(ask.form) : undefined;
      const firstAnswer = await call(`${app.url}${first.path}`, { method, headers, ...(body === undefined ? {} : { body }) });
      expect(firstAnswer.status, `${method} ${docPath}: ${JSON.stringify(firstAnswer.body)}`).toBeLessThan(500);
      const reused = await expectAnswer(method, docPath, second.path, { ...second.ask, headers: { ...second.ask.headers, ...key } }, 422);
      expect(reused.body.error).toBe('idempotency_key_reused');
      const badKey = { ...second.ask, headers: { ...second.ask.headers, 'idempotency-key': 'k'.repeat(256) } };
      const bad = await expectAnswer(method, docPath, second.path, badKey, 400);
      expect(bad.body.error).toBe('validation_failed');
    }
  });
});

describe('the document against what was answered', () => {
  it('lists no error status that no request here provoked, but those NOT_PROVOKED names', () => {
    const missing: string[] = [];
    for (const [docPath, item] of Object.entries(DOCUMENT.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const key = `${method.toUpperCase()} ${docPath}`;
        for (const status of Object.keys(op.responses).map(Number)) {
          if (status < 400 || answered.has(`${key} ${status}`) || NOT_PROVOKED['*']![status] || NOT_PROVOKED[key]?.[status]) continue;
          missing.push(`${key} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
