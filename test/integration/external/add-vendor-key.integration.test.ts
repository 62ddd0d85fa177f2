/**
 * `POST /api/vendor/keys/` (docs/api.md "Vendor self-service"): the operator's key rules over the
 * vendor's API key: 201 with the key as listed, and V2 answers then encrypted to it; a key under
 * 2048 bits, a private JWK, a non-RSA key and a `kid` already used are 400 naming `jwk`.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { expectError, invalid } from '../../support/expect-error';
import { client, connection, employees, v2Vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { vendorCall } from '../../support/self-service';

const rsa = (bits: number, kid: string) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return { publicJwk: { ...publicKey.export({ format: 'jwk' }), kid }, privateJwk: { ...privateKey.export({ format: 'jwk' }), kid } };
};

describe('POST /api/vendor/keys/', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
  });
  afterAll(async () => app?.stop());

  it('201 with the key; the next V2 answer is encrypted to it (the newest key)', async () => {
    const v = await v2Vendor(app.ctx);
    const c = await client(app.ctx);
    const conn = await connection(app.ctx, v.org.uuid, c.org.uuid);
    await employees(app.ctx, c.org.id, [{ employeeId: 'EMP00001', name: 'Asha Rao' }]);
    const next = rsa(3072, 'rotated-2026');
    const res = await vendorCall(app, v.apiKey, 'POST', '/api/vendor/keys/', { jwk: next.publicJwk });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      kid: 'rotated-2026',
      bits: 3072,
      use: null,
      alg: null,
      status: 'active',
      created_at: expect.any(String),
      revoked_at: null,
    });
    const jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
    const encrypted = await buildEncryptedRequest({
      connectionId: conn.id,
      employeeId: 'EMP00001',
      vendorPrivateKey: next.privateJwk,
      vendorKid: 'rotated-2026',
      servicePublicJwk: jwks.keys.find((k) => k.use === 'enc')!,
    });
    const read = await call(`${app.url}/api/external/employee/`, {
      method: 'POST',
      headers: { authorization: v.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ encrypted_payload: encrypted }),
    });
    expect(read.status).toBe(200);
    const opened = await openEncryptedResponse({ data: read.body.data, vendorPrivateKey: next.privateJwk, serviceSigningJwks: jwks });
    expect(opened.employee).toMatchObject({ employeeId: 'EMP00001' });
  });

  it('400 naming jwk: under 2048 bits, private members, not RSA, a kid already used', async () => {
    const v = await v2Vendor(app.ctx, { kid: 'taken' });
    const add = (jwk: unknown) => vendorCall(app, v.apiKey, 'POST', '/api/vendor/keys/', { jwk });
    expectError(await add(rsa(1024, 'small').publicJwk), 400, invalid('jwk', 'Invalid key: RSA modulus under 2048 bits'));
    expectError(await add(rsa(2048, 'priv').privateJwk), 400, invalid('jwk', 'Invalid key: private key members are not accepted'));
    expectError(await add({ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' }), 400, invalid('jwk', 'Invalid key: kty must be RSA'));
    expectError(await add(rsa(2048, 'taken').publicJwk), 400, invalid('jwk', 'a key with this kid is already registered for this org'));
  });
});
