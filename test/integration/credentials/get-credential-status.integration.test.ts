/** `GET /api/credentials/{credential_id}/` (docs/api.md "Credentials (SD-JWT VC)"): the issuing vendor's view, never the claims; another vendor's is unknown. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v2Vendor } from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { credentialWorld, issue } from '../../support/credentials';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

describe('GET /api/credentials/{credential_id}/', () => {
  it('answers the issuing vendor {status, iat, exp, revoked_reason}; another vendor, an unknown id and a malformed one get 404', async () => {
    const w = await credentialWorld(app.ctx);
    const other = await v2Vendor(app.ctx);
    const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' });
    const id = res.body.data.credential_id as string;
    const mine = await call(`${app.url}/api/credentials/${id}/`, { headers: { authorization: w.v.apiKey } });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual({ status: 'valid', iat: expect.any(String), exp: res.body.data.exp, revoked_reason: null });
    expectError(await call(`${app.url}/api/credentials/${id}/`, { headers: { authorization: other.apiKey } }), 404, plain('Not found.'));
    expectError(await call(`${app.url}/api/credentials/${id}/`), 401, plain('Authentication credentials were not provided.'));
  });
});
