/**
 * The ES256 service key that signs credentials and status lists (docs/credentials.md "Keys and
 * metadata"): a P-256 key pair (RFC 7518 §3.4, §6.2) published in the service JWKS with `use:
 * sig`, `alg: ES256` and a `kid` (the RFC 7638 thumbprint), beside the RSA keys of docs/v2.md.
 * All key handling goes through `jose`.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { InvalidKeyError } from './keys';

/** The public half of the ES256 service key as published (RFC 7517 §4, RFC 7518 §6.2.1). */
export interface EcServicePublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  use: 'sig';
  alg: 'ES256';
}

/** An ES256 service key pair. */
export interface EcServiceKeyPair {
  kid: string;
  use: 'sig';
  alg: 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** Generates an extractable ES256 pair; `kid` is the RFC 7638 SHA-256 thumbprint of the public key. */
export async function generateEcServiceKeyPair(): Promise<EcServiceKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: pub.x, y: pub.y }, 'sha256');
  return { kid, use: 'sig', alg: 'ES256', privateKey, publicKey };
}

/** The published public JWK of `pair`. Throws InvalidKeyError when it is not a P-256 key. */
export async function exportEcPublicJwk(pair: Pick<EcServiceKeyPair, 'kid' | 'publicKey'>): Promise<EcServicePublicJwk> {
  const jwk = await exportJWK(pair.publicKey);
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new InvalidKeyError('service key is not a P-256 public key');
  }
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid: pair.kid, use: 'sig', alg: 'ES256' };
}

/** Private JWK of the pair for storage (keep it secret), with kid, use and alg. */
export async function exportEcPrivateJwk(pair: EcServiceKeyPair): Promise<JWK> {
  return { ...(await exportJWK(pair.privateKey)), kid: pair.kid, use: 'sig', alg: 'ES256' };
}

/** Re-imports a stored private JWK (as written by {@link exportEcPrivateJwk}). Throws InvalidKeyError when it is not a P-256 private key. */
export async function importEcPrivateJwk(jwk: JWK): Promise<EcServiceKeyPair> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new InvalidKeyError('not a P-256 private JWK');
  }
  const { kty, crv, x, y, d } = jwk;
  try {
    const privateKey = (await importJWK({ kty, crv, x, y, d }, 'ES256', { extractable: true })) as CryptoKey;
    const publicKey = (await importJWK({ kty, crv, x, y }, 'ES256')) as CryptoKey;
    const kid = jwk.kid ?? (await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x, y }, 'sha256'));
    return { kid, use: 'sig', alg: 'ES256', privateKey, publicKey };
  } catch {
    throw new InvalidKeyError('P-256 private key could not be imported');
  }
}
