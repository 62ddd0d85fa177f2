/**
 * The failed-authentication limit of docs/behaviour.md "Failed authentications" around a credential check: per source address
 * and per presented id (V2 Basic username, `app_key`, or the API key itself), at most `limit`
 * failures a window (ratelimit/auth-failures.ts). Past that every attempt from that source or
 * with that id is refused with 429 `THROTTLED` (and `Retry-After`) whatever the credential, until
 * the window passes; the check comes before the credential is checked, so before any slow hash.
 * Successes do not count.
 *
 * Ids are kept in Redis only as an HMAC under a key derived from the master key (never the raw
 * username, app_key, API key or address). The app_key counts the same at the update webhook and
 * at setup-config (one credential, one budget).
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { AppError } from '../errors';
import type { FailureLimiter } from '../ratelimit/auth-failures';
import { withSlowHashPermit } from './slow-hash-permit';

/**
 * What was presented: `apikey` (either header form), `basic` (V2 username), `app` (an org's
 * app_key), `sdk` (an SDK token's `jti` at the Connect session exchange) or `admin`
 * (`HRX_ADMIN_TOKEN`; counted per source only, on a budget of its own, so failures cannot lock
 * the operator out nor throttle the API for the same address).
 */
export type PresentedKind = 'apikey' | 'basic' | 'app' | 'sdk' | 'admin';

/** One authentication attempt: where it came from and the id it named. */
export interface AuthAttempt {
  /** The source address (auth/source.ts). */
  source: string;
  kind: PresentedKind;
  /** The presented username, app_key or API key; empty when the credential was malformed. */
  presented: string;
}

export interface AuthFailureGuard {
  /**
   * Runs `verify` for `attempt` unless its source or id is over the limit (throws AppError
   * THROTTLED with the seconds to wait); a null result counts as one failure of both. `verify`'s
   * errors (a database down) pass through uncounted. With `concurrent` the limit is read while
   * `verify` runs, for checks that never run a slow hash (API keys, the admin token): `verify`
   * then runs outside the slow-hash permit (slow-hash-permit.ts), so it must not reach
   * `beforeSlowHash`. Otherwise `verify` starts only once the limit allows it, and a slow hash
   * in it is counted before it runs.
   */
  run<T>(attempt: AuthAttempt, verify: () => Promise<T | null>, opts?: { concurrent?: boolean }): Promise<T | null>;
}

/** How many keys of presented ids and addresses are kept per kind (all dropped when full). */
const KEY_CACHE_SIZE = 4096;

/** Builds the guard over `limiter`; `idKey` (32 bytes) keys the HMAC of ids and addresses. */
export function createAuthFailureGuard(deps: { limiter: FailureLimiter; idKey: Buffer }): AuthFailureGuard {
  const key: KeyObject = createSecretKey(deps.idKey);
  // Every API-key request names its key and address: a busy caller costs no HMAC per request.
  // The caches live only in this process's memory, like the authenticator's cache of keys; a
  // flood of new values empties them now and then (as the authenticator's), costing one HMAC
  // each for the values in use.
  const caches = new Map<string, Map<string, string>>();
  /** The counter's key of `value` presented as `kind` (`src` for addresses): `kind:HMAC`. */
  function keyOf(kind: string, value: string): string {
    let cache = caches.get(kind);
    if (!cache) caches.set(kind, (cache = new Map<string, string>()));
    let k = cache.get(value);
    if (k === undefined) {
      if (cache.size >= KEY_CACHE_SIZE) cache.clear();
      k = `${kind}:${createHmac('sha256', key).update(`${kind}\0${value}`, 'utf8').digest('base64url').slice(0, 32)}`;
      cache.set(value, k);
    }
    return k;
  }

  function keysOf(a: AuthAttempt): string[] {
    // The admin token has a budget of its own per source: an operator's typos at the dashboard
    // never throttle the vendors that share the address (an office, a proxy).
    if (a.kind === 'admin') return [keyOf('admin-src', a.source)];
    return a.presented ? [keyOf('src', a.source), keyOf(a.kind, a.presented)] : [keyOf('src', a.source)];
  }

  const throttled = (seconds: number): AppError => new AppError('THROTTLED', { params: { seconds }, headers: { 'retry-after': String(seconds) } });

  const noop = (): void => undefined;

  /** A null result counts one failure of each key; a reserved slot is given back on success. */
  async function settle<T>(keys: string[], result: T | null, reserved: boolean): Promise<T | null> {
    if (result === null) {
      if (!reserved) await deps.limiter.fail(keys);
    } else if (reserved) {
      await deps.limiter.refund(keys);
    }
    return result;
  }

  /** A cheap check (no slow hash): the hot path of every API-key request, so it allocates little. */
  async function concurrent<T>(keys: string[], verify: () => Promise<T | null>): Promise<T | null> {
    if (deps.limiter.allowedNow(keys)) return settle(keys, await verify(), false);
    const pending = verify();
    // Read the limit while the check runs; a refusal wins whatever the check found (its error,
    // if any, is then dropped here rather than left unhandled).
    pending.catch(noop);
    const decision = await deps.limiter.check(keys);
    if (!decision.allowed) throw throttled(decision.retryAfterSec);
    return settle(keys, await pending, false);
  }

  return {
    async run<T>(attempt: AuthAttempt, verify: () => Promise<T | null>, opts: { concurrent?: boolean } = {}): Promise<T | null> {
      const keys = keysOf(attempt);
      if (opts.concurrent) return concurrent(keys, verify);
      const decision = await deps.limiter.check(keys);
      if (!decision.allowed) throw throttled(decision.retryAfterSec);
      // A check that reaches a slow hash counts itself as a failure first, atomically with the
      // limit (slow-hash-permit.ts): concurrent attempts cannot all pass a limit read earlier.
      let reserved = false;
      const result = await withSlowHashPermit(async () => {
        if (reserved) return;
        const d = await deps.limiter.reserve(keys);
        if (!d.allowed) throw throttled(d.retryAfterSec);
        reserved = true;
      }, verify);
      return settle(keys, result, reserved);
    },
  };
}
