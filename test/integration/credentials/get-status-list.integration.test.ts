/** `GET /credentials/status/{list}` (docs/credentials.md "Status lists"): the status list token, cacheable; a list not started is 404. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { expectError, plain } from '../../support/expect-error';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { credentialWorld, issue, onApp } from '../../support/credentials';

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
