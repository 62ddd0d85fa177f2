/**
 * Builds the hrx HTTP application: the route table of every module, the router, the queue
 * dashboard and the static default logo. Listening is `server.ts`'s job.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bullBoardHandler } from './admin/bull-board';
import { createAuthenticator } from './auth/authenticator';
import { connectionRoutes } from './connections/routes';
import { consentRoutes } from './consent/routes';
import type { Context } from './context';
import { employeeRoutes } from './employees/routes';
import { externalRoutes } from './external/routes';
import { createRouter, route, type RouteDef } from './http/router';
import { orgRoutes } from './orgs/routes';
import { createRateLimiter } from './ratelimit/limiter';
import { sdkRoutes } from './sdk/routes';
import { setupRoutes } from './setup/routes';

const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#2d5b8a"/><text x="32" y="41" font-family="sans-serif" font-size="24" fill="#fff" text-anchor="middle">hrx</text></svg>`;

/** The HTTP application: a request listener. */
export interface App {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  routes: RouteDef[];
}

/** Builds the app over an open context. `validateResponses` checks every body against its schema. */
export function buildApp(ctx: Context, opts: { validateResponses?: boolean } = {}): App {
  const { config, services } = ctx;
  const routes: RouteDef[] = [
    ...employeeRoutes(services.employees, services.employeeUpdates),
    ...orgRoutes(services.orgs),
    ...connectionRoutes(services.connections),
    ...setupRoutes(services.setup),
    ...consentRoutes(services.consents),
    ...externalRoutes(services.external),
    ...sdkRoutes(services.sdk, {
      basePath: config.HRX_BASE_PATH, frameAncestors: config.HRX_CONNECT_FRAME_ANCESTORS, secureCookie: config.HRX_PUBLIC_URL?.startsWith('https:') ?? false,
    }),
    route({ method: 'GET', path: '/healthz', credential: 'none', handler: async () => ({ data: { status: 'ok' } }) }),
  ];
  const authenticate = createAuthenticator({
    orgs: ctx.apiKeyOrgs, apiKeyPeppers: ctx.apiKeyPeppers, adminToken: config.HRX_ADMIN_TOKEN,
    verifyVendorBasic: (username, password) => services.external.verifyBasic(username, password),
    verifyClientBasic: (appKey, appSecret) => services.orgs.verifyClientBasic(appKey, appSecret),
    verifyConnectSession: (secret) => services.sdk.verifySession(secret),
    failures: ctx.authFailures, revocations: ctx.apiKeyRevocations, cacheTtlMs: config.HRX_API_KEY_CACHE_TTL_MS,
  });
  // decisions §11; HRX_RATE_LIMIT_PER_MINUTE=0: no limiter, no Redis call on any request.
  const limiter = config.HRX_RATE_LIMIT_PER_MINUTE > 0
    ? createRateLimiter({
      redis: ctx.requestRedis, prefix: config.HRX_REDIS_PREFIX, limit: config.HRX_RATE_LIMIT_PER_MINUTE,
      windowMs: config.HRX_RATE_LIMIT_WINDOW_MS, log: ctx.log,
      // A Redis that does not answer costs a request at most this before the per-process fallback.
      timeoutMs: 300,
    })
    : undefined;
  const handler = createRouter(routes, {
    basePath: config.HRX_BASE_PATH,
    maxBodyBytes: config.HRX_MAX_BODY_BYTES,
    authenticate,
    trustProxy: config.HRX_TRUST_PROXY,
    limiter,
    log: ctx.log,
    validateResponses: opts.validateResponses ?? process.env.HRX_VALIDATE_RESPONSES === '1',
    mounts: [
      { prefix: '/admin/queues', handler: bullBoardHandler([ctx.syncQueue.queue, ctx.eventsQueue.queue], config.HRX_BASE_PATH + '/admin/queues', config.HRX_ADMIN_TOKEN, {
        failures: ctx.authFailures, trustProxy: config.HRX_TRUST_PROXY,
      }) },
      {
        prefix: '/static/org-logo.svg',
        handler: (_req, res) => {
          res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' });
          res.end(LOGO_SVG);
        },
      },
    ],
  });
  return { handler, routes };
}
