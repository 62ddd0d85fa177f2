/**
 * `GET /credentials/status/{list}` (docs/credentials.md "Status lists"): the status list token,
 * cacheable; a list not started is 404. A verifier over HTTP keeps the list for its `ttl`: one
 * fetch for many checks, and a revocation shows once the `ttl` has passed on its clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { expectError, plain } from '../../support/expect-error';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { credentialWorld, issue, onApp } from '../../support/credentials';
import { createVerifier, verifyCredential } from '../../../src/credentials/sd-jwt';
import type { JWK } from 'jose';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

describe('GET /credentials/status/{list}', () => {
  it('serves a statuslist+jwt of 131,072 one-bit entries, ttl 300, signed ES256, cacheable', async () => {
    const w = await credentialWorld(app.ctx);
    const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' });
    const { uri, idx } = (decodeJwt((res.body.data.sd_jwt as string).split('~')[0]!) as { status: { status_list: { uri: string; idx: number } } }).status
      .status_list;
    const r = await fetch(onApp(app.url, uri));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/statuslist+jwt');
    expect(r.headers.get('cache-control')).toBe('public, max-age=30');
    const token = await r.text();
    const jwks = (await (await fetch(`${app.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] };
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'statuslist+jwt', kid: jwks.keys.find((k) => k.alg === 'ES256')!.kid });
    expect(decodeJwt(token)).toMatchObject({ sub: uri, ttl: 300 });
    const list = getListFromStatusListJWT(token);
    expect(list.getStatus(idx)).toBe(0);
    expect(() => list.getStatus(131_071)).not.toThrow();
  });

  it('answers 404 for a list not started and for a list that is no number', async () => {
    expectError(await call(`${app.url}/credentials/status/424242`), 404, plain('Not found.'));
    expect((await call(`${app.url}/credentials/status/x`)).status).toBe(400);
  });
});

describe('a verifier reading the list over HTTP', () => {
  it('fetches it once per ttl (300 s on its clock) and shows a revocation when the ttl has passed', async () => {
    const w = await credentialWorld(app.ctx);
    const issued = async (employeeId: string) =>
      (await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: employeeId })).body.data as { credential_id: string; sd_jwt: string };
    const [a, b] = [await issued('E1'), await issued('E2')];
    const jwks = (await (await fetch(`${app.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    let fetches = 0;
    let wall = Date.now();
    const statusList = async (uri: string) => (fetches++, (await fetch(onApp(app.url, uri))).text());
    const verify = createVerifier({ jwks, statusList, clock: () => wall });
    for (const c of [a, b, a]) expect(await verify(c.sd_jwt)).toMatchObject({ ok: true });
    expect(fetches).toBe(1);

    expect((await call(`${app.url}/api/credentials/${a.credential_id}/`, { method: 'DELETE', headers: { authorization: w.v.apiKey } })).status).toBe(200);
    // A fresh verifier sees it at once; the one keeping the list, once its ttl has passed.
    expect(await verifyCredential(a.sd_jwt, { jwks, statusList })).toMatchObject({ ok: false, reason: 'revoked' });
    wall += 299_000;
    expect(await verify(a.sd_jwt)).toMatchObject({ ok: true });
    expect(fetches).toBe(2);
    wall += 1_000;
    expect(await verify(a.sd_jwt)).toMatchObject({ ok: false, reason: 'revoked', detail: 'status bit is 1' });
    expect(await verify(b.sd_jwt)).toMatchObject({ ok: true });
    expect(fetches).toBe(3);
  });
});
