/**
 * The verifier's side of the status lists (draft-ietf-oauth-status-list §8): a status list token
 * checked once (`typ: statuslist+jwt`, ES256 by a key of the issuer's JWKS, `sub` equal to the
 * credential's `uri`, `exp`), inflated once, then kept per `uri` for its `ttl` (never past its
 * `exp`) so that each credential check is a bit lookup. A list is 131,072 bits: decoding it per
 * check into one number per credential (as `@sd-jwt/jwt-status-list` does) costs tens of
 * milliseconds, a bit lookup nothing. A revocation shows at the latest `ttl` seconds after the
 * list was fetched (the list's own promise to its readers).
 */
import { inflateSync } from 'node:zlib';
import { jwtVerify, type CryptoKey, type JWSHeaderParameters, type JWK } from 'jose';

/** Header `typ` of a status list token (draft-ietf-oauth-status-list §5.1). */
export const STATUS_LIST_TYP = 'statuslist+jwt';

/** A decoded status list: the inflated bytes and bits per status. */
interface DecodedList {
  bytes: Uint8Array;
  bits: number;
  /** Token `exp`, seconds, or null. */
  exp: number | null;
  /** Wall clock (ms) after which the list is fetched again. */
  freshUntilMs: number;
}

/** Resolves the issuer's ES256 key of a JWS header (throws for an unknown `kid`). */
export type IssuerKeyResolver = (header: JWSHeaderParameters) => Promise<CryptoKey | JWK | Uint8Array>;

/** Why a status check failed: the bit is set, or the list itself is not to be trusted. */
export class StatusError extends Error {
  constructor(
    readonly reason: 'revoked' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The status of index `idx` in `bytes` (`bits` per status, least significant bits first:
 * draft-ietf-oauth-status-list §4.1). Throws {@link StatusError} `invalid` for an index past the list.
 */
export function statusAt(bytes: Uint8Array, bits: number, idx: number): number {
  const bit = idx * bits;
  if (!Number.isInteger(idx) || idx < 0 || bit >= bytes.length * 8) throw new StatusError('invalid', 'status index outside the list');
  return (bytes[bit >> 3]! >> (bit & 7)) & ((1 << bits) - 1);
}

/** Options of {@link createStatusCheck}. */
export interface StatusCheckOptions {
  /** Fetches the status list token at `uri`. */
  fetch: (uri: string) => Promise<string>;
  /** The issuer's key for the token's header. */
  key: IssuerKeyResolver;
  /** Wall clock, ms (default `Date.now`): the `ttl` runs on it. */
  clock?: () => number;
}

/**
 * A status checker with its cache of decoded lists. `check(uri, idx, now)` resolves when the
 * status is 0; rejects with {@link StatusError} `revoked` for any other status, `invalid` for a
 * token that fails its checks (never cached) or an index past the list. `now` (seconds) is the
 * verification time the token's `exp` is checked against.
 */
export function createStatusCheck(o: StatusCheckOptions) {
  const clock = o.clock ?? Date.now;
  const lists = new Map<string, DecodedList>();

  async function load(uri: string, now: number): Promise<DecodedList> {
    const token = await o.fetch(uri);
    let payload;
    try {
      ({ payload } = await jwtVerify(token, o.key, { algorithms: ['ES256'], typ: STATUS_LIST_TYP, subject: uri, currentDate: new Date(now * 1000) }));
    } catch (err) {
      throw new StatusError('invalid', `status list: ${(err as Error).message}`);
    }
    const sl = payload.status_list as { bits?: unknown; lst?: unknown } | undefined;
    if (!sl || ![1, 2, 4, 8].includes(sl.bits as number) || typeof sl.lst !== 'string') throw new StatusError('invalid', 'status list: no status_list claim');
    let bytes: Uint8Array;
    try {
      bytes = inflateSync(Buffer.from(sl.lst, 'base64url'));
    } catch {
      throw new StatusError('invalid', 'status list: lst does not inflate');
    }
    const ttl = typeof payload.ttl === 'number' && payload.ttl > 0 ? payload.ttl : 0;
    const exp = typeof payload.exp === 'number' ? payload.exp : null;
    const freshUntilMs = Math.min(clock() + ttl * 1000, exp === null ? Infinity : exp * 1000);
    const list: DecodedList = { bytes, bits: sl.bits as number, exp, freshUntilMs };
    if (ttl > 0) lists.set(uri, list);
    else lists.delete(uri);
    return list;
  }

  return {
    async check(uri: string, idx: number, now: number): Promise<void> {
      const cached = lists.get(uri);
      const usable = cached && clock() < cached.freshUntilMs && (cached.exp === null || cached.exp > now);
      const list = usable ? cached : await load(uri, now);
      if (statusAt(list.bytes, list.bits, idx) !== 0) throw new StatusError('revoked', 'status bit is 1');
    },
  };
}
