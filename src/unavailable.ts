/**
 * "Dependencies down" (docs/operations.md "Redis or PostgreSQL down; shutdown"): the one place that decides whether an error means Redis or
 * PostgreSQL did not answer (refused, reset, closed, timed out, shutting down), so the router
 * answers `503 Service temporarily unavailable` with `Retry-After` instead of a 500.
 *
 * The timeouts that make such errors come within 2 s are set where the clients are made
 * (src/context.ts, src/db/orm.ts); this module only recognises what those clients throw.
 */
import { AppError } from './errors';

/** Seconds a client is asked to wait before retrying after a 503 (`Retry-After`). */
export const RETRY_AFTER_SEC = 5;

/** Which dependency failed. */
export type Dependency = 'redis' | 'postgres';

/** A 503 UNAVAILABLE AppError with its `Retry-After` header; `cause` is for logs only. */
export function unavailable(cause?: unknown): AppError {
  return new AppError('UNAVAILABLE', { headers: { 'retry-after': String(RETRY_AFTER_SEC) }, ...(cause === undefined ? {} : { cause }) });
}

// PostgreSQL SQLSTATEs meaning "the server did not do it": class 08 (connection exception) is
// matched by prefix; 57014 query_canceled (statement_timeout), 57P01-03 shutdown / cannot connect
// now, 53300 too many connections, 25P03 idle-in-transaction timeout.
const PG_CODES = new Set(['57014', '57P01', '57P02', '57P03', '53300', '25P03']);
// Socket errors of either client (never from HRMS calls: those are HrmsError / got errors).
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
const REDIS_MESSAGES = [
  /^Command timed out/, // ioredis commandTimeout
  /enableOfflineQueue options is false/, // ioredis, not connected
  /^Connection is closed\.?$/, // ioredis / BullMQ
  /^Reached the max retries per request limit/, // ioredis MaxRetriesPerRequestError
  /^redis connection (?!ready)/, // ours (rate limiter, preflight)
];
// MikroORM's DriverException message is `<sql> - <driver message>`: matched anywhere.
const PG_MESSAGES = [
  /Connection terminated (unexpectedly|due to connection timeout)/, // pg
  /timeout exceeded when trying to connect/, // pg.Pool connectionTimeoutMillis
  /Query read timeout/, // pg query_timeout
  /Client has encountered a connection error and is not queryable|Client was closed and is not queryable/, // pg
  /Knex: Timeout acquiring a connection/, // MikroORM's pool (acquireConnectionTimeout)
  /canceling statement due to statement timeout/,
  /terminating connection due to (administrator command|idle-in-transaction timeout)/,
  /the database system is (starting up|shutting down|in recovery mode)/,
  /Connection ended unexpectedly/,
  /(^| - )timeout expired$/, // pg.Client connectionTimeoutMillis (knex's connections)
];

/** `e.stack` when it is a string, else ''. */
const stackOf = (e: unknown): string => {
  const stack = (e as { stack?: unknown }).stack;
  return typeof stack === 'string' ? stack : '';
};

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object' && !out.includes(e); i++) {
    out.push(e);
    e = (e as { cause?: unknown; previous?: unknown }).cause ?? (e as { previous?: unknown }).previous;
  }
  return out;
}

/**
 * Which dependency `err` (or its cause chain) says did not answer, or null for any other error
 * (an AppError, a constraint violation, a bug, an HRMS failure).
 */
export function failedDependency(err: unknown): Dependency | null {
  if (err instanceof AppError) return null;
  for (const e of causes(err)) {
    const { name, code, message } = e as { name?: unknown; code?: unknown; message?: unknown };
    // got's errors (HRMS, event deliveries) carry socket codes too: never ours.
    if (name === 'RequestError' || name === 'HrmsError' || (name === 'TimeoutError' && 'timings' in (e as object))) return null;
    const msg = typeof message === 'string' ? message : '';
    if (name === 'MaxRetriesPerRequestError' || name === 'ConnectionClosedError') return 'redis';
    if (REDIS_MESSAGES.some((r) => r.test(msg))) return 'redis';
    if (name === 'KnexTimeoutError' || name === 'ConnectionException') return 'postgres';
    if (typeof code === 'string' && (code.startsWith('08') || PG_CODES.has(code))) return 'postgres';
    if (PG_MESSAGES.some((r) => r.test(msg))) return 'postgres';
    if (typeof code === 'string' && NET_CODES.has(code)) {
      const port = (e as { port?: unknown }).port;
      return port === 6379 || /redis/i.test(stackOf(e)) ? 'redis' : 'postgres';
    }
  }
  return null;
}

/** `err` as a 503 when a dependency did not answer, else `err` unchanged. */
export function classifyUnavailable(err: unknown): unknown {
  return failedDependency(err) ? unavailable(err) : err;
}

/**
 * Runs `fn` but resolves after at most `ms` whatever happens: for best-effort work after a
 * change is committed (announcing it to other processes, queueing jobs), which must never block
 * or fail the answer. Errors go to `onError`.
 */
export function bestEffort(fn: () => Promise<unknown>, ms: number, onError: (err: unknown) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let settled = false;
    const settle = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err !== undefined) onError(err);
      resolve();
    };
    const timer = setTimeout(() => settle(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
    Promise.resolve()
      .then(fn)
      .then(
        () => settle(),
        (err: unknown) => settle(err ?? new Error('failed')),
      );
  });
}

/**
 * Thrown when a process cannot reach PostgreSQL or Redis at start (CLI commands print its
 * message and exit 1). `setting` names where the address comes from, never the address itself
 * (a URL may hold a password).
 */
export class DependencyUnreachableError extends Error {
  constructor(
    readonly dependency: 'PostgreSQL' | 'Redis',
    setting: string,
    cause?: unknown,
  ) {
    const detail = cause instanceof Error && cause.message ? `: ${cause.message.replace(/\/\/[^@/\s]*@/g, '//***@')}` : '';
    super(`${dependency} is unreachable (${setting})${detail}`);
    this.name = 'DependencyUnreachableError';
  }
}
