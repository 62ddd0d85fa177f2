/**
 * Independent implementation check: the V2 request is built, and the V2 response opened, with
 * Node's WebCrypto (`crypto.subtle`) directly — no jose — following RFC 7515 §5.1 (JWS), RFC 7516
 * §5.1 (JWE: CEK wrapped with RSA-OAEP/SHA-256, AES-256-GCM, 96-bit IV, 128-bit tag, AAD = ASCII of
 * the encoded protected header) and RFC 7518 §3.3, §4.3, §5.3.
 */
import type { webcrypto } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidEncryptedPayload, openEncryptedRequest } from '../../src/crypto/jose/request';
import type { VendorVerifyKey } from '../../src/crypto/jose/request';
import { sealResponse } from '../../src/crypto/jose/response';
import { exportJwks, exportPublicJwk, generateServiceKeys, importVendorPublicJwk } from '../../src/crypto/jose/keys';
import type { ServiceKeyPair } from '../../src/crypto/jose/keys';
import { RSA_PARAMS, ascii, unb64, wb64, webcryptoJwe as sharedJwe, webcryptoJws as sharedJws } from '../support/webcrypto-jose';

const subtle = globalThis.crypto.subtle;
const NOW = 1_760_000_000;
const CONN = '0b6f4c2a-1d3e-4f50-9a6b-7c8d9e0f1a2b';
const td = new TextDecoder();
const b64 = wb64;
let svc: { enc: ServiceKeyPair; sig: ServiceKeyPair };
type CryptoKey = webcrypto.CryptoKey;
let vendorSign: webcrypto.CryptoKeyPair;
let vendorOaepPrivate: CryptoKey;
let vendorKeys: VendorVerifyKey[];
let serviceOaepPublic: CryptoKey;

beforeAll(async () => {
  svc = await generateServiceKeys();
  vendorSign = await subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', ...RSA_PARAMS }, true, ['sign', 'verify']);
  // The vendor uses the same RSA key pair to decrypt responses (RSA-OAEP/SHA-256 view of it).
  const privJwk = await subtle.exportKey('jwk', vendorSign.privateKey);
  const { alg: _a, key_ops: _k, ...privMaterial } = privJwk;
  vendorOaepPrivate = await subtle.importKey('jwk', privMaterial, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['decrypt']);
  const pubJwk = await subtle.exportKey('jwk', vendorSign.publicKey);
  const registered = await importVendorPublicJwk({ kty: pubJwk.kty, n: pubJwk.n, e: pubJwk.e, kid: 'wc-vendor' });
  vendorKeys = [{ kid: registered.kid, publicKey: registered.verifyKey!, bits: registered.bits }];
  const svcJwk = await exportPublicJwk(svc.enc); // what the vendor reads from the JWKS
  serviceOaepPublic = await subtle.importKey('jwk', { kty: 'RSA', n: svcJwk.n, e: svcJwk.e }, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
});

/** RFC 7515 §5.1 with RSASSA-PKCS1-v1_5 / SHA-256, by the vendor key (test/support/webcrypto-jose). */
const webcryptoJws = (header: object, payload: object): Promise<string> => sharedJws(vendorSign.privateKey, header, payload);

/** RFC 7516 §5.1 compact JWE to the service key unless told; `aad: false` omits the header from the AAD. */
const webcryptoJwe = (header: object, plaintext: string, o: { aad?: boolean; oaepKey?: CryptoKey } = {}): Promise<string> =>
  sharedJwe(o.oaepKey ?? serviceOaepPublic, header, plaintext, o.aad === undefined ? {} : { aad: o.aad });

const CLAIMS = { connection_id: CONN, employee_id: 'EMP-42', source: 'db', iat: NOW - 1, exp: NOW + 59, jti: 'wc-1' };
const JWE_HEADER = () => ({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: svc.enc.kid });

describe('WebCrypto-built request accepted by openEncryptedRequest', () => {
  it('accepts a request built with crypto.subtle only', async () => {
    const jws = await webcryptoJws({ alg: 'RS256', typ: 'JWT', kid: 'wc-vendor' }, CLAIMS);
    const jwe = await webcryptoJwe(JWE_HEADER(), jws);
    const claims = await openEncryptedRequest(jwe, [{ kid: svc.enc.kid, privateKey: svc.enc.privateKey }], vendorKeys, { now: NOW });
    expect(claims).toEqual({ ...CLAIMS, resource: 'employee', months: 12 });
  });

  it('accepts it without kids too (every key tried)', async () => {
    const jws = await webcryptoJws({ alg: 'RS256', typ: 'JWT' }, { ...CLAIMS, source: undefined });
    const { kid: _kid, ...noKid } = JWE_HEADER();
    const jwe = await webcryptoJwe(noKid, jws);
    const claims = await openEncryptedRequest(jwe, [{ kid: svc.enc.kid, privateKey: svc.enc.privateKey }], vendorKeys, { now: NOW });
    expect(claims).toEqual({ ...CLAIMS, source: 'db', resource: 'employee', months: 12 });
  });

  it('refuses the same construction when the header is left out of the AAD', async () => {
    const jws = await webcryptoJws({ alg: 'RS256', typ: 'JWT', kid: 'wc-vendor' }, CLAIMS);
    const jwe = await webcryptoJwe(JWE_HEADER(), jws, { aad: false });
    await expect(openEncryptedRequest(jwe, [{ kid: svc.enc.kid, privateKey: svc.enc.privateKey }], vendorKeys, { now: NOW })).rejects.toMatchObject({
      reason: 'jwe: decryption failed',
    });
  });

  it('refuses a CEK wrapped with RSA-OAEP/SHA-1 even when labelled RSA-OAEP-256', async () => {
    const jwk = await exportPublicJwk(svc.enc);
    const sha1Key = await subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e }, { name: 'RSA-OAEP', hash: 'SHA-1' }, false, ['encrypt']);
    const jws = await webcryptoJws({ alg: 'RS256', typ: 'JWT', kid: 'wc-vendor' }, CLAIMS);
    const jwe = await webcryptoJwe(JWE_HEADER(), jws, { oaepKey: sha1Key });
    const err = await openEncryptedRequest(jwe, [{ kid: svc.enc.kid, privateKey: svc.enc.privateKey }], vendorKeys, { now: NOW }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidEncryptedPayload);
  });
});

describe('sealResponse opened with crypto.subtle', () => {
  it('decrypts (RSA-OAEP-256 + A256GCM) and verifies (RS256) to the employee', async () => {
    const employee = { employeeId: 'EMP-42', name: 'Meera Nair', bankDetails: { accountNumber: '001234567890' } };
    const registered = await importVendorPublicJwk({
      ...(await subtle.exportKey('jwk', vendorSign.publicKey)),
      alg: undefined,
      key_ops: undefined,
      ext: undefined,
      kid: 'wc-vendor',
    });
    const data = await sealResponse({
      body: { employee },
      jti: 'req-42',
      now: NOW,
      signingKey: svc.sig,
      vendorKey: { kid: registered.kid, publicKey: registered.encryptKey! },
    });

    const parts = data.split('.');
    expect(parts).toHaveLength(5);
    const [h, ek, iv, ct, tag] = parts as [string, string, string, string, string];
    expect(JSON.parse(td.decode(unb64(h)))).toEqual({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: 'wc-vendor' });
    expect(unb64(iv)).toHaveLength(12);
    expect(unb64(tag)).toHaveLength(16);
    const cek = new Uint8Array(await subtle.decrypt({ name: 'RSA-OAEP' }, vendorOaepPrivate, unb64(ek)));
    expect(cek).toHaveLength(32);
    const aesKey = await subtle.importKey('raw', cek, 'AES-GCM', false, ['decrypt']);
    const sealed = new Uint8Array([...unb64(ct), ...unb64(tag)]);
    const jws = td.decode(await subtle.decrypt({ name: 'AES-GCM', iv: unb64(iv), additionalData: ascii(h), tagLength: 128 }, aesKey, sealed));

    const [sh, sp, ss] = jws.split('.') as [string, string, string];
    expect(JSON.parse(td.decode(unb64(sh)))).toEqual({ alg: 'RS256', typ: 'JWT', kid: svc.sig.kid });
    const jwks = await exportJwks([svc.enc, svc.sig]);
    const sigJwk = jwks.keys.find((k) => k.kid === svc.sig.kid && k.use === 'sig');
    expect(sigJwk?.alg).toBe('RS256');
    const verifyKey = await subtle.importKey('jwk', { kty: 'RSA', n: sigJwk!.n, e: sigJwk!.e }, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, [
      'verify',
    ]);
    expect(await subtle.verify('RSASSA-PKCS1-v1_5', verifyKey, unb64(ss), ascii(`${sh}.${sp}`))).toBe(true);
    // The signature covers the payload: a changed payload does not verify.
    expect(await subtle.verify('RSASSA-PKCS1-v1_5', verifyKey, unb64(ss), ascii(`${sh}.${b64('{}')}`))).toBe(false);
    expect(JSON.parse(td.decode(unb64(sp)))).toEqual({ employee, iat: NOW, jti: 'req-42' });
  });
});
