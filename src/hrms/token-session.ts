/**
 * A connector's bearer-token session, written once for every product that signs its calls with an
 * access token (reference, Keka, Zoho People, greytHR, Personio): the token comes from a
 * {@link TokenSource} (usually the process-wide {@link TokenCache}), is sent with each call, and
 * when the HRMS refuses it (HTTP 401, or the product's own sign: greytHR's login page, Zoho's
 * invalid-token code) it is forgotten and the call is made once more with a new one. What a second
 * refusal means is the product's to say (src/hrms/README.md, "Shared mechanics").
 */
import type { HrmsHttpClient, HrmsResponse } from './http-client';
import type { IssuedToken, TokenCache } from './token-cache';

/** Where a session's tokens come from and where a refused one is forgotten. */
export interface TokenSource {
  /** A usable token: cached, or requested now. Throws the product's `HrmsError` when none can be had. */
  obtain(): Promise<string>;
  /** Forgets `token` (the HRMS refused it); a newer token obtained meanwhile stays. */
  forget(token: string): void;
}

/**
 * The usual source: `cache` under the key `key()` names (a digest of the token URL and the
 * credentials, {@link TokenCache.keyOf}), filled by `issue` (the product's token request).
 */
export function cachedTokens(cache: TokenCache, { key, issue }: { key: () => string; issue: () => Promise<IssuedToken> }): TokenSource {
  return {
    obtain: () => cache.get(key(), issue),
    forget: (token) => cache.drop(key(), token),
  };
}

/** The answer of {@link TokenSession.send}: the last answer, the token it was sent with, and whether the HRMS refused that token too. */
export interface SessionAnswer<R> {
  answer: R;
  token: string;
  /** The new token was refused as well: the product decides (an `auth` error, or the answer as it is). */
  refused: boolean;
}

/** One connector's use of a {@link TokenSource}. */
export class TokenSession {
  private held: string | undefined;

  /**
   * @param hold keep the first token obtained for the connector's life (until refused or
   *   replaced) instead of asking the source on every call (greytHR and Personio hold theirs;
   *   Keka, Zoho People and the reference HRMS ask the cache each time, so an expiring token is
   *   renewed mid-listing)
   */
  constructor(
    private readonly source: TokenSource,
    private readonly hold = false,
  ) {}

  /** The token to send now. */
  async token(): Promise<string> {
    if (this.held !== undefined) return this.held;
    const token = await this.source.obtain();
    if (this.hold) this.held = token;
    return token;
  }

  /** Forgets `token` here and in the source (the HRMS refused it). */
  forget(token: string): void {
    this.source.forget(token);
    if (this.held === token) this.held = undefined;
  }

  /** Stops holding a token, without forgetting it in the source (the connector switched to another API). */
  release(): void {
    this.held = undefined;
  }

  /** Holds `token` instead of the one held, when one is (an answer carried a rotated token). */
  rotate(token: string): void {
    if (this.held !== undefined && token !== this.held) this.held = token;
  }

  /**
   * `send` with the token; when `isRefused` says the answer refused it, that token is forgotten
   * and `send` runs once more with a new one. `send`'s and the source's errors are passed on.
   */
  async send<R>(send: (token: string) => Promise<R>, isRefused: (answer: R) => boolean): Promise<SessionAnswer<R>> {
    const first = await this.token();
    const answer = await send(first);
    if (!isRefused(answer)) return { answer, token: first, refused: false };
    this.forget(first);
    const token = await this.token();
    const again = await send(token);
    return { answer: again, token, refused: isRefused(again) };
  }

  /**
   * GET `url` through `client` with the token as `Authorization: Bearer` (and `headers`); an HTTP
   * 401 forgets the token and the call is made once more with a new one (RFC 6750 §3.1
   * `invalid_token`). The last answer is returned as it is, a second 401 included: the product judges it.
   */
  async bearerGet(client: HrmsHttpClient, url: URL, what: string, headers: Record<string, string> = {}): Promise<HrmsResponse> {
    const sent = await this.send(
      (token) => client.request(url, what, { headers: { ...headers, authorization: `Bearer ${token}` } }),
      (res) => res.statusCode === 401,
    );
    return sent.answer;
  }
}
