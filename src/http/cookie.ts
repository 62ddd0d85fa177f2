/**
 * The Connect session cookie (docs/connect.md "The session") on the wire: reading one cookie from a `Cookie`
 * header (RFC 6265 §5.4) and building its `Set-Cookie` value (RFC 6265 §4.1, SameSite per
 * RFC 6265bis).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Name of the Connect session cookie. */
export const CONNECT_SESSION_COOKIE = 'hrx_connect';

/** The value of cookie `name` in `headers.cookie`, or undefined (the first one when repeated). */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers.cookie;
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i < 0 || part.slice(0, i).trim() !== name) continue;
    const value = part.slice(i + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * A `Set-Cookie` value for the session `value` (a URL-safe token): HttpOnly, SameSite=Strict,
 * scoped to `path`, expiring at `expires`, Secure when `secure`.
 */
export function sessionCookie(value: string, opts: { path: string; expires: Date; secure: boolean }): string {
  const maxAge = Math.max(0, Math.floor((opts.expires.getTime() - Date.now()) / 1000));
  return [
    `${CONNECT_SESSION_COOKIE}=${value}`,
    `Path=${opts.path}`,
    `Expires=${opts.expires.toUTCString()}`,
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(opts.secure ? ['Secure'] : []),
  ].join('; ');
}
