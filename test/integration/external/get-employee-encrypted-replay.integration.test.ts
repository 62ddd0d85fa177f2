/**
 * Replay protection across API processes (docs/v2.md "Replay"): one valid V2 request sent 200 times at
 * once, half to this test's hrx and half to a second `hrx serve` child process on the same
 * database schema and Redis prefix, is served exactly once; the `jti` is kept in the shared Redis
 * until `exp` + 30 s.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { normalizeRecord } from '../../../src/domain/record';
import { client, connection, v2Vendor } from '../../support/factories';
import { call, REDIS_URL, startSecondApi, startTestApp, type SecondApi, type TestApp } from '../../support/harness';
import { dbQuery, storesOf } from '../../support/db';

let app: TestApp;
let second: SecondApi | undefined;
let v: Awaited<ReturnType<typeof v2Vendor>>;
let connId: string;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  v = await v2Vendor(app.ctx);
  const c = await client(app.ctx);
  connId = (await connection(app.ctx, v.org.uuid, c.org.uuid)).id;
  await storesOf(app).employees.upsertBatch(c.org.id, null, [normalizeRecord({ employeeId: 'EMP00001', name: 'Meera' }, randomUUID())]);
  second = await startSecondApi(app);
});
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

describe('jti replay across two API processes', () => {
  it('both processes publish the same service keys', async () => {
    const [one, two] = await Promise.all([call(`${app.url}/.well-known/jwks.json`), call(`${second!.url}/.well-known/jwks.json`)]);
    expect(one.body.keys.map((k: JWK) => k.kid).sort()).toEqual(two.body.keys.map((k: JWK) => k.kid).sort());
  });

  it('one valid request sent 200 times concurrently: exactly one 200, 199 × 400 Invalid encrypted payload', async () => {
    const jwks = (await call(`${app.url}/.well-known/jwks.json`)).body;
    const jti = randomUUID();
    const t = Math.floor(Date.now() / 1000);
    const payload = await buildEncryptedRequest({
      connectionId: connId,
      employeeId: 'EMP00001',
      vendorPrivateKey: v.privateKey,
      vendorKid: v.kid,
      servicePublicJwk: jwks.keys.find((k: JWK) => k.use === 'enc'),
      jti,
      now: t,
      ttlSec: 120,
    });
    const body = JSON.stringify({ encrypted_payload: payload });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call(`${i % 2 ? second!.url : app.url}/api/external/employee/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: v.authorization },
          body,
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 400);
    expect([ok.length, refused.length]).toEqual([1, 199]);
    for (const r of refused)
      expect(r.body).toEqual({
        requestId: r.headers.get('x-request-id'),
        error: 'invalid_encrypted_payload',
        message: 'Invalid encrypted payload',
        data: null,
      });
    const opened = await openEncryptedResponse({ data: ok[0]!.body.data, vendorPrivateKey: v.privateKey, serviceSigningJwks: jwks });
    expect(opened).toMatchObject({ jti: ok[0]!.body.requestId, employee: { employeeId: 'EMP00001', name: 'Meera' } });
    // Served once, audited once.
    const audited = await dbQuery(app, `select count(*) from audit_log where actor_org_id = $1 and action = 'employee.read'`, [v.org.id]);
    expect(Number(audited.rows[0].count)).toBe(1);
    // The jti is kept until exp + 30 s (EXAT), under this deployment's prefix and the vendor org.
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.call('expiretime', `${app.config.HRX_REDIS_PREFIX}:jti:${v.org.id}:${jti}`)).toBe(t + 120 + 30);
    } finally {
      redis.disconnect();
    }
  });
});
