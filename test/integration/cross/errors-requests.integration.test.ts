/**
 * Error rows of docs/errors.md (part 2): request bodies and parameters of setup-config,
 * vendor connections and terminate connection, with the media type (415), body limit (413)
 * and JSON rows. Part 1 is errors.integration.test.ts. 423, 429 and 500: see there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid, plain } from '../../support/expect-error';
import { SUPPORTED_HRMS } from '../../../src/hrms/registry';

const UNKNOWN_UUID = '6f1c2b8e-3d4a-4f5b-9c6d-7e8f9a0b1c2d';
const MIB = 1024 * 1024;

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
const simCreds = { clientId: 'sim-client', clientSecret: 'sim-secret-errors' };
let v: Awaited<ReturnType<typeof f.vendor>>;
let lonely: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 3, ...simCreds });
  v = await f.vendor(app.ctx);
  lonely = await f.vendor(app.ctx);
  c = await f.client(app.ctx);
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const u = (path: string) => `${app.url}${path}`;
const json = { 'content-type': 'application/json' };
const form = (fields: Record<string, string>) => {
  const fd = new FormData();
  for (const [k, val] of Object.entries(fields)) fd.append(k, val);
  return fd;
};

describe('error rows of docs/errors.md: request bodies and parameters', () => {
  describe('setup-config (docs/api.md "Setup config")', () => {
    const post = (body: unknown, headers: Record<string, string> = json) =>
      call(u('/api/webhook/v1/setup-config/'), { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const good = () => f.setupBody(c, sim, simCreds);

    it('401 Invalid client credentials. for a wrong app secret or an unknown app key', async () => {
      const body = plain('Invalid client credentials.');
      expectError(await post({ ...good(), client_secret: `${c.appSecret}x` }), 401, body);
      expectError(await post({ ...good(), client_secret: v.appSecret }), 401, body);
      expectError(await post({ ...good(), client_id: 'app_unknown' }), 401, body);
      // A vendor org's own application credentials are not a client org's (docs/api.md "Credentials").
      expectError(await post({ ...good(), client_id: v.org.appKey, client_secret: v.appSecret }), 401, body);
    });

    it('400 HRMS credentials rejected: <reason> when the HRMS refuses them', async () => {
      const body = f.setupBody(c, sim, { ...simCreds, clientSecret: 'wrong-secret' });
      expectError(await post(body), 400, { code: 400, message: 'HRMS credentials rejected: the HRMS refused the credentials', data: null });
    });

    it('400 validation failure for unknown fields, missing fields and an unsupported hrms_id', async () => {
      expectError(await post({ ...good(), extra: 1 }), 400, invalid('extra', 'unknown field'));
      expectError(
        await post({ ...good(), access_credentials: { ...good().access_credentials, scope: 'all' } }),
        400,
        invalid('access_credentials.scope', 'unknown field'),
      );
      const { client_id: _drop, ...noClientId } = good();
      expectError(await post(noClientId), 400, invalid('client_id', 'required'));
      expectError(await post({ ...good(), hrms_id: 'workday' }), 400, invalid('hrms_id', `unsupported HRMS "workday": one of ${SUPPORTED_HRMS.join(', ')}`));
      expectError(
        await post({ ...good(), access_credentials: { ...good().access_credentials, client_secret: '' } }),
        400,
        invalid('access_credentials.client_secret', 'required for grant_type client_credentials'),
      );
      expectError(await post([]), 400, invalid('body', 'must be an object'));
      expectError(await post(''), 400, invalid('body', 'required'));
    });

    it('400 Malformed JSON body', async () => {
      for (const raw of ['{"client_id":', '{client_id: 1}', 'nope']) {
        expectError(await post(raw), 400, { code: 400, message: 'Malformed JSON body', data: null });
      }
    });

    it('415 Unsupported media type for anything but JSON', async () => {
      const types: Record<string, string>[] = [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}];
      for (const headers of types) {
        expectError(await post(good(), headers), 415, plain('Unsupported media type'));
      }
      expectError(
        await call(u('/api/webhook/v1/setup-config/'), { method: 'POST', body: form({ client_id: c.org.appKey }) }),
        415,
        plain('Unsupported media type'),
      );
    });

    it('413 Request body too large past 1 MiB, declared or streamed', async () => {
      expectError(await post({ ...good(), pad: 'x'.repeat(MIB) }), 413, plain('Request body too large'));
      const bytes = new TextEncoder().encode(JSON.stringify({ ...good(), pad: 'y'.repeat(MIB) }));
      const stream = new ReadableStream({
        start(ctl) {
          ctl.enqueue(bytes);
          ctl.close();
        },
      });
      const res = await call(u('/api/webhook/v1/setup-config/'), { method: 'POST', headers: json, body: stream, duplex: 'half' });
      expectError(res, 413, plain('Request body too large'));
    });

    it('succeeds with the right credentials (the baseline of the rows above), never echoing them', async () => {
      const res = await post(good());
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        requestId: res.headers.get('x-request-id'),
        message: 'success',
        data: { org_id: c.org.uuid, hrms_id: 'reference', configured_apis: ['employees'], next_sync_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      });
      // Without its trailing slash: the same.
      const bare = await call(u('/api/webhook/v1/setup-config'), { method: 'POST', headers: json, body: JSON.stringify(good()) });
      expect(bare.status).toBe(200);
      expect(bare.body.data.org_id).toBe(c.org.uuid);
    });
  });

  describe('vendor connections (docs/api.md "Vendor connections")', () => {
    const list = (qs: string, key = v.apiKey) => call(u(`/api/vendor/connections/${qs}`), { headers: { authorization: key } });

    beforeAll(async () => {
      for (let i = 0; i < 3; i++) {
        const client = await f.client(app.ctx);
        await f.connection(app.ctx, v.org.uuid, client.org.uuid, i === 0 ? { status: 'pending' } : {});
      }
    });

    it('400 validation failure for page_size over 100, bad page values and an unknown status', async () => {
      expectError(await list('?page_size=101'), 400, invalid('page_size', 'must be at most 100'));
      expectError(await list('?page_size=0'), 400, invalid('page_size', 'must be at least 1'));
      expectError(await list('?page=0'), 400, invalid('page', 'must be at least 1'));
      expectError(await list('?page=abc'), 400, invalid('page', 'must be a number'));
      for (const status of ['bogus', 'terminated', 'APPROVED']) {
        expectError(await list(`?status=${status}`), 400, invalid('status', 'must be one of: pending, approved, rejected'));
      }
    });

    it('404 Invalid page. past the end; page 1 of nothing is an empty page', async () => {
      const first = await list('?page_size=2');
      expect(first.status).toBe(200);
      expect(first.body.pageInfo).toStrictEqual({ totalPages: 2, totalItems: 3, items: 2, next: true, previous: false });
      const last = await list('?page=2&page_size=2');
      expect(last.body.pageInfo).toStrictEqual({ totalPages: 2, totalItems: 3, items: 1, next: false, previous: true });
      expectError(await list('?page=3&page_size=2'), 404, plain('Invalid page.'));
      expectError(await list('?page=2'), 404, plain('Invalid page.'));
      expectError(await list('?page=2&status=rejected'), 404, plain('Invalid page.'));
      expectError(await list('?page=2', lonely.apiKey), 404, plain('Invalid page.'));
      const empty = await list('', lonely.apiKey);
      expect(empty.status).toBe(200);
      expect(empty.body).toStrictEqual({
        requestId: empty.headers.get('x-request-id'),
        message: 'success',
        pageInfo: { totalPages: 0, totalItems: 0, items: 0, next: false, previous: false },
        data: [],
      });
    });
  });
});

describe('error rows of docs/errors.md: request bodies and parameters: terminate connection', () => {
  describe('terminate connection', () => {
    const terminate = (body: RequestInit['body'], headers: Record<string, string> = {}, key = v.apiKey) =>
      call(u('/api/terminate_connection/'), { method: 'POST', headers: { authorization: key, ...headers }, body });
    const notFound = { code: 404, message: 'No organisation found with the given client_org', data: null };

    it('404 No organisation found with the given client_org: malformed, unknown, or not connected', async () => {
      const stranger = await f.client(app.ctx);
      for (const clientOrg of ['nope', UNKNOWN_UUID, stranger.org.uuid, v.org.uuid, lonely.org.uuid]) {
        expectError(await terminate(form({ client_org: clientOrg })), 404, notFound);
      }
      // Form bodies may also be url-encoded.
      expectError(await terminate(new URLSearchParams({ client_org: UNKNOWN_UUID })), 404, notFound);
    });

    it('409 Conflict! Connection already terminated, with status 409 in the body', async () => {
      const client = await f.client(app.ctx);
      const conn = await f.connection(app.ctx, v.org.uuid, client.org.uuid);
      const ok = await terminate(form({ client_org: client.org.uuid.toUpperCase() }));
      expect(ok.status).toBe(200);
      expect(ok.body).toStrictEqual({
        requestId: ok.headers.get('x-request-id'),
        message: 'Connection terminated successfully',
        data: { connection_id: conn.id, org_id: client.org.uuid, application_connection_status: 'Terminated' },
      });
      const conflict = { status: 409, message: 'Conflict! Connection already terminated', data: null };
      expectError(await terminate(form({ client_org: client.org.uuid })), 409, conflict);
      expectError(await terminate(form({ client_org: client.org.uuid })), 409, conflict);
      // A terminated connection is no longer listed.
      const listed = await call(u('/api/vendor/connections/?page_size=100'), { headers: { authorization: v.apiKey } });
      expect(listed.body.data.map((e: { org_id: string }) => e.org_id)).not.toContain(client.org.uuid);
    });

    it('400 validation failure without client_org', async () => {
      expectError(await terminate(form({})), 400, invalid('client_org', 'required'));
      expectError(await terminate(form({ client_org: '  ' })), 400, invalid('client_org', 'required'));
    });

    it('415 Unsupported media type for a body neither a form nor JSON (or missing); JSON is read as the form', async () => {
      // docs/api.md "Terminate connection": the field as JSON is taken (here an org without a connection: the 404 a form gets).
      expectError(await terminate(JSON.stringify({ client_org: c.org.uuid }), json), 404, {
        code: 404,
        ...plain('No organisation found with the given client_org'),
      });
      expectError(await terminate('client_org=x', { 'content-type': 'text/plain' }), 415, plain('Unsupported media type'));
      const none = await call(u('/api/terminate_connection/'), { method: 'POST', headers: { authorization: v.apiKey } });
      expectError(none, 415, plain('Unsupported media type'));
    });

    it('413 Request body too large past 1 MiB', async () => {
      const client = await f.client(app.ctx);
      await f.connection(app.ctx, v.org.uuid, client.org.uuid);
      expectError(await terminate(form({ client_org: client.org.uuid, pad: 'z'.repeat(MIB) })), 413, plain('Request body too large'));
      // Nothing was terminated.
      const listed = await call(u('/api/vendor/connections/?page_size=100'), { headers: { authorization: v.apiKey } });
      expect(listed.body.data.map((e: { org_id: string }) => e.org_id)).toContain(client.org.uuid);
    });
  });
});
