/** `GET /.well-known/jwks.json` (docs/v2.md "JWKS"): the service's public keys, one for signatures and one for encryption. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { expectError } from '../../support/expect-error';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /.well-known/jwks.json', () => {
  it('serves public keys only, one per kind (enc RSA-OAEP-256, sig RS256, sig ES256)', async () => {
    const res = await call(`${app.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    const uses = (res.body.keys as { use: string }[]).map((k) => k.use).sort();
    expect(uses).toStrictEqual(['enc', 'sig', 'sig']);
    expect((res.body.keys as { alg: string }[]).map((k) => k.alg).sort()).toStrictEqual(['ES256', 'RS256', 'RSA-OAEP-256']);
    for (const k of res.body.keys) expect(k).not.toHaveProperty('d');
  });

  it('refuses another method', async () => {
    expectError(await call(`${app.url}/.well-known/jwks.json`, { method: 'POST' }), 405, { message: 'Method "POST" not allowed.', data: null });
  });
});
