/**
 * `DELETE /api/vendor/keys/{kid}/` (docs/api.md "Vendor self-service"): a revoked key no longer
 * signs a V2 request that hrx accepts; another vendor's key (even with the same kid) is 404
 * exactly as an unknown one and stays usable.
 */
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest } from '../../../src/crypto/jose/client';
import { expectError, plain, withoutRequestId } from '../../support/expect-error';
import { client, connection, employees, v2Vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { vendorCall } from '../../support/self-service';

type V = Awaited<ReturnType<typeof v2Vendor>>;

describe('DELETE /api/vendor/keys/{kid}/', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  /** A V2 read by `v` signed with its key; answers the HTTP status. */
  const v2Read = async (v: V, connectionId: string) => {
    const jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
    const encrypted = await buildEncryptedRequest({
      connectionId,
      employeeId: 'EMP00001',
      vendorPrivateKey: v.privateJwk,
      vendorKid: v.kid,
      servicePublicJwk: jwks.keys.find((k) => k.use === 'enc')!,
    });
    const res = await call(`${app.url}/api/external/employee/`, {
      method: 'POST',
      headers: { authorization: v.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ encrypted_payload: encrypted }),
    });
    return res.status;
  };

  it('revokes its own key: 200, listed revoked, and V2 requests it signs are refused', async () => {
    const v = await v2Vendor(app.ctx, { kid: 'k1' });
    const c = await client(app.ctx);
    const conn = await connection(app.ctx, v.org.uuid, c.org.uuid);
    await employees(app.ctx, c.org.id, [{ employeeId: 'EMP00001' }]);
    expect(await v2Read(v, conn.id)).toBe(200);
    const res = await vendorCall(app, v.apiKey, 'DELETE', '/api/vendor/keys/k1/');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ kid: 'k1', revoked: true });
    expect(await v2Read(v, conn.id)).toBe(400);
    expect((await vendorCall(app, v.apiKey, 'GET', '/api/vendor/keys/')).body.data[0]).toMatchObject({ kid: 'k1', status: 'revoked' });
    expectError(await vendorCall(app, v.apiKey, 'DELETE', '/api/vendor/keys/k1/'), 404, plain('Not found.'));
  });

  it("another vendor's key (same kid) is 404 exactly as an unknown kid, and keeps working", async () => {
    const mine = await v2Vendor(app.ctx, { kid: 'shared-kid' });
    const theirs = await v2Vendor(app.ctx, { kid: 'shared-kid' });
    const other = await v2Vendor(app.ctx, { kid: 'only-theirs' });
    const c = await client(app.ctx);
    const conn = await connection(app.ctx, other.org.uuid, c.org.uuid);
    await employees(app.ctx, c.org.id, [{ employeeId: 'EMP00001' }]);
    const attack = await vendorCall(app, mine.apiKey, 'DELETE', '/api/vendor/keys/only-theirs/');
    const unknown = await vendorCall(app, mine.apiKey, 'DELETE', '/api/vendor/keys/never-was/');
    expectError(attack, 404, plain('Not found.'));
    expect(withoutRequestId(attack.body)).toEqual(withoutRequestId(unknown.body));
    expect(await v2Read(other, conn.id)).toBe(200);
    // Revoking its own `shared-kid` leaves the other vendor's key of that kid active.
    expect((await vendorCall(app, mine.apiKey, 'DELETE', '/api/vendor/keys/shared-kid/')).status).toBe(200);
    expect((await vendorCall(app, theirs.apiKey, 'GET', '/api/vendor/keys/')).body.data[0]).toMatchObject({ kid: 'shared-kid', status: 'active' });
  });
});
