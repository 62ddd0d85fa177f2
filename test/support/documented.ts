/**
 * Requests whose answers are checked against the OpenAPI document (docs/openapi.json): the status
 * must be one the document lists for that operation, and the body must match that status's schema
 * (`expectDocumented`, support/api-client.ts). Each answered `METHOD /path status` is recorded, so
 * a test can tell which documented statuses it provoked.
 */
import { expect } from 'vitest';
import { DOCUMENT, expectDocumented } from './api-client';
import { call } from './harness';

type Res = Awaited<ReturnType<typeof call>>;

/** One request: headers, a JSON, raw or form body, and the source address (`X-Forwarded-For`). */
export interface Ask {
  headers?: Record<string, string>;
  /** JSON body (sets the media type). */
  json?: unknown;
  /** A raw body with its media type. */
  raw?: { type: string; body: string };
  /** A form body (`application/x-www-form-urlencoded`). */
  form?: Record<string, string>;
  /** The source address; by default one of its own per request, so failed authentications never add up. */
  source?: string;
}

/**
 * Requests against the app at `url()` (read at each call: the app starts in `beforeAll`).
 * `expectAnswer(method, docPath, path, ask, status)` asks `method path` (`path` is `docPath` with
 * its parameters filled in), expects `status`, and checks the answer against the document;
 * `bodyLimits` expects 415 for a text body and 413 for one over `maxBody` bytes; `answered` holds
 * every `METHOD docPath status` seen.
 */
export function documentedCalls(url: () => string, maxBody: number) {
  let n = 0;
  const answered = new Set<string>();
  const fresh = () => `198.51.100.${(++n % 250) + 1}, 10.0.${n >> 8}.${n % 250}`;

  async function expectAnswer(method: string, docPath: string, path: string, ask: Ask, status: number): Promise<Res> {
    const headers: Record<string, string> = { 'x-forwarded-for': ask.source ?? fresh(), ...ask.headers };
    let body: string | URLSearchParams | undefined;
    if (ask.json !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(ask.json)];
    if (ask.raw) [headers['content-type'], body] = [ask.raw.type, ask.raw.body];
    if (ask.form) body = new URLSearchParams(ask.form);
    const res = await call(`${url()}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    const documented = Object.keys(DOCUMENT.paths[docPath]?.[method.toLowerCase()]?.responses ?? {});
    expect(documented, `${method} ${docPath} answered ${status}, which the document does not list`).toContain(String(status));
    expectDocumented(method, docPath, status, res.body);
    // docs/errors.md "Error codes": every error answer carries its code, one the document names for that status.
    const described = DOCUMENT.paths[docPath]?.[method.toLowerCase()]?.responses?.[String(status)]?.description ?? '';
    const errorBody = status >= 400 && typeof res.body === 'object' && res.body !== null && 'message' in res.body;
    if (errorBody)
      expect(described, `${method} ${path} ${status}: ${JSON.stringify(res.body)}`).toContain(`\`${String((res.body as { error?: unknown }).error)}\``);
    answered.add(`${method} ${docPath} ${status}`);
    return res;
  }

  async function bodyLimits(method: string, docPath: string, path: string, headers: Record<string, string>): Promise<void> {
    await expectAnswer(method, docPath, path, { headers, raw: { type: 'text/plain', body: 'x' } }, 415);
    await expectAnswer(method, docPath, path, { headers, raw: { type: 'application/json', body: JSON.stringify({ pad: 'x'.repeat(maxBody) }) } }, 413);
  }

  return { expectAnswer, bodyLimits, answered, fresh };
}
