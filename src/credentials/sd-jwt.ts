/**
 * The SD-JWT VC machinery of docs/credentials.md, over the OpenWallet Foundation's `@sd-jwt/*`
 * libraries (disclosures, digests, decoding, KB-JWT, status lists) with `jose` doing every
 * signature and key operation: the library hands us `header.payload` and we sign or verify it as a
 * flattened JWS (RFC 7515 §7.2.2), refusing any `alg` but the ones named (so `none` and HS256 never
 * verify). Hashing (SHA-256, RFC 9901 §4.2.3) and salts come from `@sd-jwt/crypto-nodejs`
 * (node:crypto).
 */
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { decodeSdJwt, unpack } from '@sd-jwt/decode';
import { SDJwtInstance, type SdJwtPayload } from '@sd-jwt/core';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { decodeJwt, decodeProtectedHeader, flattenedVerify, FlattenedSign, importJWK, type CryptoKey, type JWK, type JWSHeaderParameters } from 'jose';
import { createStatusCheck, StatusError } from './status-check';

/** Header `typ` of the credential (draft-ietf-oauth-sd-jwt-vc §3.2.1). */
export const CREDENTIAL_TYP = 'dc+sd-jwt';
export { STATUS_LIST_TYP } from './status-check';

/** Splits `header.payload` as the library hands it over. */
function parts(data: string): { header: JWSHeaderParameters; payload: Uint8Array; encodedHeader: string } {
  const [encodedHeader, encodedPayload] = data.split('.');
  if (!encodedHeader || encodedPayload === undefined) throw new Error('not a JWS signing input');
  return {
    header: JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8')) as JWSHeaderParameters,
    payload: Buffer.from(encodedPayload, 'base64url'),
    encodedHeader,
  };
}

/**
 * A signer callback that signs `header.payload` with `key` through jose. Throws when jose's
 * serialization of the header differs from the library's (the signature would not match).
 */
export function joseSigner(key: CryptoKey): (data: string) => Promise<string> {
  return async (data) => {
    const { header, payload, encodedHeader } = parts(data);
    const jws = await new FlattenedSign(payload).setProtectedHeader(header).sign(key);
    if (jws.protected !== encodedHeader) throw new Error('JWS header serialization differs');
    return jws.signature;
  };
}

/** Resolves the verification key of a JWS from its protected header. */
export type KeyResolver = (header: JWSHeaderParameters) => Promise<CryptoKey | Uint8Array | JWK>;

/** A verifier callback: true only when jose verifies `header.payload` + `sig` with an allowed `alg`. */
export function joseVerifier(resolve: KeyResolver, algorithms: string[]): (data: string, sig: string) => Promise<boolean> {
  return async (data, sig) => {
    const [h, p] = data.split('.');
    try {
      await flattenedVerify({ protected: h, payload: p ?? '', signature: sig }, (header) => resolve(header), { algorithms });
      return true;
    } catch {
      return false;
    }
  };
}

/** The `alg` a holder's public JWK signs with: RS256 for RSA (the vendor keys of docs/v2.md), ES256 for P-256. */
export function holderAlg(jwk: JWK): 'RS256' | 'ES256' {
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  throw new Error('unsupported holder key');
}

/** Verifies a KB-JWT against the credential's `cnf.jwk` (RFC 7800 §3.2) with jose. */
async function verifyKb(data: string, sig: string, payload: { cnf?: { jwk?: JWK } }): Promise<boolean> {
  const jwk = payload.cnf?.jwk;
  if (!jwk) return false;
  const alg = holderAlg(jwk);
  const key = await importJWK(jwk, alg);
  return joseVerifier(() => Promise.resolve(key), [alg])(data, sig);
}

/** An issuer instance signing with the ES256 key `key` (`kid` goes in the header). */
export function credentialIssuer(key: CryptoKey): SDJwtVcInstance {
  return new SDJwtVcInstance({ signer: joseSigner(key), signAlg: 'ES256', hasher: digest, hashAlg: 'sha-256', saltGenerator: generateSalt });
}

/** Where a verifier gets the issuer's keys and status lists. */
export interface VerifierSources {
  /** The issuer's JWKS (the ES256 `kid` of the header is looked up in it). */
  jwks: { keys: JWK[] };
  /** The status list token for the credential's `status.status_list.uri`. */
  statusList: (uri: string) => Promise<string>;
  /** Wall clock, ms (default `Date.now`): a status list is kept for its `ttl` on it. */
  clock?: () => number;
}

/** Options of one verification. */
export interface CheckOptions {
  /** Current time, seconds (default now). */
  now?: number;
  /** When given, a KB-JWT is required with this `nonce` and `aud`. */
  keyBinding?: { nonce: string; aud: string };
}

/** Options of {@link verifyCredential}. */
export type VerifyOptions = VerifierSources & CheckOptions;

/** Outcome of a verification: `valid`, or why not. */
export type Verdict =
  | { ok: true; result: Awaited<ReturnType<SDJwtInstance<SdJwtPayload>['verify']>>; claims: Record<string, unknown> }
  | { ok: false; reason: 'revoked' | 'expired' | 'invalid'; detail: string };

/**
 * A verifier of SD-JWT VCs as docs/credentials.md "Verifying" says: header `typ: dc+sd-jwt`, ES256
 * signature by a key of `jwks`, `exp`, every disclosure in `_sd`, the status list (signed by the
 * same JWKS, `typ: statuslist+jwt`, `sub` its `uri`), and the KB-JWT when asked (key of `cnf`,
 * `nonce`, `aud`, `sd_hash`). It keeps the imported issuer keys and each decoded status list for
 * the list's `ttl`, so a verifier checking many credentials fetches and decodes a list once per
 * `ttl` (docs/credentials.md "Status lists"). `verify` never throws for a bad credential: it
 * answers a verdict.
 */
export function createVerifier(sources: VerifierSources) {
  const keys = new Map<string, Promise<CryptoKey | Uint8Array>>();
  const resolve: KeyResolver = (header) => {
    const jwk = sources.jwks.keys.find((k) => k.kid === header.kid && k.kty === 'EC');
    if (!jwk || typeof header.kid !== 'string') return Promise.reject(new Error('unknown kid'));
    let key = keys.get(header.kid);
    if (!key) keys.set(header.kid, (key = importJWK(jwk, 'ES256')));
    return key;
  };
  const status = createStatusCheck({ fetch: sources.statusList, key: resolve, ...(sources.clock ? { clock: sources.clock } : {}) });
  // The core instance: signature, disclosures, `exp`/`nbf`, KB-JWT. The status is ours (above):
  // `@sd-jwt/sd-jwt-vc` decodes the whole list into an array per check.
  const sd = new SDJwtInstance<SdJwtPayload>({ hasher: digest, verifier: joseVerifier(resolve, ['ES256']), kbVerifier: verifyKb });

  return async function verify(compact: string, o: CheckOptions = {}): Promise<Verdict> {
    try {
      // The issuer-signed JWT alone (not yet trusted): the library's decode would hash every
      // disclosure here, and `verify` does it again.
      const jwt = compact.split('~')[0] ?? '';
      if (decodeProtectedHeader(jwt).typ !== CREDENTIAL_TYP) return { ok: false, reason: 'invalid', detail: 'header typ is not dc+sd-jwt' };
      const now = o.now ?? Math.floor(Date.now() / 1000);
      const exp = decodeJwt(jwt).exp;
      if (typeof exp === 'number' && exp <= now) return { ok: false, reason: 'expired', detail: 'exp has passed' };
      const result = await sd.verify(compact, { currentDate: now, ...(o.keyBinding ? { keyBindingNonce: o.keyBinding.nonce } : {}) });
      if (!(await everyDisclosureReferenced(compact))) return { ok: false, reason: 'invalid', detail: 'a disclosure is not referenced by a digest' };
      const ref = (result.payload as { status?: { status_list?: { uri?: unknown; idx?: unknown } } }).status?.status_list;
      if (typeof ref?.uri !== 'string' || typeof ref.idx !== 'number') return { ok: false, reason: 'invalid', detail: 'no status list reference' };
      await status.check(ref.uri, ref.idx, now);
      if (o.keyBinding && result.kb?.payload.aud !== o.keyBinding.aud) return { ok: false, reason: 'invalid', detail: 'KB-JWT aud differs' };
      // `verify` answers the payload with the disclosed claims put back (RFC 9901 §7.1).
      return { ok: true, result, claims: result.payload as Record<string, unknown> };
    } catch (err) {
      if (err instanceof StatusError) return { ok: false, reason: err.reason, detail: err.message };
      return { ok: false, reason: 'invalid', detail: (err as Error).message };
    }
  };
}

/** Verifies one SD-JWT VC (a verifier of {@link createVerifier} used once: the CLI's). */
export function verifyCredential(compact: string, o: VerifyOptions): Promise<Verdict> {
  return createVerifier(o)(compact, o);
}

/**
 * RFC 9901 §7.1 (step 5): an SD-JWT whose disclosures include one not referenced by a digest of
 * the issuer-signed JWT (directly or through another disclosure), or one given twice, MUST be
 * rejected; the library resolves the references and we compare.
 */
async function everyDisclosureReferenced(compact: string): Promise<boolean> {
  const decoded = await decodeSdJwt(compact, digest);
  const { disclosureKeymap } = await unpack(decoded.jwt.payload, decoded.disclosures, digest);
  const used = new Set(Object.values(disclosureKeymap));
  const given = await Promise.all(decoded.disclosures.map((d) => d.digest({ hasher: digest, alg: 'sha-256' })));
  return new Set(given).size === given.length && given.every((d) => used.has(d));
}

/**
 * A presentation (RFC 9901 §4.3): the credential with only the disclosures of the top-level
 * claims `disclose`, and a KB-JWT (`aud`, `nonce`, `iat`, `sd_hash`) signed by the holder key
 * `key` (RS256 for an RSA key, ES256 for P-256).
 */
export async function presentCredential(
  compact: string,
  o: { disclose: string[]; key: CryptoKey; alg: 'RS256' | 'ES256'; aud: string; nonce: string; now?: number },
): Promise<string> {
  const vc = new SDJwtVcInstance({ hasher: digest, kbSigner: joseSigner(o.key), kbSignAlg: o.alg });
  const frame = Object.fromEntries(o.disclose.map((c) => [c, true]));
  return vc.present(compact, frame, { kb: { payload: { iat: o.now ?? Math.floor(Date.now() / 1000), aud: o.aud, nonce: o.nonce } } });
}
