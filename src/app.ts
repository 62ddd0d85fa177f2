/**
 * Builds the hrx HTTP application: the route table of every module (and the OpenAPI document
 * generated from it), the router, the queue dashboard, the metrics registry of this instance,
 * the docs page's assets and the static default logo. Listening is `server.ts`'s job.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bullBoardHandler } from './admin/bull-board';
import { createAuthenticator } from './auth/authenticator';
import { connectionRoutes } from './connections/routes';
import { freshnessRoutes } from './connections/freshness-routes';
import { consentRoutes } from './consent/routes';
import { operatorContact, type Config } from './config';
import type { Context } from './context';
import { employeeRoutes } from './employees/routes';
import { eventRoutes } from './events/routes';

import { credentialRoutes } from './credentials/routes';
import { externalRoutes } from './external/routes';
import { createRouter, type RouteDef } from './http/router';
import type { ClusterMetrics } from './ops/cluster-metrics';
import { createMetrics, type Metrics } from './ops/metrics';
import { opsRoutes, type OpsRouteDeps } from './ops/routes';
import { docsAssetsHandler, DOCS_ASSETS_PREFIX } from './openapi/assets';
import { openApiRoutes } from './openapi/routes';
import { orgRoutes } from './orgs/routes';
import { createRateLimiter } from './ratelimit/limiter';
import { sdkRoutes } from './sdk/routes';
import { setupRoutes } from './setup/routes';

const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#2d5b8a"/><text x="32" y="41" font-family="sans-serif" font-size="24" fill="#fff" text-anchor="middle">hrx</text></svg>`;

/** The HTTP application: a request listener. */
export interface App {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  routes: RouteDef[];
  /** This instance's metrics (its own registry, docs/operations.md "Metrics: `GET /metrics`"). */
  metrics: Metrics;
}

/**
 * The services the route table's handlers call; `ops` is readiness and this app instance's
 * metrics (`/readyz`, `/metrics`).
 */
export type RouteServices = Pick<
  Context['services'],
  | 'employees'
  | 'employeeUpdates'
  | 'accessLog'
  | 'employeeErasure'
  | 'orgs'
  | 'connections'
  | 'freshness'
  | 'setup'
  | 'consents'
  | 'external'
  | 'vendorEndpoints'
  | 'credentials'
  | 'sdk'
> & { ops: OpsRouteDeps };

/**
 * The route table of every module, `GET /openapi.json` and `GET /docs` included (they describe the
 * whole table). Building it calls no service: `scripts/docs.ts` builds it to write the checked-in
 * document.
 */
export function routeTable(services: RouteServices, config: Config): RouteDef[] {
  const routes: RouteDef[] = [
    ...employeeRoutes(services.employees, services.employeeUpdates, services.accessLog, services.employeeErasure),
    ...orgRoutes(services.orgs),
    ...connectionRoutes(services.connections),
    ...freshnessRoutes(services.freshness),
    ...setupRoutes(services.setup),
    ...consentRoutes(services.consents),
    ...externalRoutes(services.external),
    ...eventRoutes(services.vendorEndpoints),

    ...credentialRoutes(services.credentials),
    ...sdkRoutes(services.sdk, {
      basePath: config.HRX_BASE_PATH,
      frameAncestors: config.HRX_CONNECT_FRAME_ANCESTORS,
      secureCookie: config.HRX_PUBLIC_URL?.startsWith('https:') ?? false,
      operator: { name: config.HRX_OPERATOR_NAME, contact: operatorContact(config) },
    }),
    ...opsRoutes(services.ops),
  ];
  const serverUrl = config.HRX_PUBLIC_URL ? config.HRX_PUBLIC_URL.replace(/\/+$/, '') + config.HRX_BASE_PATH : config.HRX_BASE_PATH || '/';
  routes.push(...openApiRoutes(() => routes, { basePath: config.HRX_BASE_PATH, serverUrl }));
  return routes;
}

/**
 * Builds the app over an open context. `validateResponses` checks every body against its schema;
 * `clusterMetrics` (in a child of `hrx serve --processes N`) sums `/metrics`' per-process figures
 * over every process.
 */
export function buildApp(ctx: Context, opts: { validateResponses?: boolean; clusterMetrics?: ClusterMetrics | undefined } = {}): App {
  const { config, services } = ctx;
  // One registry per app instance, never prom-client's global one: tests run several apps in one process.
  const metrics = createMetrics({ store: ctx.ops.store, counters: ctx.ops.counters, queues: ctx.ops.queues, log: ctx.log, cluster: opts.clusterMetrics });
  const routes = routeTable({ ...services, ops: { health: ctx.ops.health, metrics } }, config);
  const authenticate = createAuthenticator({
    orgs: ctx.apiKeyOrgs,
    apiKeyPeppers: ctx.apiKeyPeppers,
    adminToken: config.HRX_ADMIN_TOKEN,
    verifyVendorBasic: (username, password) => services.external.verifyBasic(username, password),
    verifyClientBasic: (appKey, appSecret) => services.orgs.verifyClientBasic(appKey, appSecret),
    verifyConnectSession: (secret) => services.sdk.verifySession(secret),
    failures: ctx.authFailures,
    revocations: ctx.apiKeyRevocations,
    cacheTtlMs: config.HRX_API_KEY_CACHE_TTL_MS,
  });
  // docs/operations.md "Redis or PostgreSQL down; shutdown"; a limit of 0: no limiter, no Redis call on any request.
  const limiterOf = (limit: number) =>
    limit > 0
      ? createRateLimiter({
          redis: ctx.requestRedis,
          prefix: config.HRX_REDIS_PREFIX,
          limit,
          windowMs: config.HRX_RATE_LIMIT_WINDOW_MS,
          log: ctx.log,
          // A Redis that does not answer costs a request at most this before the per-process fallback.
          timeoutMs: 300,
        })
      : undefined;
  const limiter = limiterOf(config.HRX_RATE_LIMIT_PER_MINUTE);
  // docs/limits.md "Rate limits": each Connect session has a bucket of its own, smaller than a key's.
  const connectLimiter = limiterOf(config.HRX_CONNECT_RATE_LIMIT_PER_MINUTE);
  const handler = createRouter(routes, {
    basePath: config.HRX_BASE_PATH,
    maxBodyBytes: config.HRX_MAX_BODY_BYTES,
    authenticate,
    trustProxy: config.HRX_TRUST_PROXY,
    limiter,
    connectLimiter,
    idempotency: ctx.idempotency,
    log: ctx.log,
    validateResponses: opts.validateResponses ?? process.env.HRX_VALIDATE_RESPONSES === '1',
    observe: (o) => metrics.observe(o),
    mounts: [
      {
        prefix: '/admin/queues',
        handler: bullBoardHandler(
          [ctx.syncQueue.queue, ctx.eventsQueue.queue, ctx.housekeepingQueue.queue, ctx.retentionQueue.queue],
          config.HRX_BASE_PATH + '/admin/queues',
          config.HRX_ADMIN_TOKEN,
          {
            failures: ctx.authFailures,
            trustProxy: config.HRX_TRUST_PROXY,
            secureCookie: config.HRX_PUBLIC_URL?.startsWith('https:') ?? false,
            health: { queue: ctx.syncQueue.queue, counts: () => ctx.ops.store.connectionHealth() },
          },
        ),
      },
      { prefix: DOCS_ASSETS_PREFIX, handler: docsAssetsHandler(config.HRX_BASE_PATH) },
      {
        prefix: '/static/org-logo.svg',
        handler: (_req, res) => {
          res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' });
          res.end(LOGO_SVG);
        },
      },
    ],
  });
  return { handler, routes, metrics };
}
