/** `GET /.well-known/jwt-vc-issuer` (docs/credentials.md "Keys and metadata"): `{issuer, jwks}` with the ES256 key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../support/expect-error';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

describe('GET /.well-known/jwt-vc-issuer', () => {
  it('names the issuer (HRX_PUBLIC_URL) and its JWKS, holding the ES256 signing key and no private member', async () => {
    const res = await call(`${app.url}/.well-known/jwt-vc-issuer`);
    expect(res.status).toBe(200);
    expect(res.body.issuer).toBe('http://localhost');
    const es = (res.body.jwks.keys as Record<string, unknown>[]).filter((k) => k.alg === 'ES256');
    expect(es).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.any(String), use: 'sig', alg: 'ES256' }]);
    for (const k of res.body.jwks.keys) expect(k).not.toHaveProperty('d');
  });

  it('refuses another method', async () => {
    expectError(await call(`${app.url}/.well-known/jwt-vc-issuer`, { method: 'POST' }), 405, { message: 'Method "POST" not allowed.', data: null });
  });
});
