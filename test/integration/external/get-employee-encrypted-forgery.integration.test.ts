/**
 * Forged and malformed V2 requests sent over HTTP to the real endpoint, each with the calling
 * vendor's valid Basic credential: none is answered 200. Every one is `400 Invalid encrypted
 * payload`, except a correctly signed request naming another vendor's connection, which is
 * `404 Invalid Connection ID` exactly like a nonexistent connection (docs/api.md "Conventions", "Credentials"; docs/v2.md).
 * Builders: test/support/jose-forge (hand-built JOSE) and jose for the well-formed parts.
 */
import { KeyObject, createHmac, createPublicKey, generateKeyPairSync, randomUUID, sign as nodeSign } from 'node:crypto';
import { CompactEncrypt, CompactSign, FlattenedEncrypt, decodeProtectedHeader, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../../src/domain/record';
import { expectError, plain, withoutRequestId } from '../../support/expect-error';
import { client, connection, v2Vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { b64, clean, flip, json64, mutate, rawJwe as forgeRawJwe, rawJws, rs256, type RawJweOptions } from '../../support/jose-forge';
import { dbQuery, storesOf } from '../../support/db';

type V2Vendor = Awaited<ReturnType<typeof v2Vendor>>;
let app: TestApp;
let a: V2Vendor; // the caller
let b: V2Vendor; // another vendor of the same client org
let connA: string;
let connB: string;
let svcEncPub: KeyObject;
let svcEncKid: string;
let svcSigKid: string;
const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }); // registered nowhere
const enc = new TextEncoder();
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  a = await v2Vendor(app.ctx, { kid: 'vendor-a' });
  b = await v2Vendor(app.ctx, { kid: 'vendor-b' });
  const c = await client(app.ctx);
  connA = (await connection(app.ctx, a.org.uuid, c.org.uuid)).id;
  connB = (await connection(app.ctx, b.org.uuid, c.org.uuid)).id;
  await storesOf(app).employees.upsertBatch(c.org.id, null, [normalizeRecord({ employeeId: 'EMP00001', pan: 'ABCDE1234F' }, randomUUID())]);
  // A 1024-bit key slipped into the table past validation (as an old row or a manual insert would).
  await dbQuery(app, `insert into vendor_keys (id, org_id, kid, public_jwk, bits) values ($1, $2, 'small-1024', $3, 2048)`, [
    randomUUID(),
    a.org.id,
    JSON.stringify({ ...small.publicKey.export({ format: 'jwk' }), kid: 'small-1024' }),
  ]);
  const jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as { keys: JWK[] };
  const encJwk = jwks.keys.find((k) => k.use === 'enc')!;
  svcEncKid = encJwk.kid!;
  svcSigKid = jwks.keys.find((k) => k.use === 'sig')!.kid!;
  svcEncPub = createPublicKey({ key: { kty: 'RSA', n: encJwk.n!, e: encJwk.e! }, format: 'jwk' });
});
afterAll(async () => {
  await app?.stop();
});

function claims(over: Record<string, unknown> = {}, drop: string[] = []): Record<string, unknown> {
  const t = now();
  const c: Record<string, unknown> = { connection_id: connA, employee_id: 'EMP00001', source: 'db', iat: t - 5, exp: t + 115, jti: randomUUID(), ...over };
  for (const d of drop) delete c[d];
  return c;
}
/** JWS RS256 by vendor A's key unless told (header overrides; undefined removes). */
async function jws(c: unknown = claims(), h: Record<string, unknown> = {}, key: KeyObject = a.privateKey): Promise<string> {
  const header = clean({ alg: 'RS256', typ: 'JWT', kid: 'vendor-a', ...h });
  return new CompactSign(enc.encode(typeof c === 'string' ? c : JSON.stringify(c))).setProtectedHeader(header as { alg: string }).sign(key);
}
const H = (over: Record<string, unknown> = {}) => clean({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: svcEncKid, ...over });
async function jwe(pt: string, over: Record<string, unknown> = {}, key: KeyObject = svcEncPub): Promise<string> {
  return new CompactEncrypt(enc.encode(pt)).setProtectedHeader(H(over) as { alg: string; enc: string }).encrypt(key);
}
const rawJwe = (h: unknown, pt: string | Uint8Array, o: Partial<RawJweOptions> = {}) => forgeRawJwe(h, pt, { pub: svcEncPub, ...o });
const good = async () => jwe(await jws());
const withClaims = async (over: Record<string, unknown>, drop: string[] = []) => jwe(await jws(claims(over, drop)));
const claimsJson = () => JSON.stringify(claims());

type Case = [name: string, build: () => string | Promise<string>];
const CASES: Case[] = [
  // JWS algorithm confusion and header tricks
  ['JWS alg none, empty signature', async () => jwe(`${json64({ alg: 'none', typ: 'JWT' })}.${json64(claims())}.`)],
  ['JWS alg none with a signature', async () => jwe(rawJws({ alg: 'none', typ: 'JWT' }, claimsJson(), () => Buffer.from('x')))],
  [
    'JWS HS256 keyed with the vendor public key (PEM)',
    async () =>
      jwe(
        rawJws({ alg: 'HS256', typ: 'JWT', kid: 'vendor-a' }, claimsJson(), (i) =>
          createHmac('sha256', a.publicKey.export({ type: 'spki', format: 'pem' }))
            .update(i)
            .digest(),
        ),
      ),
  ],
  [
    'JWS HS256 keyed with the vendor public key (DER)',
    async () =>
      jwe(
        rawJws({ alg: 'HS256', typ: 'JWT' }, claimsJson(), (i) =>
          createHmac('sha256', a.publicKey.export({ type: 'spki', format: 'der' }))
            .update(i)
            .digest(),
        ),
      ),
  ],
  ['JWS RS384', async () => jwe(rawJws({ alg: 'RS384', typ: 'JWT', kid: 'vendor-a' }, claimsJson(), (i) => nodeSign('sha384', i, a.privateKey)))],
  ['JWS PS256', async () => jwe(await jws(claims(), { alg: 'PS256' }))],
  ['JWS typ missing', async () => jwe(await jws(claims(), { typ: undefined }))],
  ['JWS typ JOSE', async () => jwe(await jws(claims(), { typ: 'JOSE' }))],
  [
    'JWS unknown crit',
    async () => jwe(rawJws({ alg: 'RS256', typ: 'JWT', kid: 'vendor-a', crit: ['x-ext'], 'x-ext': true }, claimsJson(), rs256(a.privateKey))),
  ],
  [
    'JWS embedded attacker jwk',
    async () => jwe(await jws(claims(), { kid: undefined, jwk: stranger.publicKey.export({ format: 'jwk' }) }, stranger.privateKey)),
  ],
  ['JWS unknown kid', async () => jwe(await jws(claims(), { kid: 'vendor-z' }))],
  ['JWS signed by an unregistered key, no kid', async () => jwe(await jws(claims(), { kid: undefined }, stranger.privateKey))],
  ['JWS signed by another vendor’s registered key, its kid', async () => jwe(await jws(claims(), { kid: 'vendor-b' }, b.privateKey))],
  ['JWS signed by another vendor’s registered key, no kid', async () => jwe(await jws(claims(), { kid: undefined }, b.privateKey))],
  ['JWS signed by another vendor’s key, naming the caller’s kid', async () => jwe(await jws(claims(), { kid: 'vendor-a' }, b.privateKey))],
  [
    'JWS by a 1024-bit key registered for the caller',
    async () => jwe(rawJws({ alg: 'RS256', typ: 'JWT', kid: 'small-1024' }, claimsJson(), rs256(small.privateKey))),
  ],
  ['JWS by a 1024-bit key, no kid', async () => jwe(rawJws({ alg: 'RS256', typ: 'JWT' }, claimsJson(), rs256(small.privateKey)))],
  ['JWS signature flipped', async () => jwe(mutate(await jws(), 2, flip(100)))],
  [
    'JWS payload swapped after signing',
    async () => {
      const p = (await jws()).split('.');
      p[1] = json64(claims({ employee_id: 'EMP00002' }));
      return jwe(p.join('.'));
    },
  ],
  ['bare claims JSON, unsigned', async () => jwe(claimsJson())],
  // JWE algorithms and header parameters
  ['JWE RSA1_5 key wrap', async () => rawJwe(H({ alg: 'RSA1_5' }), await jws(), { pad: 'pkcs1' })],
  ['JWE RSA-OAEP (SHA-1) key wrap', async () => jwe(await jws(), { alg: 'RSA-OAEP' })],
  ['JWE RSA-OAEP-256 label over a SHA-1 wrap', async () => rawJwe(H(), await jws(), { pad: 'oaep1' })],
  ['JWE alg dir', async () => rawJwe(H({ alg: 'dir' }), await jws())],
  ['JWE enc A128GCM', async () => jwe(await jws(), { enc: 'A128GCM' })],
  ['JWE enc A128GCM (hand-built, 128-bit CEK)', async () => rawJwe(H({ enc: 'A128GCM' }), await jws(), { cekBytes: 16 })],
  ['JWE enc A256CBC-HS512', async () => jwe(await jws(), { enc: 'A256CBC-HS512' })],
  ['JWE zip DEF', async () => jwe(await jws(), { zip: 'DEF' })],
  ['JWE unknown crit', async () => rawJwe(H({ crit: ['x-ext'], 'x-ext': 1 }), await jws())],
  ['JWE cty missing', async () => jwe(await jws(), { cty: undefined })],
  ['JWE cty JOSE', async () => rawJwe(H({ cty: 'JOSE' }), await jws())],
  ['JWE jku header', async () => rawJwe(H({ jku: 'https://attacker.example/jwks' }), await jws())],
  ['JWE unknown kid', async () => jwe(await jws(), { kid: 'not-a-service-key' })],
  ['JWE kid of the service signing key', async () => jwe(await jws(), { kid: svcSigKid })],
  ['JWE encrypted to a non-service key, no kid', async () => rawJwe(H({ kid: undefined }), await jws(), { pub: stranger.publicKey })],
  // JWE tampering
  [
    'JWE protected header re-encoded',
    async () => {
      const t = await good();
      const h = decodeProtectedHeader(t);
      return `${json64({ kid: h.kid, cty: h.cty, enc: h.enc, alg: h.alg })}.${t.split('.').slice(1).join('.')}`;
    },
  ],
  [
    'JWE protected header gains a member',
    async () => {
      const t = await good();
      return `${json64({ ...decodeProtectedHeader(t), x: 1 })}.${t.split('.').slice(1).join('.')}`;
    },
  ],
  ['JWE encrypted key flipped', async () => mutate(await good(), 1, flip(10))],
  ['JWE IV flipped', async () => mutate(await good(), 2, flip(0))],
  ['JWE IV shortened', async () => mutate(await good(), 2, (x) => x.subarray(0, 8))],
  ['JWE ciphertext flipped', async () => mutate(await good(), 3, flip(5))],
  ['JWE ciphertext truncated', async () => mutate(await good(), 3, (x) => x.subarray(0, x.length - 3))],
  ['JWE tag flipped', async () => mutate(await good(), 4, flip(-1))],
  ['JWE tag truncated', async () => mutate(await good(), 4, (x) => x.subarray(0, 12))],
  // Serialization
  ['JWE with 4 parts', async () => (await good()).split('.').slice(0, 4).join('.')],
  [
    'JWE flattened JSON serialization',
    async () => JSON.stringify(await new FlattenedEncrypt(enc.encode(await jws())).setProtectedHeader(H()).encrypt(svcEncPub)),
  ],
  [
    'JWE with base64 padding',
    async () => {
      const p = (await good()).split('.');
      p[2] = `${p[2]}=`;
      return p.join('.');
    },
  ],
  ['empty string', () => ''],
  ['not a JWE at all', () => b64('hello world')],
  // Claims
  ...['connection_id', 'employee_id', 'iat', 'exp', 'jti'].map((k): Case => [`claim ${k} missing`, () => withClaims({}, [k])]),
  ...['iss', 'aud', 'sub', 'nbf', 'employee'].map((k): Case => [`extra claim ${k}`, () => withClaims({ [k]: 'x' })]),
  ['connection_id not a UUID', () => withClaims({ connection_id: 'conn-1' })],
  ['employee_id empty', () => withClaims({ employee_id: '' })],
  ['source unknown', () => withClaims({ source: 'cache' })],
  ['iat as a string', () => withClaims({ iat: String(now()) })],
  ['expired (exp = now − 31)', () => withClaims({ iat: now() - 100, exp: now() - 31 })],
  ['iat 60 s in the future', () => withClaims({ iat: now() + 60, exp: now() + 120 })],
  ['exp − iat = 301', () => withClaims({ iat: now() - 1, exp: now() + 300 })],
  ['exp before iat', () => withClaims({ iat: now(), exp: now() - 1 })],
  ['jti empty', () => withClaims({ jti: '' })],
];

const post = (payload: string, authorization = a.authorization) =>
  call(`${app.url}/api/external/employee/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ encrypted_payload: payload }),
  });
const auditCount = async () => Number((await dbQuery(app, 'select count(*) from audit_log where actor_org_id = $1', [a.org.id])).rows[0].count);

describe('forged and malformed requests over HTTP', () => {
  it('has at least 40 distinct cases', () => {
    expect(new Set(CASES.map((c) => c[0])).size).toBe(CASES.length);
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it('a well-formed request from the same builders is served (the forgeries fail for what they forge)', async () => {
    expect((await post(await good())).status).toBe(200);
  });

  it.each(CASES)('400 Invalid encrypted payload: %s', async (_name, build) => {
    const before = await auditCount();
    const res = await post(await build());
    expectError(res, 400, plain('Invalid encrypted payload'));
    expect(await auditCount()).toBe(before); // nothing was read
  });

  it('the caller’s correctly signed request naming another vendor’s connection: 404 as if it did not exist', async () => {
    const theirs = await post(await withClaims({ connection_id: connB }));
    expectError(theirs, 404, plain('Invalid Connection ID'));
    const none = await post(await withClaims({ connection_id: randomUUID() }));
    expectError(none, 404, plain('Invalid Connection ID'));
    expect(withoutRequestId(theirs.body)).toEqual(withoutRequestId(none.body));
    // And B's own credential with A's connection, signed by B: the same.
    expectError(await post(await jwe(await jws(claims(), { kid: 'vendor-b' }, b.privateKey)), b.authorization), 404, plain('Invalid Connection ID'));
  });

  it('a valid payload under another vendor’s Basic credential is refused (the signature is not theirs)', async () => {
    expectError(await post(await good(), b.authorization), 400, plain('Invalid encrypted payload'));
  });
});
