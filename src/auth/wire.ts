/** Wiring of the authentication parts every API process shares (see `context.ts`). */
import type { Infra } from '../infra';
import { createFailureLimiter } from '../ratelimit/auth-failures';
import { createAuthFailureGuard, type AuthFailureGuard } from './failure-guard';
import { createRevocationFeed } from './revocations';

/**
 * Builds the failed-authentication guard (docs/behaviour.md "Failed authentications"; `undefined` when
 * `HRX_AUTH_FAILURE_LIMIT` is 0) over the request-path Redis, hearing the locks of every process
 * on a subscriber connection, and the announcements of revoked
 * API keys (`revocations`) and of revoked V2 Basic credentials (`basicRevocations`), each
 * published on the request-path Redis and heard on a duplicate of the worker client. Takes only
 * `infra`; registers the feeds' closes.
 */
export function wireAuth(infra: Infra) {
  const { config, requestRedis, redis, prefix, log } = infra;
  let failures: AuthFailureGuard | undefined;
  if (config.HRX_AUTH_FAILURE_LIMIT > 0) {
    // The locks of every process are heard on a duplicate of the worker client (opened on the
    // first check, so only API processes hold it), and successes ask Redis nothing.
    const limiter = createFailureLimiter({
      redis: requestRedis,
      prefix,
      limit: config.HRX_AUTH_FAILURE_LIMIT,
      windowMs: config.HRX_AUTH_FAILURE_WINDOW_MS,
      log,
      subscriber: () => redis.duplicate(),
    });
    infra.onClose('auth failure locks', () => limiter.close());
    failures = createAuthFailureGuard({ idKey: infra.derivedKey('auth-failure-ids'), limiter });
  }
  const revocations = createRevocationFeed({ publisher: requestRedis, subscriber: () => redis.duplicate(), channel: `${prefix}:api-keys-revoked` });
  const basicRevocations = createRevocationFeed({
    publisher: requestRedis,
    subscriber: () => redis.duplicate(),
    channel: `${prefix}:basic-credentials-revoked`,
  });
  infra.onClose('api key revocations', () => revocations.close());
  infra.onClose('basic credential revocations', () => basicRevocations.close());
  return { failures, revocations, basicRevocations };
}
