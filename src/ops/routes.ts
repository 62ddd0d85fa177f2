/**
 * Routes of operations (docs/operations.md): liveness, readiness and the Prometheus metrics. Health
 * answers are `{status, checks}` with no envelope, for load balancers and orchestrators.
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/router';
import type { Health } from './health';
import type { Metrics } from './metrics';

const checkSchema = z.strictObject({ status: z.enum(['ok', 'timeout', 'error']), ms: z.number().int().min(0) });

/** What the routes call: the readiness check and this app instance's metrics. */
export interface OpsRouteDeps {
  health: Pick<Health, 'readiness'>;
  metrics: Pick<Metrics, 'metrics' | 'contentType'>;
}

/**
 * Builds `GET /healthz`, `GET /readyz` and `GET /metrics`. `ops` is read only when a request
 * comes (building the table calls nothing: scripts/docs.ts documents it without a context).
 */
export function opsRoutes(ops: OpsRouteDeps): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: '/healthz',
      credential: 'none',
      // 200 while the process runs: it asks nothing of PostgreSQL or Redis.
      response: z.strictObject({ status: z.literal('ok'), checks: z.strictObject({ process: z.literal('ok') }) }),
      doc: {
        operationId: 'getHealthz',
        tag: 'operations',
        answer: 'raw',
        summary: 'Liveness: answers 200 while the process runs (no credential; asks nothing of PostgreSQL or Redis).',
      },
      handler: () => Promise.resolve({ raw: { status: 'ok' as const, checks: { process: 'ok' as const } } }),
    }),
    route({
      method: 'GET',
      path: '/readyz',
      credential: 'none',
      response: z.strictObject({ status: z.enum(['ok', 'unavailable']), checks: z.strictObject({ postgresql: checkSchema, redis: checkSchema }) }),
      doc: {
        operationId: 'getReadyz',
        tag: 'operations',
        answer: 'raw',
        summary: 'Readiness: 200 when PostgreSQL and Redis each answer within 1 s (no credential).',
        description:
          'Asks PostgreSQL (`select 1`) and Redis (`PING`) at the same time, each given 1 s. ' +
          'Any check not `ok` (`timeout` or `error`) makes the answer `503` with this same body and `"status":"unavailable"`; ' +
          'the body never carries error messages or addresses.',
        answers: [{ status: 503, description: 'PostgreSQL or Redis did not answer in time: this same body, `"status":"unavailable"`.' }],
      },
      handler: async () => {
        const r = await ops.health.readiness();
        return { raw: r, status: r.status === 'ok' ? 200 : 503 };
      },
    }),
    route({
      method: 'GET',
      path: '/metrics',
      credential: 'admin',
      doc: {
        operationId: 'getMetrics',
        tag: 'operations',
        answer: 'text',
        summary: 'Prometheus metrics of this process and of the workers (the text format 0.0.4; admin token).',
        description:
          'Requests, latency and rate-limit refusals per route pattern, sync runs and event deliveries by outcome, ' +
          'queue depths, pending deliveries and the process metrics; every metric is described in docs/operations.md.',
      },
      handler: async () => ({ text: await ops.metrics.metrics(), contentType: ops.metrics.contentType }),
    }),
  ];
}
