/**
 * An independent JOSE implementation on Node's WebCrypto (`crypto.subtle`) only — no jose — for
 * checking hrx's V2 wire format from the outside: RFC 7515 §5.1/§5.2 (JWS RS256), RFC 7516
 * §5.1/§5.2 (JWE: CEK wrapped with RSA-OAEP/SHA-256, AES-256-GCM, 96-bit IV, 128-bit tag,
 * AAD = ASCII of the encoded protected header), RFC 7518 §3.3, §4.3, §5.3.
 */
import type { webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;
const subtle = globalThis.crypto.subtle;
const te = new TextEncoder();
const td = new TextDecoder();

/** base64url of bytes or a string (UTF-8). */
export const wb64 = (x: ArrayBuffer | Uint8Array | string): string =>
  Buffer.from(typeof x === 'string' ? te.encode(x) : x instanceof Uint8Array ? x : new Uint8Array(x)).toString('base64url');
/** Bytes of a base64url string. */
export const unb64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64url'));
/** ASCII bytes (base64url output is ASCII). */
export const ascii = (s: string): Uint8Array => te.encode(s);

/** RSA parameters of a 2048-bit key with e = 65537 and SHA-256. */
export const RSA_PARAMS = { modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };

/** RFC 7515 §5.1 compact JWS with RSASSA-PKCS1-v1_5 / SHA-256. */
export async function webcryptoJws(signKey: CryptoKey, header: object, payload: object): Promise<string> {
  const input = `${wb64(JSON.stringify(header))}.${wb64(JSON.stringify(payload))}`;
  const sig = await subtle.sign('RSASSA-PKCS1-v1_5', signKey, ascii(input));
  return `${input}.${wb64(sig)}`;
}

/** RFC 7516 §5.1 compact JWE to `oaepKey` (RSA-OAEP); `aad: false` omits the header from the AAD (a broken encoder). */
export async function webcryptoJwe(oaepKey: CryptoKey, header: object, plaintext: string, o: { aad?: boolean } = {}): Promise<string> {
  const h = wb64(JSON.stringify(header));
  const cek = globalThis.crypto.getRandomValues(new Uint8Array(32)); // 256-bit CEK
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12)); // 96-bit IV
  const encryptedKey = await subtle.encrypt({ name: 'RSA-OAEP' }, oaepKey, cek);
  const aesKey = await subtle.importKey('raw', cek, 'AES-GCM', false, ['encrypt']);
  const sealed = new Uint8Array(
    await subtle.encrypt({ name: 'AES-GCM', iv, tagLength: 128, ...(o.aad === false ? {} : { additionalData: ascii(h) }) }, aesKey, te.encode(plaintext)),
  );
  return [h, wb64(encryptedKey), wb64(iv), wb64(sealed.subarray(0, sealed.length - 16)), wb64(sealed.subarray(sealed.length - 16))].join('.');
}

/** RFC 7516 §5.2: decrypts a compact JWE with an RSA-OAEP/SHA-256 private key. Returns header and plaintext. */
export async function webcryptoDecryptJwe(
  jwe: string,
  oaepPrivate: CryptoKey,
): Promise<{ header: Record<string, unknown>; plaintext: string; cekBytes: number; ivBytes: number; tagBytes: number }> {
  const parts = jwe.split('.');
  if (parts.length !== 5) throw new Error('not a compact JWE');
  const [h, ek, iv, ct, tag] = parts as [string, string, string, string, string];
  const cek = new Uint8Array(await subtle.decrypt({ name: 'RSA-OAEP' }, oaepPrivate, unb64(ek)));
  const aesKey = await subtle.importKey('raw', cek, 'AES-GCM', false, ['decrypt']);
  const sealed = new Uint8Array([...unb64(ct), ...unb64(tag)]);
  const plaintext = td.decode(await subtle.decrypt({ name: 'AES-GCM', iv: unb64(iv), additionalData: ascii(h), tagLength: 128 }, aesKey, sealed));
  return {
    header: JSON.parse(td.decode(unb64(h))) as Record<string, unknown>,
    plaintext,
    cekBytes: cek.length,
    ivBytes: unb64(iv).length,
    tagBytes: unb64(tag).length,
  };
}

/** RFC 7515 §5.2: verifies a compact RS256 JWS. Returns header, payload and the verdict. */
export async function webcryptoVerifyJws(jws: string, verifyKey: CryptoKey): Promise<{ header: Record<string, unknown>; payload: unknown; valid: boolean }> {
  const [sh, sp, ss] = jws.split('.') as [string, string, string];
  const valid = await subtle.verify('RSASSA-PKCS1-v1_5', verifyKey, unb64(ss), ascii(`${sh}.${sp}`));
  return { header: JSON.parse(td.decode(unb64(sh))) as Record<string, unknown>, payload: JSON.parse(td.decode(unb64(sp))), valid };
}

/** Imports the public members of an RSA JWK for RSA-OAEP/SHA-256 encryption or RS256 verification. */
export function webcryptoImportPublic(jwk: { n?: string; e?: string }, use: 'encrypt' | 'verify'): Promise<CryptoKey> {
  const alg = use === 'encrypt' ? { name: 'RSA-OAEP', hash: 'SHA-256' } : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  return subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e }, alg, false, [use]);
}

/** A vendor's RSA key pair, seen as RS256 signer and as RSA-OAEP/SHA-256 decrypter, with its public JWK. */
export async function webcryptoVendorKey(): Promise<{ sign: CryptoKey; oaepPrivate: CryptoKey; publicJwk: { kty: 'RSA'; n: string; e: string } }> {
  const pair = await subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', ...RSA_PARAMS }, true, ['sign', 'verify']);
  const { alg: _a, key_ops: _k, ...privMaterial } = await subtle.exportKey('jwk', pair.privateKey);
  const oaepPrivate = await subtle.importKey('jwk', privMaterial, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['decrypt']);
  const pub = await subtle.exportKey('jwk', pair.publicKey);
  return { sign: pair.privateKey, oaepPrivate, publicJwk: { kty: 'RSA', n: pub.n!, e: pub.e! } };
}
