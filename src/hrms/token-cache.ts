/**
 * Access tokens shared by every connector instance of one process, keyed by a digest of the
 * credentials that obtained them. Why: hrx builds a connector per sync and per live read, and
 * some products limit token requests (Zoho: at most 10 access tokens per refresh token per
 * 10 minutes, https://www.zoho.com/accounts/protocol/oauth/web-apps/access-token-expiry.html),
 * so a token is requested once and reused until shortly before it expires. The key is a SHA-256
 * digest, so the map holds no credential; it holds the tokens themselves, as each connector did.
 */
import { createHash } from 'node:crypto';

/** A token and its lifetime as the HRMS answered it. */
export interface IssuedToken {
  value: string;
  /** Lifetime in ms from now. */
  ttlMs: number;
}

/** An LRU-bounded cache of access tokens with one request in flight per key. */
export class TokenCache {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<string>>();

  /** @param maxEntries tokens kept at most (the least recently used goes first) */
  constructor(private readonly maxEntries = 1000) {}

  /** The cache key of a set of credential parts (token URL, client id, secrets): a hex SHA-256 digest. */
  static keyOf(...parts: string[]): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  }

  /**
   * The cached token for `key` while it has more than 10 % (at most 60 s) of its life left; else
   * the one `issue` obtains (callers asking meanwhile share that request). `issue`'s errors are
   * passed on and nothing is cached.
   */
  async get(key: string, issue: () => Promise<IssuedToken>): Promise<string> {
    const hit = this.entries.get(key);
    if (hit && Date.now() < hit.expiresAt) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const p = issue()
      .then((t) => {
        this.entries.delete(key);
        this.entries.set(key, { value: t.value, expiresAt: Date.now() + t.ttlMs - Math.min(60_000, t.ttlMs * 0.1) });
        while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
        return t.value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /** Forgets `value` for `key` (the HRMS refused it); a newer token another caller got stays. */
  drop(key: string, value: string): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  /** Forgets every cached token (a connector's own cache, before a credential check that must ask the HRMS). */
  clear(): void {
    this.entries.clear();
  }
}
