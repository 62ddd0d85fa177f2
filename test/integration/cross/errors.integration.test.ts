/**
 * Error rows of docs/errors.md (part 1): routing (404 / 405, trailing slash, X-Request-Id),
 * credentials (401 rows of docs/api.md "Credentials", `/admin/queues` included), and the reads: employee details
 * and org details. Bodies and statuses are asserted exactly. Part 2 (setup-config, vendor
 * connections, terminate, body limits and media types) is errors-requests.integration.test.ts.
 *
 * Left out on purpose: 423 (sync in progress) is covered by the termination tests; 429 and 500
 * are not produced by these endpoints under normal use (no rate limit is reached here, and a 500
 * would be a bug), so they have no row here.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/crypto/secrets';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid, plain, UUID_V4, withoutRequestId } from '../../support/expect-error';
import { dbQuery, storesOf } from '../../support/db';

const UNKNOWN_UUID = '6f1c2b8e-3d4a-4f5b-9c6d-7e8f9a0b1c2d';

let app: TestApp;
let v: Awaited<ReturnType<typeof f.vendor>>;
let other: Awaited<ReturnType<typeof f.vendor>>;
let approved: Awaited<ReturnType<typeof f.client>>;
let consent: Awaited<ReturnType<typeof f.client>>;
let pending: Awaited<ReturnType<typeof f.client>>;
let live: Awaited<ReturnType<typeof f.client>>;
let stranger: Awaited<ReturnType<typeof f.client>>;

beforeAll(async () => {
  // Its many wrong credentials from one source would pass the failed-auth limit (tested elsewhere).
  app = await startTestApp({ worker: false, env: { HRX_AUTH_FAILURE_LIMIT: '1000' } });
  const { ctx } = app;
  v = await f.vendor(ctx);
  other = await f.vendor(ctx);
  [approved, consent, pending, live, stranger] = await Promise.all([f.client(ctx), f.client(ctx), f.client(ctx), f.client(ctx), f.client(ctx)]);
  await f.connection(ctx, v.org.uuid, approved.org.uuid);
  // Consent required (the service's default), and no consent recorded.
  await ctx.services.connections.create({ vendorUuid: v.org.uuid, clientUuid: consent.org.uuid });
  await f.connection(ctx, v.org.uuid, pending.org.uuid, { status: 'pending' });
  await f.connection(ctx, v.org.uuid, live.org.uuid, { liveSource: true });
  for (const c of [approved, consent, pending, live, stranger]) {
    await f.employees(ctx, c.org.id, [{ employeeId: 'EMP00001', name: 'Asha Rao' }]);
  }
});
afterAll(async () => {
  await app?.stop();
});

const u = (path: string) => `${app.url}${path}`;
const details = (id: string, query: Record<string, string>, headers: Record<string, string> = { username: v.apiKey }) =>
  call(u(`/api/employee_details/${id}?${new URLSearchParams(query).toString()}`), { headers });
const q = (c: { org: { uuid: string } }, extra: Record<string, string> = {}) => ({ org: c.org.uuid, vendor_org: v.org.uuid, ...extra });
const form = (fields: Record<string, string>) => {
  const fd = new FormData();
  for (const [k, val] of Object.entries(fields)) fd.append(k, val);
  return fd;
};
const adminBasic = () => `Basic ${Buffer.from(`admin:${app.env.HRX_ADMIN_TOKEN}`).toString('base64')}`;

describe('error rows of docs/errors.md: routing, credentials, reads', () => {
  describe('routing', () => {
    it('an unknown path is 404 Not found. before any credential is looked at', async () => {
      for (const [method, path] of [
        ['GET', '/api/nope'],
        ['POST', '/api/nope/'],
        ['GET', '/'],
        ['GET', '/api/employee_details/'],
      ]) {
        expectError(await call(u(path!), { method }), 404, plain('Not found.'));
      }
    });

    it('a known path with another method is 405 Method "X" not allowed. before any credential', async () => {
      const paths = [
        '/api/employee_details/EMP00001',
        `/api/org_details/${approved.org.uuid}/`,
        '/api/vendor/connections/',
        '/api/terminate_connection/',
        '/api/webhook/v1/setup-config/',
      ];
      for (const path of paths) expectError(await call(u(path), { method: 'DELETE' }), 405, plain('Method "DELETE" not allowed.'));
      expectError(await call(u('/api/webhook/v1/setup-config'), { method: 'PUT' }), 405, plain('Method "PUT" not allowed.'));
      expectError(await call(u('/api/vendor/connections'), { method: 'POST', headers: { authorization: v.apiKey } }), 405, plain('Method "POST" not allowed.'));
    });

    it('a path is served the same with and without its trailing slash, without redirects', async () => {
      const pairs: [string, RequestInit][] = [
        [`/api/employee_details/EMP00001?org=${approved.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } }],
        [`/api/org_details/${approved.org.uuid}/`, { headers: { authorization: v.apiKey } }],
        ['/api/vendor/connections/', { headers: { authorization: v.apiKey } }],
        ['/api/vendor/connections/?page=9', { headers: { authorization: v.apiKey } }],
        ['/api/terminate_connection/', { method: 'POST', headers: { authorization: v.apiKey }, body: form({ client_org: UNKNOWN_UUID }) }],
      ];
      for (const [path, init] of pairs) {
        const [p, qs] = path.split('?');
        const slash = p!.endsWith('/') ? p! : `${p}/`;
        const bare = p!.endsWith('/') ? p!.slice(0, -1) : p!;
        const a = await call(u(slash + (qs ? `?${qs}` : '')), { ...init, redirect: 'manual' });
        const init2 = init.body instanceof FormData ? { ...init, body: form({ client_org: UNKNOWN_UUID }) } : init;
        const b = await call(u(bare + (qs ? `?${qs}` : '')), { ...init2, redirect: 'manual' });
        expect(a.status >= 300 && a.status < 400).toBe(false);
        expect({ status: b.status, body: withoutRequestId(b.body) }).toStrictEqual({ status: a.status, body: withoutRequestId(a.body) });
        expect(a.headers.get('location')).toBeNull();
        expect(b.headers.get('location')).toBeNull();
      }
    });

    it('every response carries its own X-Request-Id (UUID v4), equal to the body requestId', async () => {
      const responses = [
        await call(u('/healthz')),
        await call(u('/static/org-logo.svg')),
        await call(u('/api/nope')),
        await call(u('/api/vendor/connections/'), { method: 'DELETE' }),
        await call(u('/api/vendor/connections/'), { headers: { authorization: v.apiKey } }),
        await call(u(`/api/org_details/${v.org.uuid}/`), { headers: { authorization: v.apiKey } }),
        await call(u('/admin/queues')),
        await call(u('/admin/queues'), { headers: { authorization: adminBasic() } }),
      ];
      const ids = responses.map((r) => r.headers.get('x-request-id'));
      for (const id of ids) expect(id).toMatch(UUID_V4);
      expect(new Set(ids).size).toBe(ids.length);
      for (const r of responses) {
        if (r.body && typeof r.body === 'object' && 'requestId' in r.body) expect(r.body.requestId).toBe(r.headers.get('x-request-id'));
      }
      // The org record is top-level (not an envelope): no requestId in it, the header still there.
      expect(responses[5]!.body.uuid).toBe(v.org.uuid);
    });
  });
});

describe('error rows of docs/errors.md: routing, credentials, reads: credentials (docs/api.md "Credentials")', () => {
  describe('credentials (docs/api.md "Credentials")', () => {
    it('401 Authentication credentials were not provided. on every endpoint without one', async () => {
      const missing = plain('Authentication credentials were not provided.');
      expectError(await details('EMP00001', q(approved), {}), 401, missing);
      // The credential is checked before the query: no query at all is still 401.
      expectError(await call(u('/api/employee_details/EMP00001')), 401, missing);
      // The API key in the wrong header is not a credential for this endpoint.
      expectError(await details('EMP00001', q(approved), { authorization: v.apiKey }), 401, missing);
      expectError(await call(u(`/api/org_details/${approved.org.uuid}/`)), 401, missing);
      expectError(await call(u('/api/vendor/connections/')), 401, missing);
      expectError(await call(u('/api/vendor/connections/?page_size=101')), 401, missing);
      expectError(await call(u('/api/terminate_connection/'), { method: 'POST', body: form({ client_org: approved.org.uuid }) }), 401, missing);
      expectError(
        await call(u('/api/terminate_connection/'), { method: 'POST', headers: { username: v.apiKey }, body: form({ client_org: approved.org.uuid }) }),
        401,
        missing,
      );
      expectError(await call(u('/admin/queues')), 401, missing);
      expectError(await call(u('/admin/queues/')), 401, missing);
    });

    it('401 Invalid token. for a wrong or unknown key, with or without Bearer', async () => {
      const bad = plain('Invalid token.');
      const wrong = 'hrx_' + 'A'.repeat(43);
      for (const key of [wrong, `${v.apiKey}x`, `Bearer ${wrong}`]) {
        expectError(await details('EMP00001', q(approved), { username: key }), 401, bad);
        expectError(await call(u(`/api/org_details/${approved.org.uuid}/`), { headers: { authorization: key } }), 401, bad);
        expectError(await call(u('/api/vendor/connections/'), { headers: { authorization: key } }), 401, bad);
        expectError(
          await call(u('/api/terminate_connection/'), { method: 'POST', headers: { authorization: key }, body: form({ client_org: approved.org.uuid }) }),
          401,
          bad,
        );
      }
      // The connection was not touched by any of these.
      expect((await details('EMP00001', q(approved))).status).toBe(200);
    });

    it('401 Invalid token. for a revoked key', async () => {
      const key = await app.ctx.services.orgs.createApiKey(v.org.uuid);
      const found = await storesOf(app).orgs.findByApiKeyHash(hashApiKey(key, app.ctx.apiKeyPeppers[0]!));
      expect(await storesOf(app).orgs.revokeApiKey(found!.keyId)).toBe(true);
      expectError(await details('EMP00001', q(approved), { username: key }), 401, plain('Invalid token.'));
      expectError(await call(u('/api/vendor/connections/'), { headers: { authorization: `Bearer ${key}` } }), 401, plain('Invalid token.'));
    });

    it('401 Invalid token. when vendor_org is not the org of the key (employee details)', async () => {
      const bad = plain('Invalid token.');
      expectError(await details('EMP00001', { org: approved.org.uuid, vendor_org: other.org.uuid }), 401, bad);
      expectError(await details('EMP00001', { org: approved.org.uuid, vendor_org: UNKNOWN_UUID }), 401, bad);
      expectError(await details('EMP00001', { org: approved.org.uuid, vendor_org: 'not-a-uuid' }), 401, bad);
      expectError(await details('EMP00001', { org: approved.org.uuid, vendor_org: approved.org.uuid }), 401, bad);
      // Another vendor's own key naming the right vendor_org is refused the same way.
      expectError(await details('EMP00001', q(approved), { username: other.apiKey }), 401, bad);
    });

    it("401 Invalid token. for a client org's own key on every vendor endpoint", async () => {
      const clientKey = await app.ctx.services.orgs.createApiKey(approved.org.uuid);
      const bad = plain('Invalid token.');
      expectError(await details('EMP00001', { org: approved.org.uuid, vendor_org: approved.org.uuid }, { username: clientKey }), 401, bad);
      expectError(await call(u('/api/vendor/connections/'), { headers: { authorization: clientKey } }), 401, bad);
      expectError(
        await call(u('/api/terminate_connection/'), {
          method: 'POST',
          headers: { authorization: clientKey },
          body: form({ client_org: approved.org.uuid }),
        }),
        401,
        bad,
      );
      expectError(
        await call(u('/api/v1/employee/consent-data/'), {
          method: 'POST',
          headers: { authorization: clientKey, 'content-type': 'application/json' },
          body: JSON.stringify({
            org: approved.org.uuid,
            employee_id: 'EMP00001',
            consent_language: 'I agree.',
            consent_timestamp: new Date().toISOString(),
            consent_expiry: new Date(Date.now() + 60_000).toISOString(),
          }),
        }),
        401,
        bad,
      );
      // Its own org record stays readable (org details takes any org's key, docs/api.md "Credentials").
      expect((await call(u(`/api/org_details/${approved.org.uuid}/`), { headers: { authorization: clientKey } })).status).toBe(200);
      // Nothing was terminated.
      expect((await details('EMP00001', q(approved))).status).toBe(200);
    });

    it('a `Bearer ` prefix is accepted on the Authorization endpoints', async () => {
      for (const path of [`/api/org_details/${approved.org.uuid}/`, '/api/vendor/connections/']) {
        const plainKey = await call(u(path), { headers: { authorization: v.apiKey } });
        const bearer = await call(u(path), { headers: { authorization: `Bearer ${v.apiKey}` } });
        expect(plainKey.status).toBe(200);
        expect({ status: bearer.status, body: withoutRequestId(bearer.body) }).toStrictEqual({ status: 200, body: withoutRequestId(plainKey.body) });
      }
      const c = await f.client(app.ctx);
      const conn = await f.connection(app.ctx, v.org.uuid, c.org.uuid);
      const res = await call(u('/api/terminate_connection/'), {
        method: 'POST',
        headers: { authorization: `Bearer ${v.apiKey}` },
        body: form({ client_org: c.org.uuid }),
      });
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        requestId: res.headers.get('x-request-id'),
        message: 'Connection terminated successfully',
        data: { connection_id: conn.id, org_id: c.org.uuid, application_connection_status: 'Terminated' },
      });
    });

    it('/admin/queues takes the admin token by Basic or Bearer; anything else is 401 Invalid token.', async () => {
      const token = app.env.HRX_ADMIN_TOKEN!;
      for (const authorization of [`Bearer ${token}x`, `Bearer ${v.apiKey}`, token.slice(1), `Basic ${Buffer.from(`admin:${token}x`).toString('base64')}`]) {
        expectError(await call(u('/admin/queues'), { headers: { authorization } }), 401, plain('Invalid token.'));
      }
      for (const authorization of [adminBasic(), `Bearer ${token}`]) {
        const res = await call(u('/admin/queues'), { headers: { authorization } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.body).toContain('<title>Bull Dashboard</title>');
      }
    });
  });
});

describe('error rows of docs/errors.md: routing, credentials, reads: employee details (docs/api.md "Employee details")', () => {
  describe('employee details (docs/api.md "Employee details")', () => {
    it('reads an approved, consent-free employee (the baseline of the rows below)', async () => {
      const res = await details('EMP00001', q(approved));
      expect(res.status).toBe(200);
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
      expect(res.body.message).toBe('success');
      expect(res.body.data).toMatchObject({ employeeId: 'EMP00001', name: 'Asha Rao', pan: 'NOT AVAILABLE', terminationDate: '' });
    });

    it('400 validation failure for a missing or bad query parameter', async () => {
      expectError(await details('EMP00001', { org: approved.org.uuid }), 400, invalid('vendor_org', 'required'));
      expectError(await details('EMP00001', { vendor_org: v.org.uuid }), 400, invalid('org', 'required'));
      expectError(await details('EMP00001', q(approved, { source: 'bogus' })), 400, invalid('source', 'must be one of: db, hrms'));
    });

    it('404 Invalid Organisation ID without an approved connection to org', async () => {
      const body = plain('Invalid Organisation ID');
      for (const org of [UNKNOWN_UUID, 'not-a-uuid', pending.org.uuid, stranger.org.uuid, v.org.uuid]) {
        expectError(await details('EMP00001', { org, vendor_org: v.org.uuid }), 404, body);
        expectError(await details('EMP00001', { org, vendor_org: v.org.uuid, source: 'hrms' }), 404, body);
      }
    });

    it('404 Employee not found for an unknown or removed employee', async () => {
      const body = plain('Employee not found');
      expectError(await details('EMP99999', q(approved)), 404, body);
      expectError(await details(UNKNOWN_UUID, q(approved)), 404, body);
      // Live read where the connection allows it but the HRMS has no such employee (no configuration).
      expectError(await details('EMP00001', q(live, { source: 'hrms' })), 404, body);
      // An employee missing from a full sync is no longer served (docs/behaviour.md "Sync").
      const c = await f.client(app.ctx);
      await f.connection(app.ctx, v.org.uuid, c.org.uuid);
      await f.employees(app.ctx, c.org.id, [{ employeeId: 'EMP00001' }]);
      expect((await details('EMP00001', q(c))).status).toBe(200);
      await storesOf(app).employees.removeUnseen(c.org.id, randomUUID());
      expectError(await details('EMP00001', q(c)), 404, body);
    });

    it('403 Source Permission denied: source=hrms without live reads, body without requestId', async () => {
      for (const id of ['EMP00001', 'EMP99999']) {
        const res = await details(id, q(approved, { source: 'hrms' }));
        expectError(res, 403, { message: 'Source Permission denied', data: {} }, { requestId: false });
        expect(res.body).not.toHaveProperty('requestId');
      }
    });

    it('403 Consent not found or expired where the connection requires consent and none is recorded', async () => {
      expectError(await details('EMP00001', q(consent)), 403, plain('Consent not found or expired'));
      // Reading by the store id is the same employee, refused the same way.
      const [row] = await dbQuery(app, `select id from employees where org_id = $1`, [consent.org.id]).then((r) => r.rows as { id: string }[]);
      expectError(await details(row!.id, q(consent)), 403, plain('Consent not found or expired'));
    });
  });

  describe('org details (docs/api.md "Credentials")', () => {
    it('404 Not found. for an unknown, malformed or unconnected org', async () => {
      const headers = { authorization: v.apiKey };
      for (const org of [UNKNOWN_UUID, 'not-a-uuid', stranger.org.uuid, other.org.uuid]) {
        expectError(await call(u(`/api/org_details/${org}/`), { headers }), 404, plain('Not found.'));
      }
      // A terminated connection no longer connects the orgs.
      const c = await f.client(app.ctx);
      await f.connection(app.ctx, v.org.uuid, c.org.uuid);
      expect((await call(u(`/api/org_details/${c.org.uuid}/`), { headers })).status).toBe(200);
      expect((await call(u('/api/terminate_connection/'), { method: 'POST', headers, body: form({ client_org: c.org.uuid }) })).status).toBe(200);
      expectError(await call(u(`/api/org_details/${c.org.uuid}/`), { headers }), 404, plain('Not found.'));
    });

    it('answers for its own org and connected orgs (pending included), top-level with the secret masked', async () => {
      for (const c of [v, approved]) {
        const res = await call(u(`/api/org_details/${c.org.uuid}`), { headers: { authorization: v.apiKey } });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ uuid: c.org.uuid, org_name: c.org.orgName });
        expect(res.body.application.app_secret).toMatch(new RegExp(`^\\*+${c.appSecret.slice(-4)}$`));
        // Only the caller's own org shows its app_key; another org's is masked like the secret.
        expect(res.body.application.app_key).toBe(c === v ? c.org.appKey : '*'.repeat(c.org.appKey.length - 4) + c.org.appKey.slice(-4));
        expect(res.body).not.toHaveProperty('requestId');
      }
      // A pending connection learns nothing of the employer's ids, domain or secrets (docs/api.md "Org details").
      const res = await call(u(`/api/org_details/${pending.org.uuid}`), { headers: { authorization: v.apiKey } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ uuid: pending.org.uuid, org_name: pending.org.orgName, id: 0 });
      expect(res.body.application).toMatchObject({ app_key: '********', app_secret: '********' });
    });
  });
});
