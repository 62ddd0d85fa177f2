/**
 * Connect flow helpers for integration tests (decisions §8): exchanging an SDK token for the
 * session cookie, and calling the Connect endpoints with it.
 */
import { call } from './harness';

/** A Connect session opened from a token: the `Cookie` header value and the raw `Set-Cookie`. */
export interface TestSession {
  cookie: string;
  setCookie: string;
}

/** Exchanges `token` at `POST /api/sdk/connect/session/`; throws unless it answers 200 with a cookie. */
export async function openSession(appUrl: string, token: string): Promise<TestSession> {
  const res = await call(`${appUrl}/api/sdk/connect/session/`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }),
  });
  const setCookie = res.headers.get('set-cookie');
  if (res.status !== 200 || !setCookie) throw new Error(`session exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { cookie: setCookie.split(';')[0]!, setCookie };
}

/**
 * Calls a Connect endpoint (`path` below `/api/sdk/connect/`, '' for the session view) with the
 * session cookie: GET for '' without a body, POST otherwise (JSON when `body` is given).
 */
export function connectCall(appUrl: string, session: TestSession | string, path: string, body?: unknown) {
  const cookie = typeof session === 'string' ? session : session.cookie;
  return call(`${appUrl}/api/sdk/connect/${path}`, {
    method: body === undefined && path === '' ? 'GET' : 'POST',
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
