/**
 * Service key rotation (docs/v2.md "Service keys"): `hrx service-keys rotate` makes new keys current; requests
 * encrypted to a retired `enc` key are served during its grace period and refused after it; the
 * JWKS lists current keys first, then keys in grace, and drops keys whose grace has ended.
 */
import { randomUUID } from 'node:crypto';
import { compactDecrypt, decodeProtectedHeader, type JSONWebKeySet, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { normalizeRecord } from '../../../src/domain/record';
import { hrxJson } from '../../support/cli';
import { expectError, plain } from '../../support/expect-error';
import { client, connection, v2Vendor } from '../../support/factories';
import { call, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { dbQuery, storesOf } from '../../support/db';

let app: TestApp;
let v: Awaited<ReturnType<typeof v2Vendor>>;
let connId: string;

const jwks = async (): Promise<JSONWebKeySet> => (await call(`${app.url}/.well-known/jwks.json`)).body;
const encKey = (set: JSONWebKeySet, kid: string) => set.keys.find((k) => k.kid === kid && k.use === 'enc')!;
const request = (servicePublicJwk: JWK) =>
  buildEncryptedRequest({
    connectionId: connId,
    employeeId: 'EMP00001',
    vendorPrivateKey: v.privateKey,
    vendorKid: v.kid,
    servicePublicJwk,
  });
const post = (payload: string) =>
  call(`${app.url}/api/external/employee/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: v.authorization },
    body: JSON.stringify({ encrypted_payload: payload }),
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The kid of the service key that signed a response. */
const signerKid = async (data: string) => decodeProtectedHeader(new TextDecoder().decode((await compactDecrypt(data, v.privateKey)).plaintext)).kid;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  v = await v2Vendor(app.ctx);
  const c = await client(app.ctx);
  connId = (await connection(app.ctx, v.org.uuid, c.org.uuid)).id;
  await storesOf(app).employees.upsertBatch(c.org.id, null, [normalizeRecord({ employeeId: 'EMP00001', name: 'Kiran' }, randomUUID())]);
});
afterAll(async () => {
  await app?.stop();
});

describe('service key rotation', () => {
  it('rotates through the CLI, serves the retired key in grace, expires it after, and keeps the JWKS in step', async () => {
    const first = await jwks();
    const k1 = first.keys.find((k) => k.use === 'enc')!;
    const s1 = first.keys.find((k) => k.use === 'sig' && k.alg === 'RS256')!;
    const e1 = first.keys.find((k) => k.alg === 'ES256')!;
    const toK1 = await request(k1);

    const rotated = await hrxJson(['service-keys', 'rotate'], app.env);
    expect(Object.keys(rotated)).toEqual(['enc', 'sig', 'credential_sig', 'retired', 'retired_until']);
    expect(rotated.retired.sort()).toEqual([k1.kid, s1.kid, e1.kid].sort());
    expect(Math.abs(Date.parse(rotated.retired_until) - Date.now() - 24 * 3_600_000)).toBeLessThan(120_000);

    // Encrypted to the retired key before the rotation: still served (24 h grace).
    const r1 = await post(toK1);
    expect(r1.status).toBe(200);
    await expect(openEncryptedResponse({ data: r1.body.data, vendorPrivateKey: v.privateKey, serviceSigningJwks: await jwks() })).resolves.toMatchObject({
      employee: { name: 'Kiran' },
    });

    // Another process rotated: this one's JWKS follows within its cache TTL, current keys first.
    const second = await waitFor(
      async () => {
        const s = await jwks();
        return s.keys.length === 6 ? s : null;
      },
      15_000,
      250,
    );
    expect(
      second.keys
        .slice(0, 3)
        .map((k) => k.kid)
        .sort(),
    ).toEqual([rotated.enc, rotated.sig, rotated.credential_sig].sort());
    expect(
      second.keys
        .slice(3)
        .map((k) => k.kid)
        .sort(),
    ).toEqual([k1.kid, s1.kid, e1.kid].sort());
    expect(second.keys.find((k) => k.use === 'enc')!.kid).toBe(rotated.enc);
    const k2 = encKey(second, rotated.enc);
    const r2 = await post(await request(k2));
    expect(r2.status).toBe(200);
    expect(await signerKid(r2.body.data)).toBe(rotated.sig); // responses are signed by the new sig key

    // A rotation with a 2 s grace: the K2 request is served at once and refused after the grace.
    const toK2Now = await request(k2);
    const toK2Later = await request(k2);
    const again = await app.ctx.services.external.rotateServiceKeys(2 / 3600);
    expect((await post(toK2Now)).status).toBe(200);
    await sleep(2500);
    expectError(await post(toK2Later), 400, plain('Invalid encrypted payload'));
    const third = await jwks();
    expect(third.keys.map((k) => k.kid)).not.toContain(k2.kid);
    expect(third.keys.map((k) => k.kid)).toContain(k1.kid); // still within its 24 h grace
    expect(third.keys.find((k) => k.use === 'enc')!.kid).toBe(again.enc);
    expect((await post(await request(k1))).status).toBe(200);
    expect((await post(await request(encKey(third, again.enc)))).status).toBe(200);

    // --grace-hours 0 retires at once; this process notices within its cache TTL.
    const k3 = encKey(third, again.enc);
    const last = await hrxJson(['service-keys', 'rotate', '--grace-hours', '0'], app.env);
    expect(last.retired).toContain(k3.kid);
    await waitFor(async () => (await post(await request(k3))).status === 400, 15_000, 250);
    await expect(hrxJson(['service-keys', 'rotate', '--grace-hours', '-1'], app.env)).rejects.toMatchObject({ code: 2 });
  });

  it('stores private keys only encrypted, bound to their kid', async () => {
    const rows = (await dbQuery(app, 'select kid, private_jwk_enc, public_jwk from service_keys')).rows as {
      kid: string;
      private_jwk_enc: string;
      public_jwk: Record<string, unknown>;
    }[];
    expect(rows.length).toBeGreaterThanOrEqual(12);
    for (const r of rows) {
      expect(r.private_jwk_enc).toMatch(/^v1\./);
      expect(r.private_jwk_enc).not.toContain('"d"');
      expect(Object.keys(r.public_jwk).sort()).toEqual(
        r.public_jwk.kty === 'EC' ? ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'] : ['alg', 'e', 'kid', 'kty', 'n', 'use'],
      );
      expect(() => app.ctx.cipher.decrypt(r.private_jwk_enc, `service_key:${r.kid}`)).not.toThrow();
    }
    const [a, b] = rows;
    expect(() => app.ctx.cipher.decrypt(a!.private_jwk_enc, `service_key:${b!.kid}`)).toThrow();
  });

  it('concurrent first starts create exactly one current key per use', async () => {
    await dbQuery(app, 'delete from service_keys');
    app.ctx.services.external.keyring.invalidate();
    const store = storesOf(app).external;
    let made = 0;
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        store.createMissingServiceKeys((missing) => {
          made += missing.length;
          return Promise.resolve(
            missing.map(({ use, alg }) => ({
              kid: `race-${alg}-${randomUUID()}`,
              use,
              alg,
              privateJwkEnc: 'x',
              publicJwk: {},
            })),
          );
        }),
      ),
    );
    expect(results.reduce((a, b) => a + b, 0)).toBe(3);
    expect(made).toBe(3);
    const current = (await dbQuery(app, 'select use, alg from service_keys where retired_at is null order by use, alg')).rows;
    expect(current).toEqual([
      { use: 'enc', alg: 'RSA-OAEP-256' },
      { use: 'sig', alg: 'ES256' },
      { use: 'sig', alg: 'RS256' },
    ]);
  });
});
