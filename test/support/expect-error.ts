/**
 * Assertions on the error bodies of docs/errors.md: status, the exact body, and `requestId`
 * equal to the `X-Request-Id` header (a UUID v4).
 */
import { expect } from 'vitest';
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
 * Asserts the HTTP status and the exact body. The body gets `requestId` = `X-Request-Id` added
 * unless `requestId: false` (the `Source Permission denied` row), in which case it must be absent.
 */
export function expectError(res: Res, status: number, body: Record<string, unknown>, opts: { requestId?: boolean } = {}): void {
  const rid = res.headers.get('x-request-id');
  expect(rid).toMatch(UUID_V4);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const expected = opts.requestId === false ? body : { requestId: rid, ...body };
  expect({ status: res.status, body: res.body }).toStrictEqual({ status, body: expected });
}

/** The body without its requestId (to compare two answers). */
export function withoutRequestId(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const { requestId: _r, ...rest } = body as Record<string, unknown>;
  return rest;
}
