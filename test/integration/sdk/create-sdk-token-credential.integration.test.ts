/**
 * The SDK access_token as a credential (docs/api.md "Credentials", docs/connect.md "The session"): it verifies against the service JWKS
 * with the expected claims; it opens a Connect session once and is accepted nowhere else; the
 * Connect endpoints accept only that session cookie; expired, re-audienced, forged, superseded or
 * re-targeted tokens open nothing; one vendor's token or key never reaches another vendor's
 * connection (BOLA), nor moves the org's HRMS.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type CryptoKey, type KeyObject } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { connectCall, openSession, verifyEmail, type TestSession } from '../../support/connect';
import { dbQuery, storesOf } from '../../support/db';
import { storedUsers } from '../../support/stored';

const INVALID = plain('Invalid token.');
const MISSING = plain('Authentication credentials were not provided.');

let app: TestApp;
let sims: Awaited<ReturnType<typeof startSim>>[];
let a: Awaited<ReturnType<typeof f.vendor>>;
let b: Awaited<ReturnType<typeof f.vendor>>;
let tokenA: string;
let orgId: string;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sims = [
    await startSim({ employees: 3, clientId: 'hrms-1', clientSecret: 'secret-1' }),
    await startSim({ employees: 3, clientId: 'hrms-2', clientSecret: 'secret-2' }),
  ];
  a = await f.vendor(app.ctx, 'Lender A');
  b = await f.vendor(app.ctx, 'Lender B');
  const res = await f.sdkToken(app.ctx, a.org, {
    email: 'hr@shared.example',
    org_name: 'Shared Employer',
    data_model_flags: { detail_info_fields: { name: -1, dob: 1 } },
  });
  tokenA = res.access_token;
  orgId = res.org_id;
});
afterAll(async () => {
  for (const s of sims ?? []) await s.close();
  await app?.stop();
});

const exchange = (token: string) =>
  call(`${app.url}/api/sdk/connect/session/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
const view = (s: TestSession) => connectCall(app.url, s, '');
const post = (s: TestSession, path: string, body: unknown) => connectCall(app.url, s, path, body);
const hrms = (i: 0 | 1) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: `hrms-${i + 1}`, client_secret: `secret-${i + 1}`, hrms_host: sims[i]!.url },
});
const connectionOf = async (vendorOrgId: number) =>
  (
    await dbQuery(app, `select c.id, c.status from connections c join orgs o on o.id = c.client_org_id where o.uuid = $1 and c.vendor_org_id = $2`, [
      orgId,
      vendorOrgId,
    ])
  ).rows[0] as { id: string; status: string };
/** A token with `tokenA`'s claims changed by `patch`, signed with `key` (default: the service's real signing key). */
const resign = async (patch: Record<string, unknown>, key?: { kid: string; privateKey: CryptoKey | KeyObject }) => {
  const signing = key ?? (await app.ctx.services.external.keyring.signingKey());
  return new SignJWT({ ...decodeJwt(tokenA), ...patch }).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signing.kid }).sign(signing.privateKey);
};

describe('SDK token as a credential', () => {
  it('verifies against the published JWKS with the expected claims, exp - iat = 3600', async () => {
    const jwks = createRemoteJWKSet(new URL(`${app.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokenA, jwks, { issuer: 'urn:hrx', audience: 'urn:hrx:connect', algorithms: ['RS256'] });
    const published = (await call(`${app.url}/.well-known/jwks.json`)).body.keys as { kid: string; use: string }[];
    expect(protectedHeader).toStrictEqual({ alg: 'RS256', typ: 'JWT', kid: published.find((k) => k.use === 'sig')!.kid });
    const c = await connectionOf(a.org.id);
    const clientId = (await dbQuery(app, `select id from orgs where uuid = $1`, [orgId])).rows[0].id as number;
    const user = (await storedUsers(app, clientId)).find((u) => u.email === 'hr@shared.example')!;
    expect(payload).toStrictEqual({
      iss: 'urn:hrx',
      aud: 'urn:hrx:connect',
      sub: user.id,
      vendor_org: a.org.uuid,
      client_org: orgId,
      connection_id: c.id,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: payload.iat,
      exp: payload.iat! + 3600,
    });
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60);
    expect(c.status).toBe('pending');
  });

  it('is refused by every API-key endpoint as Invalid token.', async () => {
    for (const authorization of [tokenA, `Bearer ${tokenA}`]) {
      expectError(await call(`${app.url}/api/vendor/connections/`, { headers: { authorization } }), 401, INVALID);
      expectError(await call(`${app.url}/api/org_details/${orgId}/`, { headers: { authorization } }), 401, INVALID);
      expectError(
        await call(`${app.url}/api/sdk/token/`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'x@y.example', org_name: 'X', fullname: 'Y' }),
        }),
        401,
        INVALID,
      );
    }
    expectError(await call(`${app.url}/api/employee_details/EMP00001?org=${orgId}&vendor_org=${a.org.uuid}`, { headers: { username: tokenA } }), 401, INVALID);
  });

  it('the Connect endpoints accept no API key, Basic or Bearer SDK token: only the session cookie', async () => {
    const paths: [string, string][] = [
      ['GET', ''],
      ['POST', 'hrms/'],
      ['POST', 'proof/'],
      ['POST', 'approve/'],
      ['POST', 'reject/'],
    ];
    for (const authorization of [a.apiKey, `Bearer ${a.apiKey}`, `Basic ${Buffer.from('u:p').toString('base64')}`, `Bearer ${tokenA}`, tokenA]) {
      for (const [method, path] of paths) {
        const res = await call(`${app.url}/api/sdk/connect/${path}`, {
          method,
          headers: { authorization, 'content-type': 'application/json' },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        expectError(res, 401, MISSING);
      }
    }
    for (const cookie of ['hrx_connect=' + 'A'.repeat(43), 'hrx_connect=x', `hrx_connect=${tokenA}`, 'other=1']) {
      expectError(await call(`${app.url}/api/sdk/connect/`, { headers: { cookie } }), 401, cookie === 'other=1' ? MISSING : INVALID);
    }
    expect((await connectionOf(a.org.id)).status).toBe('pending');
  });

  it('refuses expired, re-audienced, re-lived, re-targeted, unknown and foreign-signed tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const realKid = decodeProtectedHeader(tokenA).kid!;
    const forged = [
      await resign({ iat: now - 7300, exp: now - 3700 }),
      await resign({ aud: 'urn:hrx:other' }),
      await resign({ iss: 'someone-else' }),
      await resign({ exp: (decodeJwt(tokenA).iat as number) + 7200 }),
      await resign({ connection_id: randomUUID() }),
      await resign({ jti: randomUUID() }),
      await resign({ sub: randomUUID() }),
      await resign({}, { kid: realKid, privateKey }),
      `${tokenA.split('.').slice(0, 2).join('.')}.`,
      tokenA.slice(0, -4) + (tokenA.endsWith('AAAA') ? 'BBBB' : 'AAAA'),
    ];
    for (const t of forged) {
      const res = await exchange(t);
      expectError(res, 401, INVALID);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // The control: the real token, resigned unchanged, opens a session...
    const s = await openSession(app.url, await resign({}));
    expect((await view(s)).status).toBe(200);
    // ...once: its jti is spent, whatever the encoding.
    expectError(await exchange(tokenA), 401, INVALID);
  });

  it('a newer token for the same connection supersedes the older one', async () => {
    const older = await f.sdkToken(app.ctx, a.org, { email: 'ops@older.example', org_name: 'Older' });
    const olderSession = await openSession(app.url, older.access_token);
    expect((await view(olderSession)).status).toBe(200);
    const newer = await f.sdkToken(app.ctx, a.org, { email: 'ops@older.example', org_name: 'Older' });
    // The older token's session ends with it.
    expectError(await view(olderSession), 401, INVALID);
    expect((await view(await openSession(app.url, newer.access_token))).body.data.org.org_id).toBe(older.org_id);
  });

  it('keeps working across a service key rotation while the old key is in grace', async () => {
    const before = await f.sdkToken(app.ctx, a.org, { email: 'hr@rotation.example', org_name: 'Rotation' });
    await app.ctx.services.external.rotateServiceKeys(1);
    expect((await view(await openSession(app.url, before.access_token))).status).toBe(200);
    const after = await f.sdkToken(app.ctx, b.org, { email: 'hr@rotation.example', org_name: 'Rotation' });
    expect(decodeProtectedHeader(after.access_token).kid).not.toBe(decodeProtectedHeader(before.access_token).kid);
    expect((await view(await openSession(app.url, after.access_token))).status).toBe(200);
  });
});

describe('SDK token as a credential: sessions of two vendors', () => {
  describe('BOLA: two vendors, one employer', () => {
    let sa: TestSession;
    let sb: TestSession;

    it("each vendor's session sees its own connection only", async () => {
      sa = await openSession(
        app.url,
        (
          await f.sdkToken(app.ctx, a.org, {
            email: 'hr@shared.example',
            org_name: 'Shared Employer',
            data_model_flags: { detail_info_fields: { name: -1, dob: 1 } },
          })
        ).access_token,
      );
      const res = await f.sdkToken(app.ctx, b.org, {
        email: 'hr@shared.example',
        org_name: 'Shared Employer',
        data_model_flags: { detail_info_fields: { pan: -1 } },
      });
      expect(res.org_id).toBe(orgId);
      sb = await openSession(app.url, res.access_token);
      const [va, vb] = [(await view(sa)).body.data, (await view(sb)).body.data];
      expect(va).toMatchObject({
        connection_id: (await connectionOf(a.org.id)).id,
        vendor: { org_id: a.org.uuid, org_name: 'Lender A' },
        required_data_points: ['name'],
      });
      expect(vb).toMatchObject({
        connection_id: (await connectionOf(b.org.id)).id,
        vendor: { org_id: b.org.uuid, org_name: 'Lender B' },
        required_data_points: ['pan'],
      });
      expect(va.connection_id).not.toBe(vb.connection_id);
    });

    it("B's session cannot move the employer's configured HRMS to another host: a failed proof, nothing stored", async () => {
      await verifyEmail(app, sa);
      expect((await post(sa, 'hrms/', hrms(0))).status).toBe(200);
      expectError(await post(sb, 'hrms/', hrms(1)), 403, plain('Proof of control failed'));
      const orgRow = (await dbQuery(app, `select id from orgs where uuid = $1`, [orgId])).rows[0];
      expect((await storesOf(app).hrmsConfigs.load(orgRow.id))?.credentials).toMatchObject({ hrms_host: sims[0]!.url, client_id: 'hrms-1' });
      // The same HRMS credentials prove control (compared, not stored again).
      expect((await post(sb, 'hrms/', hrms(0))).body.data).toStrictEqual({ proven: true });
      expect((await storesOf(app).hrmsConfigs.load(orgRow.id))?.connectSessionId).not.toBeNull();
    });

    it("B's decision changes B's connection only; B's key reaches nothing of A's", async () => {
      expect((await connectCall(app.url, sb, 'reject/')).status).toBe(200);
      expect((await connectionOf(b.org.id)).status).toBe('rejected');
      expect((await connectionOf(a.org.id)).status).toBe('pending');
      expect((await view(sa)).body.data.status).toBe('pending');
      const listB = await call(`${app.url}/api/vendor/connections/?status=pending`, { headers: { authorization: b.apiKey } });
      expect(listB.body.data.map((e: { org_id: string }) => e.org_id)).not.toContain(orgId);
      // A's approval is A's own: B's opt-outs and rejection do not leak into it.
      const approved = await post(sa, 'approve/', { opted_in: ['dob'], opted_out: [] });
      expect(approved.body.data).toMatchObject({ status: 'approved', shared_data_points: ['name', 'dob'], not_shared_data_points: [] });
      expect((await connectionOf(b.org.id)).status).toBe('rejected');
      expectError(
        await call(`${app.url}/api/employee_details/EMP00001?org=${orgId}&vendor_org=${b.org.uuid}`, { headers: { username: b.apiKey } }),
        404,
        plain('Invalid Organisation ID'),
      );
    });
  });
});
