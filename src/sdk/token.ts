/**
 * The SDK access_token (docs/connect.md "Reference: the SDK token and the Connect endpoints"): a JWT (RFC 7519) signed RS256 (RFC 7518 §3.3) by the
 * service's current `sig` key, header `{alg: RS256, typ: JWT, kid}`, verified against the keys of
 * the service JWKS (docs/v2.md "JWKS"), so a token signed before a key rotation stays valid while its
 * key is in grace.
 *
 * Claims: `iss` {@link CONNECT_ISSUER}; `aud` {@link CONNECT_AUDIENCE} (only the Connect
 * endpoints accept it); `sub` the user's id; `vendor_org`, `client_org` (org uuids);
 * `connection_id`; `iat`; `exp` = `iat` + {@link SDK_TOKEN_TTL_SEC}; `jti` (a UUID).
 */
import { createLocalJWKSet, jwtVerify, SignJWT, type CryptoKey, type JSONWebKeySet, type KeyObject } from 'jose';

/** Token lifetime, seconds (docs/limits.md: 3600). */
export const SDK_TOKEN_TTL_SEC = 3600;
/** `iss` of every SDK token (RFC 7519 §4.1.1). */
export const CONNECT_ISSUER = 'urn:hrx';
/** `aud` of every SDK token (RFC 7519 §4.1.3): the Connect flow and nothing else. */
export const CONNECT_AUDIENCE = 'urn:hrx:connect';
/** Clock tolerance of verification, seconds. */
const CLOCK_TOLERANCE_SEC = 5;

/** The claims hrx puts into an SDK token. */
export interface ConnectClaims {
  sub: string;
  vendor_org: string;
  client_org: string;
  connection_id: string;
  jti: string;
  iat: number;
  exp: number;
}

/** Signs an SDK token for `claims` (minus iat/exp) at `nowSec`; returns the compact JWS. */
export async function signConnectToken(
  claims: Omit<ConnectClaims, 'iat' | 'exp'>,
  key: { kid: string; privateKey: CryptoKey | KeyObject },
  nowSec = Math.floor(Date.now() / 1000),
): Promise<{ token: string; iat: number; exp: number }> {
  const exp = nowSec + SDK_TOKEN_TTL_SEC;
  const { sub, jti, ...rest } = claims;
  const token = await new SignJWT(rest)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid })
    .setIssuer(CONNECT_ISSUER)
    .setAudience(CONNECT_AUDIENCE)
    .setSubject(sub)
    .setJti(jti)
    .setIssuedAt(nowSec)
    .setExpirationTime(exp)
    .sign(key.privateKey);
  return { token, iat: nowSec, exp };
}

/**
 * Verifies an SDK token against `jwks` (only its `sig` keys are used): RS256, `kid`, issuer,
 * audience, `iat`/`exp` (tolerance 5 s, lifetime exactly 3600 s) and every claim of
 * {@link ConnectClaims}. Returns the claims, or null when anything fails (never throws for a bad token).
 */
export async function verifyConnectToken(token: string, jwks: JSONWebKeySet): Promise<ConnectClaims | null> {
  if (token.length > 4096) return null;
  try {
    const keys = createLocalJWKSet({ keys: jwks.keys.filter((k) => k.use === 'sig') });
    const { payload } = await jwtVerify(token, keys, {
      algorithms: ['RS256'],
      issuer: CONNECT_ISSUER,
      audience: CONNECT_AUDIENCE,
      typ: 'JWT',
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      clockTolerance: CLOCK_TOLERANCE_SEC,
    });
    const p = payload as Record<string, unknown>;
    const { sub, vendor_org, client_org, connection_id, jti, iat, exp } = p;
    if (
      typeof sub !== 'string' ||
      typeof vendor_org !== 'string' ||
      typeof client_org !== 'string' ||
      typeof connection_id !== 'string' ||
      typeof jti !== 'string'
    )
      return null;
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp - iat !== SDK_TOKEN_TTL_SEC) return null;
    // The verified payload as it is (other registered claims included), now known to hold every claim.
    return { ...p, sub, vendor_org, client_org, connection_id, jti, iat, exp };
  } catch {
    return null;
  }
}
