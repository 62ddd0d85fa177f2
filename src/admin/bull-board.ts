/**
 * Bull Board (the queue dashboard) at `/admin/queues`, behind `HRX_ADMIN_TOKEN`
 * (docs/operations.md "The job dashboard: `/admin/queues`"). Browsers log in once with HTTP Basic (any user name, the
 * token as password) and then carry a session cookie (HttpOnly, SameSite=Strict, Path = the
 * dashboard, 8 hours), so the page's own asset and API requests never need the credential
 * again; scripts may send `Bearer <token>` on every request.
 *
 * What counts as a failed authentication (docs/limits.md): only a wrong token. A request with no
 * credential at all (a browser asking before it sends Basic) is answered 401 without being
 * counted, and wrong tokens count against the dashboard's own budget per source address, never
 * against the API's: an operator's typo cannot throttle the vendors behind the same address.
 * Every asset is served by hrx (the dashboard's Google Fonts link is removed from its page), and
 * a Content-Security-Policy keeps it so; its translations (`static/locales/...`) come with its
 * other assets, after the one login. Its title stays readable on a phone (PHONE_TITLE_CSS).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express from 'express';
import { parseBasic } from '../auth/authenticator';
import type { AuthFailureGuard } from '../auth/failure-guard';
import { sourceAddress } from '../auth/source';
import { AppError, renderError } from '../errors';

/** The dashboard's session cookie. */
export const ADMIN_COOKIE = 'hrx_admin';
/** How long a dashboard session lasts (seconds). */
const SESSION_SEC = 8 * 3600;

/** Nothing from elsewhere: scripts, styles, fonts, images and API calls come from hrx (the loading screen has inline styles). */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'";

function tokenOk(header: string, expected: string): boolean {
  const basic = parseBasic(header);
  const given = basic ? basic.pass : header.replace(/^Bearer\s+/i, '');
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `exp.mac`: a session until `exp` (Unix seconds), MACed with the admin token (a new token ends every session). */
function sessionValue(adminToken: string, exp: number): string {
  return `${exp}.${createHmac('sha256', adminToken).update(`hrx-admin-session:${exp}`).digest('base64url')}`;
}

/** Whether the request's cookie holds a session that is still good. */
function sessionOk(cookieHeader: string | undefined, adminToken: string): boolean {
  const m = cookieHeader ? new RegExp(`(?:^|;\\s*)${ADMIN_COOKIE}=(\\d{1,12})\\.([A-Za-z0-9_-]{43})(?:;|$)`).exec(cookieHeader) : null;
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= Date.now()) return false;
  const a = Buffer.from(sessionValue(adminToken, exp));
  const b = Buffer.from(`${m[1]}.${m[2]}`);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Below 769 px Bull Board's header logo loses its dark background but keeps its near-white text,
 * so the title "Bull Dashboard" is white on the white header: there it takes the page's text
 * colour (dark on the light theme, light on the dark one; docs/operations.md "The job dashboard:
 * `/admin/queues`"). Its class names carry a build hash, hence the prefix match.
 */
const PHONE_TITLE_CSS = '<style>@media (max-width:768px){[class^="logo-"],[class*=" logo-"]{color:var(--text-color)}}</style>';

/**
 * A views folder holding the dashboard's page without its Google Fonts link (the page falls
 * back to the system's sans-serif) and with {@link PHONE_TITLE_CSS}: made once per process from
 * the installed @bull-board/ui.
 */
function localViews(): string {
  const ui = path.dirname(createRequire(import.meta.url).resolve('@bull-board/ui/package.json'));
  const page = readFileSync(path.join(ui, 'dist/index.ejs'), 'utf8')
    .replace(/<link[^>]*fonts\.googleapis\.com[^>]*>\s*/g, '')
    .replace('</head>', `${PHONE_TITLE_CSS}</head>`);
  const dir = mkdtempSync(path.join(tmpdir(), 'hrx-bull-board-'));
  writeFileSync(path.join(dir, 'index.ejs'), page);
  return dir;
}

let views: string | undefined;

/** How often the sync queue's line of connection health is read again, at most (ms). */
const HEALTH_REFRESH_MS = 10_000;

/**
 * The sync queue's adapter, whose description is a line of connection health counts
 * (docs/sync.md "Connection health"): read again at most every 10 s, in the background, so the
 * dashboard's poll never waits for PostgreSQL; the last line read is shown (none before the first).
 */
class HealthDescribedAdapter extends BullMQAdapter {
  private line = '';
  private readAt = 0;

  constructor(
    queue: Queue,
    private readonly counts: () => Promise<Record<string, number>>,
  ) {
    super(queue);
    this.refresh();
  }

  private refresh(): void {
    this.readAt = Date.now();
    this.counts().then(
      (c) => {
        this.line = `Approved connections by HRMS health: ${HEALTH_LINE_STATES.map((s) => `${s} ${c[s] ?? 0}`).join(' · ')}`;
      },
      () => undefined, // PostgreSQL did not answer: the last line stays, the next poll tries again.
    );
  }

  override getDescription(): string {
    if (Date.now() - this.readAt > HEALTH_REFRESH_MS) this.refresh();
    return this.line;
  }
}

/** The states, in the order the line names them. */
const HEALTH_LINE_STATES = ['healthy', 'syncing', 'needs_reauth', 'failing', 'not_configured'] as const;

/**
 * A request handler serving Bull Board for `queues` under `basePath` (e.g. `/admin/queues`).
 * A wrong token is a failed authentication of the request's source, counted on the dashboard's
 * own budget: past the limit of `opts.failures` the answer is 429 THROTTLED whatever the token.
 * `secureCookie`: the session cookie is `Secure` (HRX_PUBLIC_URL is https). `health`: the sync
 * queue (the one named `healthQueue`) describes itself with the approved connections' counts per
 * HRMS health.
 */
export function bullBoardHandler(
  queues: Queue[],
  basePath: string,
  adminToken: string | undefined,
  opts: {
    failures?: AuthFailureGuard | undefined;
    trustProxy?: boolean;
    secureCookie?: boolean;
    health?: { queue: Queue; counts: () => Promise<Record<string, number>> } | undefined;
  } = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(basePath);
  const adapterOf = (q: Queue) => (opts.health && q === opts.health.queue ? new HealthDescribedAdapter(q, opts.health.counts) : new BullMQAdapter(q));
  createBullBoard({ queues: queues.map(adapterOf), serverAdapter: adapter });
  // After createBullBoard, which points the views at @bull-board/ui's own page.
  adapter.setViewsPath((views ??= localViews()));
  const app = express();
  app.disable('x-powered-by');
  const cookieFlags = `Path=${basePath}; Max-Age=${SESSION_SEC}; HttpOnly; SameSite=Strict${opts.secureCookie ? '; Secure' : ''}`;
  app.use(
    basePath,
    (req, res, next) => {
      res.set('content-security-policy', CSP);
      const requestId = String(res.getHeader('x-request-id') ?? '');
      // The error table's bodies (docs/errors.md), `error` code included.
      const refuse = (code: 'AUTH_MISSING' | 'AUTH_INVALID') =>
        res
          .status(401)
          .set('www-authenticate', 'Basic realm="hrx admin"')
          .type('application/json')
          .send(JSON.stringify(renderError(new AppError(code), requestId).body));
      if (!adminToken) return refuse(req.headers.authorization ? 'AUTH_INVALID' : 'AUTH_MISSING');
      if (sessionOk(req.headers.cookie, adminToken)) return next();
      const header = req.headers.authorization;
      // No credential is no guess: asked for, not counted.
      if (!header) return refuse('AUTH_MISSING');
      const check = () => Promise.resolve(tokenOk(header, adminToken) ? true : null);
      const attempt = { source: sourceAddress(req, opts.trustProxy ?? false), kind: 'admin' as const, presented: '' };
      (opts.failures ? opts.failures.run(attempt, check, { concurrent: true }) : check()).then(
        (ok) => {
          if (!ok) return refuse('AUTH_INVALID');
          res.append('set-cookie', `${ADMIN_COOKIE}=${sessionValue(adminToken, Math.floor(Date.now() / 1000) + SESSION_SEC)}; ${cookieFlags}`);
          next();
        },
        (err: unknown) => {
          const r = renderError(err, requestId);
          res
            .status(r.status)
            .set(r.headers ?? {})
            .type('application/json')
            .send(JSON.stringify(r.body));
        },
      );
      // bull-board types getRouter() as any; the express adapter's router is an express Router.
    },
    adapter.getRouter() as express.Router,
  );
  return app;
}
