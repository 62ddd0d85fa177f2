/** Wiring of operations: readiness and the scrape-time sources of the metrics (see `context.ts`). */
import type { Queue } from 'bullmq';
import type { Infra } from '../infra';
import type { WorkCounters } from './counters';
import { createHealth } from './health';
import { createOpsStore } from './store';

/**
 * Builds the readiness check (request pool and request-path Redis, 1 s each) and gathers what
 * `/metrics` reads at scrape time: the pending deliveries (request pool), the workers' counters
 * (`counters`, built first by `context.ts` as the sync and events features count into them) and
 * the queues whose depths it reports. The registry itself is per app instance (`app.ts`).
 */
export function wireOps(infra: Infra, deps: { counters: WorkCounters; queues: Pick<Queue, 'name' | 'getJobCounts'>[] }) {
  return {
    health: createHealth({ pool: infra.pool, redis: infra.requestRedis }),
    store: createOpsStore(infra.pool),
    counters: deps.counters,
    queues: deps.queues,
  };
}
