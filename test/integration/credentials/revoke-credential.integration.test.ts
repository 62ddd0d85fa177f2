/**
 * `DELETE /api/credentials/{credential_id}/` and the revocations of docs/credentials.md
 * "Revocation": after the vendor's DELETE, a consent withdrawn, an erasure, a connection
 * terminated or a bound key revoked the status list shows the bit at once (revoked in the
 * event's transaction: read right after the event answers, no sweep in between); an employee no
 * longer Active shows within 60 s (the worker's sweep runs every 15 s). A verifier then says
 * revoked. Another vendor's credential is unknown to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { appBasic, v2Vendor } from '../../support/factories';
import { call, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { expectError, plain } from '../../support/expect-error';
import { credentialWorld, issue, onApp, verifyOnApp } from '../../support/credentials';
import { consentBody, postConsent, postRevoke } from '../../support/setups';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  await app.startEventsWorker(); // and the housekeeping worker, whose credential sweep runs every 15 s
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

const del = (id: string, apiKey: string) => call(`${app.url}/api/credentials/${id}/`, { method: 'DELETE', headers: { authorization: apiKey } });
const get = (id: string, apiKey: string) => call(`${app.url}/api/credentials/${id}/`, { headers: { authorization: apiKey } });

/** The bit of `sdJwt` in the status list served now. */
async function bitOf(sdJwt: string): Promise<number> {
  const { status } = decodeJwt(sdJwt.split('~')[0]!) as { status: { status_list: { idx: number; uri: string } } };
  const res = await fetch(onApp(app.url, status.status_list.uri));
  expect(res.headers.get('content-type')).toBe('application/statuslist+jwt');
  expect(res.headers.get('cache-control')).toBe('public, max-age=30');
  const token = await res.text();
  expect(decodeProtectedHeader(token)).toMatchObject({ typ: 'statuslist+jwt', alg: 'ES256' });
  expect(decodeJwt(token)).toMatchObject({ sub: status.status_list.uri, ttl: 300, status_list: { bits: 1, lst: expect.any(String) } });
  return getListFromStatusListJWT(token).getStatus(status.status_list.idx);
}

/** Issues for E-id `employeeId` in world `w`; the credential id and SD-JWT. */
async function issued(w: Awaited<ReturnType<typeof credentialWorld>>, employeeId = 'E1') {
  const res = await issue(app.url, w.v.apiKey, { org: w.c.org.uuid, employee_id: employeeId });
  expect(res.status).toBe(201);
  return res.body.data as { credential_id: string; sd_jwt: string };
}

/**
 * Checks the bit is 1 (`atOnce`: at the first read, else waiting at most 60 s), then the verifier
 * and the vendor's view.
 */
async function expectRevoked(cred: { credential_id: string; sd_jwt: string }, apiKey: string, reason: string, atOnce = true) {
  const started = Date.now();
  if (atOnce) expect(await bitOf(cred.sd_jwt)).toBe(1);
  else await waitFor(async () => (await bitOf(cred.sd_jwt)) === 1, 60_000, 500);
  const delay = Date.now() - started;
  expect(delay).toBeLessThan(60_000);
  const verdict = await verifyOnApp(app.url, cred.sd_jwt);
  expect(verdict).toMatchObject({ ok: false, reason: 'revoked' });
  const state = await get(cred.credential_id, apiKey);
  expect(state.body.data).toMatchObject({ status: 'revoked', revoked_reason: reason });
  return delay;
}

describe('revocation by the vendor', () => {
  it('DELETE turns the bit at once; GET shows revoked; another vendor gets 404 for both', async () => {
    const w = await credentialWorld(app.ctx);
    const other = await v2Vendor(app.ctx);
    const cred = await issued(w);
    expect(await bitOf(cred.sd_jwt)).toBe(0);
    expect(await verifyOnApp(app.url, cred.sd_jwt)).toMatchObject({ ok: true });
    const before = await get(cred.credential_id, w.v.apiKey);
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({ status: 'valid', iat: expect.any(String), exp: expect.any(String), revoked_reason: null });
    expect(JSON.stringify(before.body)).not.toContain('Asha');

    expectError(await get(cred.credential_id, other.apiKey), 404, plain('Not found.'));
    expectError(await del(cred.credential_id, other.apiKey), 404, plain('Not found.'));
    expect(await bitOf(cred.sd_jwt)).toBe(0);

    const res = await del(cred.credential_id, w.v.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'revoked', revoked_reason: 'vendor' });
    expect(await bitOf(cred.sd_jwt)).toBe(1);
    expect(await verifyOnApp(app.url, cred.sd_jwt)).toMatchObject({ ok: false, reason: 'revoked' });
    expectError(await get('0b7f9a52-61c4-4d1e-8f3a-2c5d6e7f8a9b', w.v.apiKey), 404, plain('Not found.'));
  });

  it('a list not started is 404', async () => {
    expectError(await call(`${app.url}/credentials/status/999`), 404, plain('Not found.'));
  });
});

describe('revocation by events: at once, or within 60 s by the sweep', { timeout: 90_000 }, () => {
  it('consent withdrawn', async () => {
    const w = await credentialWorld(app.ctx, { consentRequired: true });
    expect((await postConsent(app.url, w.v.apiKey, consentBody(w.c.org.uuid, { employeeId: 'E1' }))).status).toBe(200);
    const cred = await issued(w);
    const other = await issued(w, 'E1');
    const res = await postRevoke(`${app.url}/api/v1/employee/consent-data/revoke/`, w.v.apiKey, { org: w.c.org.uuid, employee_id: 'E1' });
    expect(res.status).toBe(200);
    await expectRevoked(cred, w.v.apiKey, 'consent_withdrawn');
    expect(await bitOf(other.sd_jwt)).toBe(1);
  });

  it('employee erased by the employer', async () => {
    const w = await credentialWorld(app.ctx);
    const cred = await issued(w, 'E2');
    const keep = await issued(w, 'E3');
    const res = await call(`${app.url}/api/webhook/v1/employee/erase/`, {
      method: 'POST',
      headers: { authorization: appBasic(w.c), 'content-type': 'application/json' },
      body: JSON.stringify({ employee_id: 'E2' }),
    });
    expect(res.status).toBe(200);
    await expectRevoked(cred, w.v.apiKey, 'employee_erased');
    expect(await bitOf(keep.sd_jwt)).toBe(0);
  });

  it('employee no longer Active (a sync or the update webhook writes the record)', async () => {
    const w = await credentialWorld(app.ctx);
    const cred = await issued(w, 'E2');
    const keep = await issued(w, 'E3');
    const res = await call(`${app.url}/api/webhook/v1/employee/update/`, {
      method: 'POST',
      headers: { authorization: appBasic(w.c), 'content-type': 'application/json' },
      body: JSON.stringify([
        { employeeId: 'E2', status: 'Inactive' },
        { employeeId: 'E3', designation: 'Lead' },
      ]),
    });
    expect(res.status).toBe(200);
    await expectRevoked(cred, w.v.apiKey, 'employee_not_active', false);
    await app.ctx.services.credentials.sweep();
    expect(await bitOf(keep.sd_jwt)).toBe(0);
  });

  it('connection terminated', async () => {
    const w = await credentialWorld(app.ctx);
    const cred = await issued(w);
    await app.ctx.services.connections.terminate(w.v.org.id, w.c.org.uuid, 'test-terminate');
    await expectRevoked(cred, w.v.apiKey, 'connection_terminated');
  });

  it('bound key revoked', async () => {
    const w = await credentialWorld(app.ctx);
    const cred = await issued(w);
    await app.ctx.services.external.revokeVendorKey(w.v.org.uuid, w.v.kid);
    await expectRevoked(cred, w.v.apiKey, 'key_revoked');
  });
});
