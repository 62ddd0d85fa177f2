/**
 * V2 request path: forged and malformed requests are refused with InvalidEncryptedPayload for the
 * intended reason; well-formed ones (built by the client helper) are accepted; responses round-trip.
 */
import { KeyObject, createHmac, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompactEncrypt, CompactSign, FlattenedEncrypt, GeneralEncrypt, decodeProtectedHeader } from 'jose';
import type { JWK } from 'jose';
import { InvalidEncryptedPayload, openEncryptedRequest, V2_MAX_MONTHS } from '../../src/crypto/jose/request';
import { PAY_MONTHS_KEPT } from '../../src/employees/pay-months';
import type { DecryptKey, VendorVerifyKey } from '../../src/crypto/jose/request';
import { sealResponse } from '../../src/crypto/jose/response';
import { buildEncryptedRequest, openEncryptedResponse } from '../../src/crypto/jose/client';
import {
  InvalidKeyError,
  exportJwks,
  exportPublicJwk,
  exportServicePrivateJwk,
  generateServiceKeyPair,
  generateServiceKeys,
  importServicePrivateJwk,
  importVendorPublicJwk,
} from '../../src/crypto/jose/keys';
import type { ServiceKeyPair } from '../../src/crypto/jose/keys';
import { b64, clean, flip, json64, mutate, rawJws, rs256, rawJwe as forgeRawJwe, type RawJweOptions } from '../support/jose-forge';

const NOW = 1_750_000_000;
const CONN = '3f2b8c1e-9a4d-4e6f-8b1a-2c3d4e5f6a7b';
const enc = new TextEncoder();

let svc: { enc: ServiceKeyPair; sig: ServiceKeyPair };
let retired: ServiceKeyPair;
let svcEncPub: KeyObject;
let decryptKeys: DecryptKey[];
const rsa = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits });
const vendor = rsa(2048);
const vendor2 = rsa(2048); // a second key registered for the same vendor
const other = rsa(2048); // another vendor's key, not registered here
const small = rsa(1024);
let vendorKeys: VendorVerifyKey[];
let smallKey: VendorVerifyKey;

beforeAll(async () => {
  svc = await generateServiceKeys();
  retired = await generateServiceKeyPair('enc');
  svcEncPub = KeyObject.from(svc.enc.publicKey);
  decryptKeys = [
    { kid: retired.kid, privateKey: retired.privateKey },
    { kid: svc.enc.kid, privateKey: svc.enc.privateKey },
  ];
  const v1 = await importVendorPublicJwk({ ...vendor.publicKey.export({ format: 'jwk' }), kid: 'vendor-1' });
  const v2 = await importVendorPublicJwk({ ...vendor2.publicKey.export({ format: 'jwk' }), kid: 'vendor-2' });
  vendorKeys = [v1, v2].map((v) => ({ kid: v.kid, publicKey: v.verifyKey!, bits: v.bits }));
  smallKey = { kid: 'small', publicKey: small.publicKey, bits: 1024 };
});

function claims(over: Record<string, unknown> = {}, drop: string[] = []): Record<string, unknown> {
  const c: Record<string, unknown> = { connection_id: CONN, employee_id: 'E-1001', source: 'hrms', iat: NOW - 5, exp: NOW + 115, jti: 'jti-1', ...over };
  for (const d of drop) delete c[d];
  return c;
}
/** JWS RS256 signed with jose by the vendor key (header overrides; undefined removes). */
async function jws(c: unknown = claims(), h: Record<string, unknown> = {}, key: KeyObject = vendor.privateKey): Promise<string> {
  const header = clean({ alg: 'RS256', typ: 'JWT', kid: 'vendor-1', ...h });
  return new CompactSign(enc.encode(typeof c === 'string' ? c : JSON.stringify(c))).setProtectedHeader(header as { alg: string }).sign(key);
}
/** JWE by hand (test/support/jose-forge), to the current service key unless told otherwise. */
const rawJwe = (header: unknown, pt: string | Uint8Array, o: Partial<RawJweOptions> = {}): string => forgeRawJwe(header, pt, { pub: svcEncPub, ...o });
const H = (over: Record<string, unknown> = {}) => clean({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: svc.enc.kid, ...over });
/** JWE with jose (header overrides; undefined removes). */
async function jwe(pt: string, over: Record<string, unknown> = {}, key: unknown = svcEncPub): Promise<string> {
  return new CompactEncrypt(enc.encode(pt)).setProtectedHeader(H(over) as { alg: string; enc: string }).encrypt(key as KeyObject);
}
const good = async () => jwe(await jws());
const withClaims = async (over: Record<string, unknown>, drop: string[] = []) => jwe(await jws(claims(over, drop)));

type Case = [name: string, reason: string, build: () => Built | Promise<Built>];
type Built = string | { token: unknown; vendorKeys: VendorVerifyKey[] };
const CASES: Case[] = [
  // --- JWE: algorithms and header parameters (checked before decryption) ---
  ['RSA1_5 key wrap (hand-built)', 'jwe: alg not allowed', async () => rawJwe(H({ alg: 'RSA1_5' }), await jws(), { pad: 'pkcs1' })],
  ['RSA-OAEP (SHA-1) key wrap', 'jwe: alg not allowed', async () => jwe(await jws(), { alg: 'RSA-OAEP' })],
  ['RSA-OAEP-384 key wrap', 'jwe: alg not allowed', async () => jwe(await jws(), { alg: 'RSA-OAEP-384' })],
  ['alg dir', 'jwe: alg not allowed', async () => rawJwe(H({ alg: 'dir' }), await jws())],
  ['alg missing', 'jwe: alg not allowed', async () => rawJwe(H({ alg: undefined }), await jws())],
  ['alg lower-case', 'jwe: alg not allowed', async () => rawJwe(H({ alg: 'rsa-oaep-256' }), await jws())],
  ['enc A128GCM', 'jwe: enc not allowed', async () => jwe(await jws(), { enc: 'A128GCM' })],
  ['enc A192GCM', 'jwe: enc not allowed', async () => jwe(await jws(), { enc: 'A192GCM' })],
  ['enc A256CBC-HS512', 'jwe: enc not allowed', async () => jwe(await jws(), { enc: 'A256CBC-HS512' })],
  ['zip DEF', 'jwe: header parameter zip', async () => jwe(await jws(), { zip: 'DEF' })],
  ['unknown crit', 'jwe: header parameter crit', async () => rawJwe(H({ crit: ['x-ext'], 'x-ext': 1 }), await jws())],
  ['empty crit list', 'jwe: header parameter crit', async () => rawJwe(H({ crit: [] }), await jws())],
  ['cty missing', 'jwe: cty must be JWT', async () => jwe(await jws(), { cty: undefined })],
  ['cty lower-case jwt', 'jwe: cty must be JWT', async () => rawJwe(H({ cty: 'jwt' }), await jws())],
  ['cty JOSE', 'jwe: cty must be JWT', async () => rawJwe(H({ cty: 'JOSE' }), await jws())],
  ['embedded jwk in JWE header', 'jwe: header parameter jwk', async () => rawJwe(H({ jwk: vendor.publicKey.export({ format: 'jwk' }) }), await jws())],
  ['jku in JWE header', 'jwe: header parameter jku', async () => rawJwe(H({ jku: 'https://attacker.example/jwks' }), await jws())],
  ['unknown JWE kid', 'jwe: unknown kid', async () => jwe(await jws(), { kid: 'not-a-service-key' })],
  ['JWE kid malformed (number)', 'jwe: kid malformed', async () => rawJwe(H({ kid: 7 }), await jws())],
  ['JWE kid names the retired key, encrypted to the current', 'jwe: decryption failed', async () => jwe(await jws(), { kid: retired.kid })],
  ['encrypted to a non-service key, no kid', 'jwe: decryption failed', async () => rawJwe(H({ kid: undefined }), await jws(), { pub: other.publicKey })],
  // --- JWE: tampering (decided by AES-GCM / RSA-OAEP) ---
  [
    'protected header re-encoded (same values, other order)',
    'jwe: decryption failed',
    async () => {
      const t = await good();
      const h = decodeProtectedHeader(t);
      return `${json64({ kid: h.kid, cty: h.cty, enc: h.enc, alg: h.alg })}.${t.split('.').slice(1).join('.')}`;
    },
  ],
  [
    'protected header gains a benign member',
    'jwe: decryption failed',
    async () => {
      const t = await good();
      return `${json64({ ...decodeProtectedHeader(t), x: 1 })}.${t.split('.').slice(1).join('.')}`;
    },
  ],
  ['encrypted key flipped', 'jwe: decryption failed', async () => mutate(await good(), 1, flip(10))],
  ['encrypted key truncated', 'jwe: decryption failed', async () => mutate(await good(), 1, (b) => b.subarray(0, b.length - 1))],
  ['IV flipped', 'jwe: decryption failed', async () => mutate(await good(), 2, flip(0))],
  ['IV shortened to 8 bytes', 'jwe: decryption failed', async () => mutate(await good(), 2, (b) => b.subarray(0, 8))],
  ['ciphertext flipped', 'jwe: decryption failed', async () => mutate(await good(), 3, flip(5))],
  ['ciphertext truncated', 'jwe: decryption failed', async () => mutate(await good(), 3, (b) => b.subarray(0, b.length - 3))],
  ['tag flipped', 'jwe: decryption failed', async () => mutate(await good(), 4, flip(-1))],
  ['tag truncated to 12 bytes', 'jwe: decryption failed', async () => mutate(await good(), 4, (b) => b.subarray(0, 12))],
  // --- JWE: serialization ---
  [
    'flattened JSON serialization',
    'jwe: expected 5 compact parts',
    async () => JSON.stringify(await new FlattenedEncrypt(enc.encode(await jws())).setProtectedHeader(H()).encrypt(svcEncPub)),
  ],
  [
    'general JSON serialization',
    'jwe: expected 5 compact parts',
    async () => {
      const g = new GeneralEncrypt(enc.encode(await jws())).setProtectedHeader({ enc: 'A256GCM', cty: 'JWT' });
      g.addRecipient(svcEncPub).setUnprotectedHeader({ alg: 'RSA-OAEP-256' });
      return JSON.stringify(await g.encrypt());
    },
  ],
  ['4 parts', 'jwe: expected 5 compact parts', async () => (await good()).split('.').slice(0, 4).join('.')],
  ['6 parts', 'jwe: expected 5 compact parts', async () => `${await good()}.AAAA`],
  [
    'empty part',
    'jwe: part 1 is empty or not base64url',
    async () => {
      const p = (await good()).split('.');
      p[1] = '';
      return p.join('.');
    },
  ],
  [
    'base64 "+" character',
    'jwe: part 3 is empty or not base64url',
    async () => {
      const p = (await good()).split('.');
      p[3] = `+${(p[3] ?? '').slice(1)}`;
      return p.join('.');
    },
  ],
  [
    'base64 padding "="',
    'jwe: part 2 is empty or not base64url',
    async () => {
      const p = (await good()).split('.');
      p[2] = `${p[2]}=`;
      return p.join('.');
    },
  ],
  [
    'non-canonical base64url (trailing bits)',
    'jwe: part 1 is not canonical base64url',
    async () => {
      const p = (await good()).split('.');
      const ek = p[1] ?? '';
      const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      p[1] = ek.slice(0, -1) + a[a.indexOf(ek.slice(-1)) ^ 1];
      return p.join('.');
    },
  ],
  [
    'newline inside the token',
    'jwe: part 3 is empty or not base64url',
    async () => {
      const p = (await good()).split('.');
      p[3] = `${(p[3] ?? '').slice(0, 4)}\n${(p[3] ?? '').slice(4)}`;
      return p.join('.');
    },
  ],
  ['leading whitespace', 'jwe: part 0 is empty or not base64url', async () => ` ${await good()}`],
  ['empty string', 'jwe: empty', () => ''],
  [
    'huge token (> 64 KiB)',
    'jwe: too large',
    async () => {
      const p = (await good()).split('.');
      p[3] = 'A'.repeat(70_000);
      return p.join('.');
    },
  ],
  ['not a string', 'jwe: not a string', () => ({ token: 12345, vendorKeys })],
  [
    'protected header not JSON',
    'jwe: protected header is not JSON',
    async () => `${b64('{"alg":"RSA-OAEP-256",')}.${(await good()).split('.').slice(1).join('.')}`,
  ],
  [
    'protected header is a JSON array',
    'jwe: protected header is not an object',
    async () => `${json64(['RSA-OAEP-256'])}.${(await good()).split('.').slice(1).join('.')}`,
  ],
  // --- JWE plaintext / inner JWS structure ---
  ['plaintext not UTF-8', 'jwe: plaintext is not UTF-8', () => rawJwe(H(), Buffer.from([0xff, 0xfe, 0x2e, 0x80]))],
  ['plaintext is a nested JWE', 'jws: expected 3 compact parts', async () => jwe(await good())],
  ['plaintext is the bare claims JSON', 'jws: expected 3 compact parts', async () => jwe(JSON.stringify(claims()))],
  ['JWS with 2 parts', 'jws: expected 3 compact parts', async () => jwe((await jws()).split('.').slice(0, 2).join('.'))],
  ['JWS with 4 parts', 'jws: expected 3 compact parts', async () => jwe(`${await jws()}.AAAA`)],
  // --- JWS: algorithms, header, keys ---
  ['alg none, empty signature', 'jws: part 2 is empty or not base64url', async () => jwe(`${json64({ alg: 'none', typ: 'JWT' })}.${json64(claims())}.`)],
  ['alg none with a signature', 'jws: alg not allowed', async () => jwe(rawJws({ alg: 'none', typ: 'JWT' }, JSON.stringify(claims()), () => Buffer.from('x')))],
  [
    'HS256 keyed with the vendor public key PEM',
    'jws: alg not allowed',
    async () =>
      jwe(
        rawJws({ alg: 'HS256', typ: 'JWT', kid: 'vendor-1' }, JSON.stringify(claims()), (i) =>
          createHmac('sha256', vendor.publicKey.export({ type: 'spki', format: 'pem' }))
            .update(i)
            .digest(),
        ),
      ),
  ],
  [
    'HS256 keyed with the vendor public key SPKI DER',
    'jws: alg not allowed',
    async () =>
      jwe(
        rawJws({ alg: 'HS256', typ: 'JWT' }, JSON.stringify(claims()), (i) =>
          createHmac('sha256', vendor.publicKey.export({ type: 'spki', format: 'der' }))
            .update(i)
            .digest(),
        ),
      ),
  ],
  [
    'RS384 by the vendor key',
    'jws: alg not allowed',
    async () => jwe(rawJws({ alg: 'RS384', typ: 'JWT' }, JSON.stringify(claims()), (i) => nodeSign('sha384', i, vendor.privateKey))),
  ],
  ['PS256 by the vendor key', 'jws: alg not allowed', async () => jwe(await jws(claims(), { alg: 'PS256' }))],
  [
    'alg RS256 with wrong case',
    'jws: alg not allowed',
    async () => jwe(rawJws({ alg: 'rs256', typ: 'JWT' }, JSON.stringify(claims()), rs256(vendor.privateKey))),
  ],
  ['JWS typ missing', 'jws: typ must be JWT', async () => jwe(await jws(claims(), { typ: undefined }))],
  ['JWS typ JOSE', 'jws: typ must be JWT', async () => jwe(await jws(claims(), { typ: 'JOSE' }))],
  ['JWS typ at+jwt', 'jws: typ must be JWT', async () => jwe(await jws(claims(), { typ: 'at+jwt' }))],
  [
    'JWS unknown crit',
    'jws: header parameter crit',
    async () => jwe(rawJws({ alg: 'RS256', typ: 'JWT', crit: ['x-ext'], 'x-ext': true }, JSON.stringify(claims()), rs256(vendor.privateKey))),
  ],
  [
    'JWS b64 false (RFC 7797)',
    'jws: header parameter crit',
    async () => jwe(rawJws({ alg: 'RS256', typ: 'JWT', b64: false, crit: ['b64'] }, JSON.stringify(claims()), rs256(vendor.privateKey))),
  ],
  [
    'JWS embedded attacker jwk',
    'jws: header parameter jwk',
    async () => jwe(await jws(claims(), { kid: undefined, jwk: other.publicKey.export({ format: 'jwk' }) }, other.privateKey)),
  ],
  ['JWS unknown kid', 'jws: unknown kid', async () => jwe(await jws(claims(), { kid: 'vendor-9' }))],
  ['JWS kid of the other registered key', 'jws: signature verification failed', async () => jwe(await jws(claims(), { kid: 'vendor-2' }))],
  ['signed by another vendor key, no kid', 'jws: signature verification failed', async () => jwe(await jws(claims(), { kid: undefined }, other.privateKey))],
  ['signed by another vendor key, its own kid', 'jws: unknown kid', async () => jwe(await jws(claims(), { kid: 'other-vendor' }, other.privateKey))],
  [
    '1024-bit registered key, with kid',
    'jws: no usable vendor key',
    async () => ({
      token: await jwe(rawJws({ alg: 'RS256', typ: 'JWT', kid: 'small' }, JSON.stringify(claims()), rs256(small.privateKey))),
      vendorKeys: [...vendorKeys, smallKey],
    }),
  ],
  [
    '1024-bit registered key, no kid',
    'jws: no usable vendor key',
    async () => ({ token: await jwe(rawJws({ alg: 'RS256', typ: 'JWT' }, JSON.stringify(claims()), rs256(small.privateKey))), vendorKeys: [smallKey] }),
  ],
  [
    '1024-bit key registered as 2048 bits',
    'jws: no usable vendor key',
    async () => ({
      token: await jwe(rawJws({ alg: 'RS256', typ: 'JWT', kid: 'small' }, JSON.stringify(claims()), rs256(small.privateKey))),
      vendorKeys: [{ ...smallKey, bits: 2048 }],
    }),
  ],
  ['no vendor key registered', 'jws: no usable vendor key', async () => ({ token: await jwe(await jws(claims(), { kid: undefined })), vendorKeys: [] })],
  ['JWS signature flipped', 'jws: signature verification failed', async () => jwe(mutate(await jws(), 2, flip(100)))],
  [
    'JWS payload swapped after signing',
    'jws: signature verification failed',
    async () => {
      const p = (await jws()).split('.');
      p[1] = json64(claims({ employee_id: 'E-9999' }));
      return jwe(p.join('.'));
    },
  ],
  // --- JWS payload and claims ---
  ['payload not JSON', 'jws: payload is not JSON', async () => jwe(await jws('hello'))],
  ['payload JSON array', 'claims: not an object', async () => jwe(await jws([claims()]))],
  ['payload JSON string', 'claims: not an object', async () => jwe(await jws(JSON.stringify('x')))],
  ['payload JSON null', 'claims: not an object', async () => jwe(await jws('null'))],
  ...['connection_id', 'employee_id', 'iat', 'exp', 'jti'].map((k): Case => [`missing ${k}`, `claims: missing ${k}`, () => withClaims({}, [k])]),
  ...['iss', 'sub', 'aud', 'nbf', 'foo', '__proto__'].map((k): Case => [
    `extra claim ${k}`,
    'claims: unexpected claim',
    async () => jwe(await jws(`${JSON.stringify(claims()).slice(0, -1)},"${k}":"x"}`)),
  ]),
  ['connection_id a number', 'claims: connection_id', () => withClaims({ connection_id: 42 })],
  ['connection_id not a UUID', 'claims: connection_id', () => withClaims({ connection_id: 'conn-1' })],
  ['connection_id UUID in braces', 'claims: connection_id', () => withClaims({ connection_id: `{${CONN}}` })],
  ['connection_id UUID without dashes', 'claims: connection_id', () => withClaims({ connection_id: CONN.replaceAll('-', '') })],
  ['employee_id a number', 'claims: employee_id', () => withClaims({ employee_id: 1001 })],
  ['employee_id empty', 'claims: employee_id', () => withClaims({ employee_id: '' })],
  ['employee_id blank', 'claims: employee_id', () => withClaims({ employee_id: '   ' })],
  ['employee_id 129 characters', 'claims: employee_id', () => withClaims({ employee_id: 'e'.repeat(129) })],
  ['source HRMS (case)', 'claims: source', () => withClaims({ source: 'HRMS' })],
  ['resource unknown', 'claims: unknown resource', () => withClaims({ resource: 'payslips' })],
  ['resource employee (only pay_history is named)', 'claims: unknown resource', () => withClaims({ resource: 'employee' })],
  ['months without resource', 'claims: months without resource', () => withClaims({ months: 12 })],
  ...[0, 37, 1.5, '12', null].map((m): Case => [
    `months ${JSON.stringify(m)}`,
    'claims: months must be',
    () => withClaims({ resource: 'pay_history', months: m }),
  ]),
  ['source null', 'claims: source', () => withClaims({ source: null })],
  ['source unknown value', 'claims: source', () => withClaims({ source: 'cache' })],
  ['iat a string', 'claims: iat', () => withClaims({ iat: String(NOW) })],
  ['iat fractional', 'claims: iat', () => withClaims({ iat: NOW - 0.5 })],
  ['exp a string', 'claims: exp', () => withClaims({ exp: String(NOW + 60) })],
  ['exp null', 'claims: exp', () => withClaims({ exp: null })],
  ['jti a number', 'claims: jti', () => withClaims({ jti: 7 })],
  ['jti empty', 'claims: jti', () => withClaims({ jti: '' })],
  ['jti 201 characters', 'claims: jti', () => withClaims({ jti: 'j'.repeat(201) })],
  ['expired (exp = now - 31)', 'claims: expired', () => withClaims({ iat: NOW - 100, exp: NOW - 31 })],
  ['expired at the tolerance edge (exp = now - 30)', 'claims: expired', () => withClaims({ iat: NOW - 100, exp: NOW - 30 })],
  ['iat 31 s in the future', 'claims: iat in the future', () => withClaims({ iat: NOW + 31, exp: NOW + 100 })],
  ['exp - iat = 301', 'claims: lifetime too long', () => withClaims({ iat: NOW - 1, exp: NOW + 300 })],
  ['exp = iat', 'claims: exp not after iat', () => withClaims({ iat: NOW, exp: NOW })],
  ['exp before iat', 'claims: exp not after iat', () => withClaims({ iat: NOW + 10, exp: NOW + 5 })],
];

describe('forged and malformed V2 requests', () => {
  it('has at least 40 distinct cases', () => {
    expect(new Set(CASES.map((c) => c[0])).size).toBe(CASES.length);
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    console.log(`forgery cases: ${CASES.length}`);
  });

  it.each(CASES)('refuses: %s', async (_name, reason, build) => {
    const built = await build();
    const { token, vendorKeys: vk } = typeof built === 'string' ? { token: built, vendorKeys } : built;
    const err = await openEncryptedRequest(token as string, decryptKeys, vk, { now: NOW }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidEncryptedPayload);
    expect((err as InvalidEncryptedPayload).message).toBe('Invalid encrypted payload');
    expect((err as InvalidEncryptedPayload).reason).toContain(reason);
  });

  it('the hand-built and jose builders produce accepted requests when not forged', async () => {
    const expected = {
      connection_id: CONN,
      employee_id: 'E-1001',
      source: 'hrms',
      iat: NOW - 5,
      exp: NOW + 115,
      jti: 'jti-1',
      resource: 'employee',
      months: 12,
    };
    const handJws = rawJws({ alg: 'RS256', typ: 'JWT', kid: 'vendor-1' }, JSON.stringify(claims()), rs256(vendor.privateKey));
    for (const token of [
      await good(),
      rawJwe(H(), await jws()),
      rawJwe(H({ kid: undefined }), handJws),
      await jwe(handJws, { kid: retired.kid }, retired.publicKey),
    ]) {
      await expect(openEncryptedRequest(token, decryptKeys, vendorKeys, { now: NOW })).resolves.toEqual(expected);
    }
  });
});

describe('accepted V2 requests', () => {
  const open = (t: string, now = NOW, opts: { clockToleranceSec?: number } = {}) => openEncryptedRequest(t, decryptKeys, vendorKeys, { now, ...opts });

  it('buildEncryptedRequest → openEncryptedRequest round trip (with and without vendor kid)', async () => {
    const servicePublicJwk = await exportPublicJwk(svc.enc);
    const t1 = await buildEncryptedRequest({
      connectionId: CONN,
      employeeId: 'E-7',
      vendorPrivateKey: vendor.privateKey,
      vendorKid: 'vendor-1',
      servicePublicJwk,
      now: NOW,
      ttlSec: 300,
      jti: 'abc',
    });
    expect(decodeProtectedHeader(t1)).toEqual({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: svc.enc.kid });
    await expect(open(t1)).resolves.toEqual({
      connection_id: CONN,
      employee_id: 'E-7',
      source: 'db',
      iat: NOW,
      exp: NOW + 300,
      jti: 'abc',
      resource: 'employee',
      months: 12,
    });
    const jwk2 = vendor2.privateKey.export({ format: 'jwk' }) as JWK;
    const t2 = await buildEncryptedRequest({
      connectionId: CONN.toUpperCase(),
      employeeId: 'E-8',
      source: 'hrms',
      vendorPrivateKey: jwk2,
      servicePublicJwk,
      now: NOW,
    });
    const c2 = await open(t2);
    expect(c2).toMatchObject({ connection_id: CONN, employee_id: 'E-8', source: 'hrms', iat: NOW, exp: NOW + 120 });
    expect(c2.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('clock tolerance edges: iat +29 s and +30 s accepted, +31 s refused; tolerance is capped at 30 s', async () => {
    await expect(open(await withClaims({ iat: NOW + 29, exp: NOW + 100 }))).resolves.toMatchObject({ iat: NOW + 29 });
    await expect(open(await withClaims({ iat: NOW + 30, exp: NOW + 100 }))).resolves.toMatchObject({ iat: NOW + 30 });
    await expect(open(await withClaims({ iat: NOW + 31, exp: NOW + 100 }))).rejects.toMatchObject({ reason: 'claims: iat in the future' });
    await expect(open(await withClaims({ iat: NOW + 31, exp: NOW + 100 }), NOW, { clockToleranceSec: 600 })).rejects.toBeInstanceOf(InvalidEncryptedPayload);
    await expect(open(await withClaims({ iat: NOW + 20, exp: NOW + 100 }), NOW, { clockToleranceSec: 10 })).rejects.toBeInstanceOf(InvalidEncryptedPayload);
    await expect(open(await withClaims({ iat: NOW - 200, exp: NOW - 29 }))).resolves.toMatchObject({ exp: NOW - 29 });
    await expect(open(await withClaims({ iat: NOW - 10, exp: NOW + 290 }))).resolves.toMatchObject({ exp: NOW + 290 });
    await expect(open(await withClaims({ employee_id: 'e'.repeat(128) }))).resolves.toMatchObject({ employee_id: 'e'.repeat(128) });
    await expect(open(await withClaims({}, ['source']))).resolves.toMatchObject({ source: 'db' });
    await expect(open(await withClaims({ resource: 'pay_history' }))).resolves.toMatchObject({ resource: 'pay_history', months: 12 });
    await expect(open(await withClaims({ resource: 'pay_history', months: 1 }))).resolves.toMatchObject({ months: 1 });
    await expect(open(await withClaims({ resource: 'pay_history', months: 36 }))).resolves.toMatchObject({ months: 36 });
    // The months bound is the pay months kept (docs/pay-history.md "What is kept").
    expect(V2_MAX_MONTHS).toBe(PAY_MONTHS_KEPT);
  });
});

describe('V2 response', () => {
  const employee = { employeeId: 'E-7', name: 'Āsha Rao', salaryDetails: { ctc: { basic: 1000 } }, dependentDetails: [] };
  const vendorKey = async () => {
    const v = await importVendorPublicJwk({ ...vendor.publicKey.export({ format: 'jwk' }), kid: 'vendor-1' });
    return { kid: v.kid, publicKey: v.encryptKey! };
  };

  it('sealResponse → openEncryptedResponse gives back employee, iat, jti', async () => {
    const data = await sealResponse({ body: { employee }, jti: 'req-1', now: NOW, signingKey: svc.sig, vendorKey: await vendorKey() });
    expect(decodeProtectedHeader(data)).toEqual({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: 'vendor-1' });
    const jwks = await exportJwks([svc.enc, svc.sig]);
    await expect(openEncryptedResponse({ data, vendorPrivateKey: vendor.privateKey, serviceSigningJwks: jwks })).resolves.toEqual({
      employee,
      iat: NOW,
      jti: 'req-1',
    });
    const asJwk = vendor.privateKey.export({ format: 'jwk' }) as JWK;
    await expect(openEncryptedResponse({ data, vendorPrivateKey: asJwk, serviceSigningJwks: jwks })).resolves.toMatchObject({ jti: 'req-1' });
  });

  it('openEncryptedResponse refuses a wrong signer, a wrong recipient and tampering', async () => {
    const data = await sealResponse({ body: { employee }, jti: 'req-2', now: NOW, signingKey: svc.sig, vendorKey: await vendorKey() });
    const impostor = await generateServiceKeyPair('sig', { kid: svc.sig.kid });
    const forged = await sealResponse({ body: { employee }, jti: 'req-2', now: NOW, signingKey: impostor, vendorKey: await vendorKey() });
    const jwks = await exportJwks([svc.sig]);
    await expect(openEncryptedResponse({ data: forged, vendorPrivateKey: vendor.privateKey, serviceSigningJwks: jwks })).rejects.toMatchObject({
      reason: 'response: signature verification failed',
    });
    await expect(openEncryptedResponse({ data, vendorPrivateKey: other.privateKey, serviceSigningJwks: jwks })).rejects.toMatchObject({
      reason: 'response: decryption failed',
    });
    await expect(
      openEncryptedResponse({ data: mutate(data, 3, flip(0)), vendorPrivateKey: vendor.privateKey, serviceSigningJwks: jwks }),
    ).rejects.toBeInstanceOf(InvalidEncryptedPayload);
  });
});

describe('keys', () => {
  it('imports only RSA public keys of 2048+ bits', async () => {
    const bad: unknown[] = [
      null,
      'x',
      { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' },
      { kty: 'oct', k: 'AAAA' },
      small.publicKey.export({ format: 'jwk' }),
      vendor.privateKey.export({ format: 'jwk' }),
      { ...vendor.publicKey.export({ format: 'jwk' }), alg: 'HS256' },
      { ...vendor.publicKey.export({ format: 'jwk' }), kid: '' },
      { kty: 'RSA', e: 'AQAB' },
      { ...vendor.publicKey.export({ format: 'jwk' }), e: 'AQAA' },
    ];
    for (const j of bad) await expect(importVendorPublicJwk(j)).rejects.toBeInstanceOf(InvalidKeyError);
    const ok = await importVendorPublicJwk(vendor.publicKey.export({ format: 'jwk' }));
    expect(ok.bits).toBe(2048);
    expect(ok.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ok.verifyKey && ok.encryptKey).toBeTruthy();
    const pub = vendor.publicKey.export({ format: 'jwk' });
    const encOnly = await importVendorPublicJwk({ ...pub, use: 'enc' });
    expect([encOnly.verifyKey, encOnly.encryptKey !== undefined]).toEqual([undefined, true]);
    const sigOnly = await importVendorPublicJwk({ ...pub, alg: 'RS256' });
    expect([sigOnly.verifyKey !== undefined, sigOnly.encryptKey]).toEqual([true, undefined]);
    expect((await importVendorPublicJwk({ ...pub, key_ops: ['verify'] })).encryptKey).toBeUndefined();
    await expect(importVendorPublicJwk({ ...pub, key_ops: ['sign'] })).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it('generates 2048/3072-bit service keys and publishes only public members with kid/use/alg', async () => {
    const big = await generateServiceKeyPair('sig', { bits: 3072 });
    expect(big.bits).toBe(3072);
    const { keys } = await exportJwks([svc.enc, svc.sig, big]);
    expect(keys.map((k) => [k.use, k.alg])).toEqual([
      ['enc', 'RSA-OAEP-256'],
      ['sig', 'RS256'],
      ['sig', 'RS256'],
    ]);
    for (const k of keys) expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(keys[2]?.kid).toBe(big.kid);
    expect(Buffer.from(keys[2]?.n ?? '', 'base64url').length).toBe(384);
  });

  it('a stored service private JWK re-imports and still decrypts', async () => {
    const stored = await exportServicePrivateJwk(svc.enc);
    const again = await importServicePrivateJwk(stored, 'enc');
    expect(again.kid).toBe(svc.enc.kid);
    const claimsOut = await openEncryptedRequest(await good(), [{ kid: again.kid, privateKey: again.privateKey }], vendorKeys, { now: NOW });
    expect(claimsOut.employee_id).toBe('E-1001');
    await expect(importServicePrivateJwk(stored, 'sig')).rejects.toBeInstanceOf(InvalidKeyError);
  });
});
