/**
 * One answer for a malformed id (docs/api.md "Conventions"): on every route that takes an org id
 * (in the path, the query, a JSON or form body), an id that is not a UUID (a word, a UUID with one
 * character more, 100 characters) is answered exactly as a UUID that names no org: same status,
 * same body but the request id, and both as the OpenAPI document says (support/documented.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedCalls, type Ask } from '../../support/documented';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';
import { consentBody } from '../../support/setups';

let app: TestApp;
const { expectAnswer } = documentedCalls(() => app.url, 1024 * 1024);
let v: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
const vendorHeaders = () => ({ authorization: v.apiKey });
const employerHeaders = () => ({ authorization: f.appBasic(c) });

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_TRUST_PROXY: '1' } });
  v = await f.vendor(app.ctx);
  c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await f.employees(app.ctx, c.org.id, [{ employeeId: 'E1' }]);
});
afterAll(async () => {
  await app?.stop();
});

describe('one answer for a malformed id (docs/api.md "Conventions")', () => {
  const MALFORMED = ['acme', `${randomUUID()}0`, 'x'.repeat(100)];
  /** The answer without its request id: what a caller could tell apart. */
  const seen = (r: Awaited<ReturnType<typeof expectAnswer>>) => ({ status: r.status, body: { ...r.body, requestId: undefined } });

  it('is the answer to an unknown id, on every route that takes an org id', async () => {
    const now = Date.now();
    const consent = (org: string) => consentBody(org, { timestamp: new Date(now - 1000), expiry: new Date(now + 86_400_000) });
    const routes: [string, string, (id: string) => string, (id: string) => Ask, number][] = [
      [
        'GET',
        '/api/employee_details/{id}',
        (id) => `/api/employee_details/E1?org=${id}&vendor_org=${v.org.uuid}`,
        () => ({ headers: { username: v.apiKey } }),
        404,
      ],
      ['GET', '/api/org_details/{org}/', (id) => `/api/org_details/${id}/`, () => ({ headers: vendorHeaders() }), 404],
      ['GET', '/api/vendor/connections/{client_org}/status/', (id) => `/api/vendor/connections/${id}/status/`, () => ({ headers: vendorHeaders() }), 404],
      ['POST', '/api/vendor/connections/{client_org}/sync/', (id) => `/api/vendor/connections/${id}/sync/`, () => ({ headers: vendorHeaders() }), 404],
      ['POST', '/api/terminate_connection/', () => '/api/terminate_connection/', (id) => ({ headers: vendorHeaders(), form: { client_org: id } }), 404],
      ['POST', '/api/v1/employee/consent-data/', () => '/api/v1/employee/consent-data/', (id) => ({ headers: vendorHeaders(), json: consent(id) }), 404],
      ['GET', '/api/v1/employee/consent-data/', (id) => `/api/v1/employee/consent-data/?org=${id}&employee_id=E1`, () => ({ headers: vendorHeaders() }), 200],
      [
        'POST',
        '/api/v1/employee/consent-data/revoke/',
        () => '/api/v1/employee/consent-data/revoke/',
        (id) => ({ headers: vendorHeaders(), json: { org: id, employee_id: 'E1' } }),
        404,
      ],
      [
        'POST',
        '/api/webhook/v1/employee/consent/revoke/',
        () => '/api/webhook/v1/employee/consent/revoke/',
        (id) => ({ headers: employerHeaders(), json: { employee_id: 'E1', vendor_org: id } }),
        200,
      ],
    ];
    for (const [method, docPath, path, ask, status] of routes) {
      const unknown = seen(await expectAnswer(method, docPath, path(randomUUID()), ask(randomUUID()), status));
      for (const id of MALFORMED) expect(seen(await expectAnswer(method, docPath, path(id), ask(id), status)), `${method} ${docPath} ${id}`).toEqual(unknown);
    }
  });
});
