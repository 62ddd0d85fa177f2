/**
 * The failed-authentication limit of decisions §2 around a credential check: per source address
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
 * (`HRX_ADMIN_TOKEN`; counted per source only, so failures cannot lock the operator out).
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
   * `verify` runs (for cheap checks: API keys); otherwise `verify` starts only once the limit
   * allows it (checks that may run a slow hash).
   */
  run<T>(attempt: AuthAttempt, verify: () => Promise<T | null>, opts?: { concurrent?: boolean }): Promise<T | null>;
}

/** Builds the guard over `limiter`; `idKey` (32 bytes) keys the HMAC of ids and addresses. */
export function createAuthFailureGuard(deps: { limiter: FailureLimiter; idKey: Buffer }): AuthFailureGuard {
  const key: KeyObject = createSecretKey(deps.idKey);
  const id = (s: string): string => createHmac('sha256', key).update(s, 'utf8').digest('base64url').slice(0, 32);

  function keysOf(a: AuthAttempt): string[] {
    const keys = [`src:${id(`src\0${a.source}`)}`];
    if (a.presented) keys.push(`${a.kind}:${id(`${a.kind}\0${a.presented}`)}`);
    return keys;
  }

  const throttled = (seconds: number): AppError =>
    new AppError('THROTTLED', { params: { seconds }, headers: { 'retry-after': String(seconds) } });

  return {
    async run<T>(attempt: AuthAttempt, verify: () => Promise<T | null>, opts: { concurrent?: boolean } = {}): Promise<T | null> {
      const keys = keysOf(attempt);
      // A check that reaches a slow hash counts itself as a failure first, atomically with the
      // limit (slow-hash-permit.ts): concurrent attempts cannot all pass a limit read earlier.
      let reserved = false;
      const run = () => withSlowHashPermit(async () => {
        if (reserved) return;
        const d = await deps.limiter.reserve(keys);
        if (!d.allowed) throw throttled(d.retryAfterSec);
        reserved = true;
      }, verify);
      let result: T | null;
      if (opts.concurrent) {
        const pending = run();
        // Read the limit while the check runs; a refusal wins whatever the check found.
        const [decision, settled] = await Promise.all([deps.limiter.check(keys), pending.then((v) => ({ v }), (e: unknown) => ({ e }))]);
        if (!decision.allowed) throw throttled(decision.retryAfterSec);
        if ('e' in settled) throw settled.e;
        result = settled.v;
      } else {
        const decision = await deps.limiter.check(keys);
        if (!decision.allowed) throw throttled(decision.retryAfterSec);
        result = await run();
      }
      if (result === null) {
        if (!reserved) await deps.limiter.fail(keys);
      } else if (reserved) {
        await deps.limiter.refund(keys);
      }
      return result;
    },
  };
}
