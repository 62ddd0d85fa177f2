/**
 * Hand-built JOSE pieces for forgery tests (unit and integration): JWS and JWE assembled with
 * node:crypto, byte for byte (RFC 7515 §5.1, RFC 7516 §5.1), so headers, algorithms and key
 * wrapping can be anything a forger would try — things jose itself refuses to produce.
 */
import { constants, createCipheriv, publicEncrypt, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto';

/** base64url of a string (UTF-8) or bytes. */
export const b64 = (x: string | Uint8Array): string => Buffer.from(x).toString('base64url');
/** base64url of a JSON value. */
export const json64 = (o: unknown): string => b64(JSON.stringify(o));
/** Drops members whose value is undefined (header overrides use undefined to remove). */
export const clean = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** JWS compact signed by hand, any header; `signer` gets the ASCII signing input. */
export function rawJws(header: unknown, payload: string | Uint8Array, signer: (input: Buffer) => Buffer): string {
  const input = `${json64(header)}.${b64(payload)}`;
  return `${input}.${b64(signer(Buffer.from(input, 'ascii')))}`;
}

/** An RS256 signer (RSASSA-PKCS1-v1_5 / SHA-256) for {@link rawJws}. */
export const rs256 =
  (k: KeyObject) =>
  (i: Buffer): Buffer =>
    nodeSign('sha256', i, k);

/** Options of {@link rawJwe}: key wrapping padding, CEK size, and the recipient key. */
export interface RawJweOptions {
  pad?: 'oaep256' | 'oaep1' | 'pkcs1';
  cekBytes?: 16 | 32;
  pub: KeyObject;
}

/** JWE compact by hand: RSA key wrap of a random CEK, AES-GCM, AAD = the encoded header. */
export function rawJwe(header: unknown, pt: string | Uint8Array, o: RawJweOptions): string {
  const cek = randomBytes(o.cekBytes ?? 32);
  const iv = randomBytes(12);
  const ek =
    o.pad === 'pkcs1'
      ? publicEncrypt({ key: o.pub, padding: constants.RSA_PKCS1_PADDING }, cek)
      : publicEncrypt({ key: o.pub, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: o.pad === 'oaep1' ? 'sha1' : 'sha256' }, cek);
  const h = json64(header);
  const c = createCipheriv(`aes-${cek.length * 8}-gcm` as 'aes-256-gcm', cek, iv);
  c.setAAD(Buffer.from(h, 'ascii'));
  const ct = Buffer.concat([c.update(pt), c.final()]);
  return [h, b64(ek), b64(iv), b64(ct), b64(c.getAuthTag())].join('.');
}

/** Replaces compact part `i` by `f(decoded bytes)`. */
export function mutate(token: string, i: number, f: (b: Buffer) => Buffer): string {
  const parts = token.split('.');
  parts[i] = b64(f(Buffer.from(parts[i] ?? '', 'base64url')));
  return parts.join('.');
}

/** Flips the low bit of byte `at` (negative: from the end). */
export const flip =
  (at: number) =>
  (b: Buffer): Buffer => {
    const c = Buffer.from(b);
    const j = at < 0 ? c.length + at : at;
    c[j] = (c[j] as number) ^ 0x01;
    return c;
  };
