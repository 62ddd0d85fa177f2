/**
 * Readiness (docs/operations.md "Readiness: `GET /readyz`"): PostgreSQL and Redis each answer within 1 s, or the process is not
 * ready. The checks go through the clients requests use (the request pool, the request-path
 * Redis client), so "ready" means "a request would reach them now".
 */
import type { RedisClient } from '../redis';
import type pg from 'pg';

/** How long each dependency has to answer (docs/operations.md: 1 s). */
export const READY_TIMEOUT_MS = 1000;

/** One dependency's answer: `ok`, `timeout` (no answer within 1 s) or `error` (refused, failed). */
export interface CheckResult {
  status: 'ok' | 'timeout' | 'error';
  /** Wall time of the check, ms (at most about READY_TIMEOUT_MS). */
  ms: number;
}

/** The readiness answer: `ok` when every check is `ok`, else `unavailable`. */
export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: { postgresql: CheckResult; redis: CheckResult };
}

/** Runs `probe` for at most `timeoutMs`; never rejects. The error itself is not kept (no details reach the unauthenticated answer). */
async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const answered = Promise.resolve()
    .then(probe)
    .then(
      () => 'ok' as const,
      () => 'error' as const,
    );
  try {
    const status = await Promise.race([answered, timedOut]);
    return { status, ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

/** Builds the readiness check over the request pool and the request-path Redis client. */
export function createHealth(deps: { pool: pg.Pool; redis: RedisClient; timeoutMs?: number }) {
  const ms = deps.timeoutMs ?? READY_TIMEOUT_MS;
  return {
    /** Asks both dependencies at once; resolves within about `timeoutMs`, never rejects. */
    async readiness(): Promise<Readiness> {
      const [postgresql, redis] = await Promise.all([check(() => deps.pool.query('select 1'), ms), check(() => deps.redis.ping(), ms)]);
      return { status: postgresql.status === 'ok' && redis.status === 'ok' ? 'ok' : 'unavailable', checks: { postgresql, redis } };
    },
  };
}

/** The readiness check. */
export type Health = ReturnType<typeof createHealth>;
