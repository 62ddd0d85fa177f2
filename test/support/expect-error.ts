/**
 * Assertions on the error bodies of docs/errors.md: status, the exact body, and `requestId`
 * equal to the `X-Request-Id` header (a UUID v4).
 */
import { expect } from 'vitest';
import { ERRORS } from '../../src/errors';
import type { call } from './harness';

export type Res = Awaited<ReturnType<typeof call>>;

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** `{message, data: null}`: the plain envelope rows. */
export const plain = (message: string) => ({ message, data: null });

/** A 400 validation failure naming `field` first (docs/api.md "Conventions"). */
export const invalid = (field: string, message: string) => ({
  code: 400,
  message: `${field}: ${message}`,
  data: { errors: [{ field, message }] },
});

/**
 * The `error` code (docs/errors.md "Error codes") of the one row of the error table with this
 * status whose message the expected body's `message` is (placeholders match any text); a
 * validation failure (`data.errors`) is `validation_failed`. A row that refines another (same
 * status and message, its own code) is never guessed: the test names its `error`. Throws when no row or several match,
 * so a test whose message names no row must say its `error` itself.
 */
export function errorCodeOf(status: number, body: Record<string, unknown>): string {
  const data = body.data as { errors?: unknown } | null | undefined;
  if (status === 400 && data && Array.isArray(data.errors)) return 'validation_failed';
  const escape = (t: string) => t.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const rows = Object.values(ERRORS).filter((e) => {
    if ('refines' in e || e.status !== status || typeof body.message !== 'string') return false;
    const pattern = e.message
      .split(/\{\w+\}/)
      .map(escape)
      .join('.*');
    return new RegExp(`^${pattern}$`, 's').test(body.message);
  });
  if (rows.length !== 1)
    throw new Error(`expectError: ${rows.length} rows of the error table answer ${status} ${String(body.message)}; give the body's \`error\``);
  return rows[0]!.error;
}

/**
 * Asserts the HTTP status and the exact body (its `error` code taken from the table by status
 * and message unless the body names it). The body gets `requestId` = `X-Request-Id` added
 * unless `requestId: false` (the `Source Permission denied` row), in which case it must be absent.
 */
export function expectError(res: Res, status: number, body: Record<string, unknown>, opts: { requestId?: boolean } = {}): void {
  const rid = res.headers.get('x-request-id');
  expect(rid).toMatch(UUID_V4);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const withCode = 'error' in body ? body : { error: errorCodeOf(status, body), ...body };
  const expected = opts.requestId === false ? withCode : { requestId: rid, ...withCode };
  expect({ status: res.status, body: res.body }).toStrictEqual({ status, body: expected });
}

/** The body without its requestId (to compare two answers). */
export function withoutRequestId(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const { requestId: _r, ...rest } = body as Record<string, unknown>;
  return rest;
}
