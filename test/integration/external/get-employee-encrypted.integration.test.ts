/**
 * Encrypted employee details (V2) end to end over real HTTP, PostgreSQL and Redis: the service
 * JWKS, the happy path through the TypeScript client helper, through `hrx client employee` and
 * through an independent WebCrypto implementation; Basic credentials (docs/errors.md, docs/api.md "Credentials"); the
 * error paths after decryption; key and credential management through the CLI.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JSONWebKeySet, JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { normalizeRecord, type EmployeeRecord } from '../../../src/domain/record';
import { hrxJson } from '../../support/cli';
import { expectError, invalid, plain, UUID_V4, withoutRequestId } from '../../support/expect-error';
import { client, connection, v2Vendor } from '../../support/factories';
import { call, medianMs, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { webcryptoDecryptJwe, webcryptoImportPublic, webcryptoJwe, webcryptoJws, webcryptoVendorKey, webcryptoVerifyJws } from '../../support/webcrypto-jose';
import { dbQuery, storesOf } from '../../support/db';

type V2Vendor = Awaited<ReturnType<typeof v2Vendor>>;
const SHARED = ['name', 'pan', 'aadhar', 'mobileNumber', 'bankDetails_accountNumber', 'bankDetails_ifscCode', 'ctc_basic'];

let app: TestApp;
let v: V2Vendor;
let clientOrg: Awaited<ReturnType<typeof client>>;
let connId: string;
let jwks: JSONWebKeySet;
let tmp: string;
const person = {
  employeeId: 'EMP00001',
  name: 'Asha Rao',
  email: 'asha@example.com',
  pan: 'ABCDE1234F',
  aadhar: '123412341234',
  mobileNumber: '9876543210',
  bankDetails: { accountNumber: '001234567890', ifscCode: 'HDFC0001234', bankName: 'HDFC Bank' },
  salaryDetails: { ctc: { basic: 600000 } },
};
let stored: EmployeeRecord;

const post = (payload: unknown, authorization: string | null = v.authorization) =>
  call(`${app.url}/api/external/employee/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(typeof payload === 'string' ? { encrypted_payload: payload } : payload),
  });
const encJwk = () => jwks.keys.find((k) => k.use === 'enc')!;
const request = (over: { vendor?: V2Vendor; connectionId?: string; employeeId?: string; source?: 'db' | 'hrms' } = {}) => {
  const who = over.vendor ?? v;
  return buildEncryptedRequest({
    connectionId: over.connectionId ?? connId,
    employeeId: over.employeeId ?? 'EMP00001',
    ...(over.source ? { source: over.source } : {}),
    vendorPrivateKey: who.privateKey,
    vendorKid: who.kid,
    servicePublicJwk: encJwk(),
  });
};
const auditRows = async (requestId: string) => (await dbQuery(app, 'select * from audit_log where request_id = $1', [requestId])).rows;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  tmp = mkdtempSync(path.join(tmpdir(), 'hrx-v2-'));
  v = await v2Vendor(app.ctx);
  clientOrg = await client(app.ctx);
  connId = (await connection(app.ctx, v.org.uuid, clientOrg.org.uuid, { shared: SHARED })).id;
  stored = normalizeRecord(person, randomUUID());
  await storesOf(app).employees.upsertBatch(clientOrg.org.id, null, [stored, normalizeRecord({ employeeId: 'EMP00002', name: 'Ravi' }, randomUUID())]);
  jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
});
afterAll(async () => {
  await app?.stop();
});

describe('service JWKS', () => {
  it('publishes one enc (RSA-OAEP-256), one sig (RS256) and the credential issuer sig (ES256) public key, top-level, no credential needed', async () => {
    const res = await call(`${app.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(UUID_V4);
    expect(Object.keys(res.body)).toEqual(['keys']);
    expect(res.body.keys.map((k: JWK) => [k.use, k.alg]).sort()).toEqual([
      ['enc', 'RSA-OAEP-256'],
      ['sig', 'ES256'],
      ['sig', 'RS256'],
    ]);
    const ec = res.body.keys.find((k: JWK) => k.alg === 'ES256');
    expect(Object.keys(ec).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(ec).toMatchObject({ kty: 'EC', crv: 'P-256' });
    for (const k of res.body.keys.filter((k: JWK) => k.kty === 'RSA')) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(Buffer.from(k.n, 'base64url').length).toBeGreaterThanOrEqual(256);
    }
    expect((await call(`${app.url}/.well-known/jwks.json/`)).status).toBe(200);
    expect((await call(`${app.url}/.well-known/jwks.json`, { method: 'POST' })).status).toBe(405);
  });
});

describe('happy path', () => {
  it('through the client helper: envelope order, unmasked and filtered record, jti = requestId, audited', async () => {
    const res = await post(await request());
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['requestId', 'message', 'status_code', 'status', 'data']);
    expect(res.body).toMatchObject({ requestId: res.headers.get('x-request-id'), message: 'success', status_code: 'success', status: 200 });
    expect(res.body.data.split('.')).toHaveLength(5);
    const opened = await openEncryptedResponse({ data: res.body.data, vendorPrivateKey: v.privateKey, serviceSigningJwks: jwks });
    expect(opened.jti).toBe(res.body.requestId);
    expect(Math.abs(opened.iat - Date.now() / 1000)).toBeLessThan(60);
    const e = opened.employee as EmployeeRecord;
    expect(e).toMatchObject({
      id: stored.id,
      employeeId: 'EMP00001',
      name: 'Asha Rao',
      pan: 'ABCDE1234F',
      aadhar: '123412341234',
      mobileNumber: '9876543210',
      bankDetails: { accountNumber: '001234567890', ifscCode: 'HDFC0001234', bankName: 'NOT AVAILABLE' },
      email: 'NOT AVAILABLE', // not shared by the connection
    });
    expect(e.salaryDetails.ctc.basic).toBe(600000);
    const rows = await auditRows(res.body.requestId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_org_id: v.org.id, connection_id: connId, employee_id: 'EMP00001' });
  });

  it('the plain endpoint masks what V2 returns in clear', async () => {
    const res = await call(`${app.url}/api/employee_details/EMP00001?org=${clientOrg.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
    expect(res.status).toBe(200);
    expect(res.body.data.pan).toBe('**********');
  });

  it('through the CLI: hrx client employee prints the decrypted, verified employee', async () => {
    const keyFile = path.join(tmp, 'vendor-private.json');
    writeFileSync(keyFile, JSON.stringify(v.privateJwk));
    const out = await hrxJson(
      [
        'client',
        'employee',
        '--base-url',
        app.url,
        '--username',
        v.username,
        `--password=${v.password}`,
        '--key',
        keyFile,
        '--connection',
        connId,
        '--employee',
        'EMP00001',
      ],
      app.env,
    );
    expect(Object.keys(out)).toEqual(['employee', 'iat', 'jti']);
    expect(out.jti).toMatch(UUID_V4);
    expect(out.employee).toMatchObject({ employeeId: 'EMP00001', pan: 'ABCDE1234F', bankDetails: { accountNumber: '001234567890' } });
    expect(await auditRows(out.jti)).toHaveLength(1);
  });

  it('through an independent WebCrypto implementation (no jose), both ways', async () => {
    const wc = await webcryptoVendorKey();
    const w = await v2Vendor(app.ctx);
    await app.ctx.services.external.addVendorKey(w.org.uuid, { ...wc.publicJwk, kid: 'webcrypto-1' });
    await app.ctx.services.external.revokeVendorKey(w.org.uuid, w.kid); // only the WebCrypto key stays active
    const wConn = (await connection(app.ctx, w.org.uuid, clientOrg.org.uuid)).id;
    const now = Math.floor(Date.now() / 1000);
    const claims = { connection_id: wConn, employee_id: 'EMP00001', source: 'db', iat: now, exp: now + 60, jti: randomUUID() };
    const jws = await webcryptoJws(wc.sign, { alg: 'RS256', typ: 'JWT', kid: 'webcrypto-1' }, claims);
    const svcEnc = encJwk();
    const jwe = await webcryptoJwe(await webcryptoImportPublic(svcEnc, 'encrypt'), { alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: svcEnc.kid }, jws);
    const res = await post(jwe, w.authorization);
    expect(res.status).toBe(200);
    const opened = await webcryptoDecryptJwe(res.body.data, wc.oaepPrivate);
    expect(opened.header).toEqual({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: 'webcrypto-1' });
    expect([opened.cekBytes, opened.ivBytes, opened.tagBytes]).toEqual([32, 12, 16]);
    const sigJwk = jwks.keys.find((k) => k.use === 'sig')!;
    const verified = await webcryptoVerifyJws(opened.plaintext, await webcryptoImportPublic(sigJwk, 'verify'));
    expect(verified.valid).toBe(true);
    expect(verified.header).toEqual({ alg: 'RS256', typ: 'JWT', kid: sigJwk.kid });
    expect(verified.payload).toMatchObject({ jti: res.body.requestId, employee: { employeeId: 'EMP00001', pan: 'ABCDE1234F', email: 'asha@example.com' } });
  });

  it('the same payload sent twice: the replay is refused', async () => {
    const payload = await request();
    expect((await post(payload)).status).toBe(200);
    expectError(await post(payload), 400, plain('Invalid encrypted payload'));
  });
});

describe('Basic credentials (docs/api.md "Conventions", docs/api.md "Credentials")', () => {
  const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
  it('missing → 401 not provided; wrong, unknown, malformed, API key or revoked → 401 Invalid token.', async () => {
    const payload = await request();
    expectError(await post(payload, null), 401, plain('Authentication credentials were not provided.'));
    expectError(await post({ nonsense: true }, null), 401, plain('Authentication credentials were not provided.'));
    for (const auth of [
      basic(v.username, `${v.password}x`),
      basic('hrxv2_nobody', v.password),
      'Basic !!!',
      `Basic ${Buffer.from(v.username).toString('base64')}`,
      v.apiKey,
      `Bearer ${v.apiKey}`,
    ]) {
      expectError(await post(payload, auth), 401, plain('Invalid token.'));
    }
    const extra = await app.ctx.services.external.basic.create(v.org.uuid);
    expect((await post(await request(), basic(extra.username, extra.password))).status).toBe(200);
    await app.ctx.services.external.basic.revoke(v.org.uuid, extra.username);
    expectError(await post(await request(), basic(extra.username, extra.password)), 401, plain('Invalid token.'));
  });

  it('an unknown username costs the same as a known one (no timing oracle)', async () => {
    const basicService = app.ctx.services.external.basic;
    expect(await basicService.verify('hrxv2_nobody', v.password)).toBeNull();
    const known = await medianMs(() => basicService.verify(v.username, 'wrong'));
    const unknown = await medianMs(() => basicService.verify('hrxv2_nobody', 'wrong'));
    // Both are one lookup and one keyed hash (auth/secret-check.ts); scrypt (≥ 20 ms) on either
    // side alone would break this by far.
    expect(unknown).toBeLessThan(known * 3 + 8);
    expect(known).toBeLessThan(unknown * 3 + 8);
  });

  it('a client org gets no Basic credential', async () => {
    await expect(app.ctx.services.external.basic.create(clientOrg.org.uuid)).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});

describe('after decryption: connection, employee, consent, source, body', () => {
  it('nonexistent, pending and another vendor’s connection all answer 404 Invalid Connection ID, alike', async () => {
    const other = await v2Vendor(app.ctx);
    const otherConn = (await connection(app.ctx, other.org.uuid, clientOrg.org.uuid)).id;
    const c2 = await client(app.ctx);
    const pending = (await connection(app.ctx, v.org.uuid, c2.org.uuid, { status: 'pending' })).id;
    const answers = [];
    for (const id of [randomUUID(), pending, otherConn]) {
      const res = await post(await request({ connectionId: id }));
      expectError(res, 404, plain('Invalid Connection ID'));
      answers.push(withoutRequestId(res.body));
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
  });

  it('a terminated connection answers 404 at once after serving, and its id never reaches a newer connection of the same two orgs', async () => {
    const c4 = await client(app.ctx);
    await storesOf(app).employees.upsertBatch(c4.org.id, null, [normalizeRecord({ employeeId: 'EMP00001', name: 'Old' }, randomUUID())]);
    const first = (await connection(app.ctx, v.org.uuid, c4.org.uuid)).id;
    expect((await post(await request({ connectionId: first }))).status).toBe(200);
    await app.ctx.services.connections.terminate(v.org.id, c4.org.uuid, randomUUID());
    expectError(await post(await request({ connectionId: first })), 404, plain('Invalid Connection ID'));
    const second = (await connection(app.ctx, v.org.uuid, c4.org.uuid)).id;
    expect(second).not.toBe(first);
    expect((await post(await request({ connectionId: second }))).status).toBe(200);
    expectError(await post(await request({ connectionId: first })), 404, plain('Invalid Connection ID'));
  });

  it('unknown employee → 404, consent missing → 403, hrms source not permitted → 403 without requestId', async () => {
    expectError(await post(await request({ employeeId: 'EMP99999' })), 404, plain('Employee not found'));
    expectError(await post(await request({ source: 'hrms' })), 403, { message: 'Source Permission denied', data: {} }, { requestId: false });
    const c3 = await client(app.ctx);
    const strict = (await connection(app.ctx, v.org.uuid, c3.org.uuid, { consentRequired: true })).id;
    await storesOf(app).employees.upsertBatch(c3.org.id, null, [normalizeRecord({ employeeId: 'EMP00001' }, randomUUID())]);
    expectError(await post(await request({ connectionId: strict })), 403, plain('Consent not found or expired'));
  });

  it('body: missing or extra fields are validation failures; a non-JWE string is Invalid encrypted payload', async () => {
    expectError(await post({}), 400, invalid('encrypted_payload', 'required'));
    const res = await post({ encrypted_payload: await request(), extra: 1 });
    expect([res.status, res.body.code, res.body.data.errors[0].field]).toEqual([400, 400, 'extra']);
    expectError(await post('not-a-jwe'), 400, plain('Invalid encrypted payload'));
  });
});

describe('CLI key and credential management', () => {
  it('keys add/list/revoke, refusing keys under 2048 bits and private keys', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 3072 });
    const pubFile = path.join(tmp, 'k3072.json');
    writeFileSync(pubFile, JSON.stringify(publicKey.export({ format: 'jwk' })));
    const { kid } = await hrxJson(['keys', 'add', '--org', v.org.uuid, '--jwk', pubFile], app.env);
    expect(kid).toMatch(/^[A-Za-z0-9_-]{43}$/); // RFC 7638 thumbprint
    await expect(hrxJson(['keys', 'add', '--org', v.org.uuid, '--jwk', pubFile], app.env)).rejects.toMatchObject({
      stderr: expect.stringContaining('already registered'),
    });
    const list = await hrxJson(['keys', 'list', '--org', v.org.uuid], app.env);
    expect(list.keys.map((k: { kid: string }) => k.kid)).toEqual([kid, v.kid]);
    expect(list.keys[0]).toMatchObject({ kid, bits: 3072, status: 'active', revoked_at: null });

    // The new key signs; the response is encrypted to it (most recently registered).
    const payload = await buildEncryptedRequest({
      connectionId: connId,
      employeeId: 'EMP00002',
      vendorPrivateKey: privateKey,
      vendorKid: kid,
      servicePublicJwk: encJwk(),
    });
    const ok = await post(payload);
    expect(ok.status).toBe(200);
    await expect(openEncryptedResponse({ data: ok.body.data, vendorPrivateKey: privateKey, serviceSigningJwks: jwks })).resolves.toMatchObject({
      employee: { name: 'Ravi' },
    });

    expect(await hrxJson(['keys', 'revoke', '--org', v.org.uuid, '--kid', kid], app.env)).toEqual({ kid, revoked: true });
    // Another process revoked it: in force here within the vendor-key cache TTL (5 s).
    await waitFor(
      async () =>
        (
          await post(
            await buildEncryptedRequest({
              connectionId: connId,
              employeeId: 'EMP00002',
              vendorPrivateKey: privateKey,
              vendorKid: kid,
              servicePublicJwk: encJwk(),
            }),
          )
        ).status === 400,
      15_000,
      500,
    );

    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const smallFile = path.join(tmp, 'k1024.json');
    writeFileSync(smallFile, JSON.stringify(small.publicKey.export({ format: 'jwk' })));
    await expect(hrxJson(['keys', 'add', '--org', v.org.uuid, '--jwk', smallFile], app.env)).rejects.toMatchObject({
      stderr: expect.stringContaining('under 2048 bits'),
    });
    const privFile = path.join(tmp, 'private.json');
    writeFileSync(privFile, JSON.stringify(privateKey.export({ format: 'jwk' })));
    await expect(hrxJson(['keys', 'add', '--org', v.org.uuid, '--jwk', privFile], app.env)).rejects.toMatchObject({
      stderr: expect.stringContaining('private key members'),
    });
    await expect(hrxJson(['keys', 'add', '--org', clientOrg.org.uuid, '--jwk', pubFile], app.env)).rejects.toMatchObject({
      stderr: expect.stringContaining('not a vendor org'),
    });
  });

  it('basic create shows the password once; basic revoke ends it', async () => {
    const created = await hrxJson(['basic', 'create', '--org', v.org.uuid], app.env);
    expect(Object.keys(created)).toEqual(['username', 'password']);
    expect(created.password.length).toBeGreaterThanOrEqual(43);
    const [row] = (await dbQuery(app, 'select password_hash from basic_credentials where username = $1', [created.username])).rows;
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain(created.password);
    expect(await hrxJson(['basic', 'revoke', '--org', v.org.uuid, '--username', created.username], app.env)).toEqual({
      username: created.username,
      revoked: true,
    });
    const auth = `Basic ${Buffer.from(`${created.username}:${created.password}`).toString('base64')}`;
    expectError(await post(await request(), auth), 401, plain('Invalid token.'));
  });
});
