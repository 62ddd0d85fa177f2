/**
 * Resolves request credentials to a principal (docs/api.md "Credentials"): missing → 401 `Authentication
 * credentials were not provided.`; wrong, unknown or revoked → 401 `Invalid token.`.
 *
 * Failed authentications are limited per source address and per presented id (API key, V2
 * username, app_key) before any check that may run a slow hash (`failures`,
 * auth/failure-guard.ts): past the limit the answer is 429 THROTTLED whatever the credential.
 *
 * Successful API-key lookups are cached per process for `cacheTtlMs` (default 1 s); a revoked
 * key is dropped from every process's cache as soon as the revocation is announced
 * (`revocations`, auth/revocations.ts), and within the TTL should the announcement be lost.
 */
import { createSecretKey, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { hashApiKey } from '../crypto/secrets';
import { AppError } from '../errors';
import { CONNECT_SESSION_COOKIE, readCookie } from '../http/cookie';
import type { Authenticator, CredentialKind } from './credential';
import type { AuthFailureGuard, PresentedKind } from './failure-guard';
import type { Principal } from './principal';
import type { RevocationFeed } from './revocations';
import type { OrgStore } from '../orgs/store';

export interface AuthenticatorDeps {
  orgs: Pick<OrgStore, 'findByApiKeyHash'>;
  /** Peppers of the API-key hash, current first (derived from the current and retired master keys). */
  apiKeyPeppers: Buffer[];
  adminToken?: string | undefined;
  cacheTtlMs?: number;
  /** Checks a V2 Basic credential (docs/v2.md "Basic credentials"); absent: every Basic credential is refused. */
  verifyVendorBasic?: (username: string, password: string) => Promise<Principal | null>;
  verifyClientBasic?: (appKey: string, appSecret: string) => Promise<Principal | null>;
  /** Checks a Connect session cookie's value (docs/connect.md "The session"); absent: every session is refused. */
  verifyConnectSession?: (secret: string) => Promise<Principal | null>;
  /** The failed-authentication limit (docs/behaviour.md "Failed authentications"); absent: no limit. */
  failures?: AuthFailureGuard | undefined;
  /** Announcements of revoked API keys, which leave this process's cache at once. */
  revocations?: Pick<RevocationFeed, 'subscribe'> | undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

/** Splits `Basic base64(user:pass)`; null when malformed. */
export function parseBasic(value: string): { user: string; pass: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i <= 0) return null;
  return { user: decoded.slice(0, i), pass: decoded.slice(i + 1) };
}

/** Builds the authenticator used by the router. */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const ttl = deps.cacheTtlMs ?? 1000;
  const peppers = deps.apiKeyPeppers.map((p) => createSecretKey(p));
  // Keyed by the presented key itself, so a cache hit costs no HMAC; it lives only in this
  // process's memory, like the request that carried it, and never in logs.
  const cache = new Map<string, { principal: Principal; until: number }>();
  // Lookups under way by key: the requests that miss the cache together (when a busy key's entry
  // expires) share one lookup instead of each running its own.
  const inflight = new Map<string, Promise<Principal | null>>();
  // Bumped on every revocation, so a lookup that started before one is not cached after it.
  let generation = 0;
  deps.revocations?.subscribe((keyId) => {
    generation++;
    // Requests from now on start a lookup of their own, which sees the revocation.
    inflight.clear();
    for (const [k, v] of cache) if (v.principal.credentialId === keyId) cache.delete(k);
  });

  function lookUpApiKey(key: string): Promise<Principal | null> {
    const hit = cache.get(key);
    if (hit && hit.until > Date.now()) return Promise.resolve(hit.principal);
    let pending = inflight.get(key);
    if (!pending) {
      const mine: Promise<Principal | null> = loadApiKey(key).finally(() => {
        if (inflight.get(key) === mine) inflight.delete(key);
      });
      inflight.set(key, mine);
      pending = mine;
    }
    return pending;
  }

  async function loadApiKey(key: string): Promise<Principal | null> {
    const now = Date.now();
    const gen = generation;
    let found = await deps.orgs.findByApiKeyHash(hashApiKey(key, peppers[0]!));
    // Keys issued before a master-key rotation were hashed with a retired key's pepper.
    for (const pepper of peppers.slice(1)) found ??= await deps.orgs.findByApiKeyHash(hashApiKey(key, pepper));
    if (!found) return null;
    const principal: Principal = {
      orgId: found.org.id,
      orgUuid: found.org.uuid,
      isVendor: found.org.isVendor,
      isClient: found.org.isClient,
      credentialId: found.keyId,
    };
    if (gen === generation) {
      if (cache.size > 10_000) cache.clear();
      cache.set(key, { principal, until: now + ttl });
    }
    return principal;
  }

  /** Runs `verify` behind the failure limit when there is one. */
  function guarded<T>(source: string, kind: PresentedKind, presented: string, verify: () => Promise<T | null>, concurrent = false): Promise<T | null> {
    return deps.failures ? deps.failures.run({ source, kind, presented }, verify, { concurrent }) : verify();
  }

  async function byApiKey(raw: string, source: string): Promise<Principal> {
    const key = raw.replace(/^(Bearer|Token|Api-Key)\s+/i, '');
    // An HMAC and an indexed lookup, no slow hash: the limit is read alongside.
    const p = await guarded(source, 'apikey', key, () => lookUpApiKey(key), true);
    if (!p) throw new AppError('AUTH_INVALID');
    return p;
  }

  return async (kind: CredentialKind, headers: IncomingHttpHeaders, source = 'unknown') => {
    switch (kind) {
      case 'none':
        return null;
      case 'apiKeyUsername': {
        const v = header(headers, 'username');
        if (!v) throw new AppError('AUTH_MISSING');
        return byApiKey(v, source);
      }
      case 'apiKey': {
        const v = header(headers, 'authorization');
        if (!v) throw new AppError('AUTH_MISSING');
        return byApiKey(v, source);
      }
      case 'clientBasic':
      case 'vendorBasic': {
        const v = header(headers, 'authorization');
        if (!v) throw new AppError('AUTH_MISSING');
        const basic = parseBasic(v);
        const verify = kind === 'clientBasic' ? deps.verifyClientBasic : deps.verifyVendorBasic;
        // The limit first: the check may run a slow hash (a credential made before keyed hashes).
        const p = await guarded(source, kind === 'clientBasic' ? 'app' : 'basic', basic?.user ?? '', async () =>
          basic && verify ? verify(basic.user, basic.pass) : null,
        );
        if (!p) throw new AppError('AUTH_INVALID');
        return p;
      }
      case 'connectSession': {
        // Only the session cookie: an SDK token in `Authorization` is no credential here.
        const v = readCookie(headers, CONNECT_SESSION_COOKIE);
        if (!v) throw new AppError('AUTH_MISSING');
        const p = deps.verifyConnectSession ? await deps.verifyConnectSession(v) : null;
        if (!p) throw new AppError('AUTH_INVALID');
        return p;
      }
      case 'admin': {
        const v = header(headers, 'authorization');
        if (!v) throw new AppError('AUTH_MISSING');
        // `Bearer <token>`, the bare token, or HTTP Basic with the token as password (any user
        // name), as the job dashboard takes it (src/admin/bull-board.ts).
        const basic = parseBasic(v);
        const token = basic ? basic.pass : v.replace(/^Bearer\s+/i, '');
        const expected = deps.adminToken;
        // docs/behaviour.md "Failed authentications": the failure limit per source (no id: a guessed token names nobody).
        // A throw of timingSafeEqual (byte lengths differ) rejects the check's promise, as before.
        const ok = await guarded(
          source,
          'admin',
          '',
          () =>
            new Promise<true | null>((resolve) =>
              resolve(expected && token.length === expected.length && timingSafeEqual(Buffer.from(token), Buffer.from(expected)) ? true : null),
            ),
          true,
        );
        if (!ok) throw new AppError('AUTH_INVALID');
        return null;
      }
    }
  };
}
