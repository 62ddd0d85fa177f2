/**
 * Connect flow helpers for integration tests (docs/connect.md "The session"): exchanging an SDK token for the
 * session cookie, and calling the Connect endpoints with it.
 */
import { dbQuery } from './db';
import * as f from './factories';
import { call, type TestApp } from './harness';

/** A Connect session opened from a token: the `Cookie` header value and the raw `Set-Cookie`. */
export interface TestSession {
  cookie: string;
  setCookie: string;
}

/** Exchanges `token` at `POST /api/sdk/connect/session/`; throws unless it answers 200 with a cookie. */
export async function openSession(appUrl: string, token: string): Promise<TestSession> {
  const res = await call(`${appUrl}/api/sdk/connect/session/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
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

/**
 * Verifies the session's e-mail (docs/connect.md "What an e-mail code can set up") as its holder would: asks
 * for a code, reads it from the app's mailbox (the token's e-mail) and enters it. Throws unless
 * both steps answer 200.
 */
export async function verifyEmail(app: Pick<TestApp, 'url' | 'mailbox'>, session: TestSession | string): Promise<void> {
  if (!app.mailbox) throw new Error("verifyEmail needs the app's mailbox (startTestApp without HRX_SMTP_URL)");
  const sent = await connectCall(app.url, session, 'email-code/', undefined);
  if (sent.status !== 200) throw new Error(`email-code: ${sent.status} ${JSON.stringify(sent.body)}`);
  const email = sent.body.data.sent_to as string;
  const code = await app.mailbox.code(email, app.mailbox.to(email).length - 1);
  const res = await connectCall(app.url, session, 'verify-email/', { code });
  if (res.status !== 200) throw new Error(`verify-email: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * A new lender's Connect session for employer `c` (its token names the employer by the e-mail
 * domain `domain`, which `c` must own), and the session's row id (`connect_sessions.id`).
 */
export async function lenderSession(
  app: TestApp,
  c: { org: { id: number; uuid: string } },
  domain: string,
): Promise<{ session: TestSession; sessionId: string }> {
  const lender = await f.vendor(app.ctx);
  const token = await f.sdkToken(app.ctx, lender.org, { email: `hr@${domain}`, org_name: `Employer ${domain}` });
  if (token.org_id !== c.org.uuid) throw new Error(`the token resolved to ${token.org_id}, not the employer ${c.org.uuid}`);
  const session = await openSession(app.url, token.access_token);
  const { rows } = await dbQuery(app, `select s.id from connect_sessions s join connections k on k.id = s.connection_id where k.client_org_id = $1`, [
    c.org.id,
  ]);
  return { session, sessionId: rows[0].id as string };
}
