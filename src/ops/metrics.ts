/**
 * The Prometheus metrics of one API instance (docs/operations.md "Metrics: `GET /metrics`"), in a registry of its own: never
 * prom-client's global default registry, so several apps in one process (the tests) each count
 * their own requests.
 *
 * Two kinds of figures:
 * - counted in this process, as requests are answered: requests by route and status with their
 *   latency, rate-limit refusals (plus prom-client's process metrics: CPU, memory, event loop);
 * - read at scrape time: sync runs by outcome with their durations, employees synced and event
 *   deliveries by outcome (counted by the workers in Redis, `counters.ts`: every worker's work
 *   from one scrape target, in one command whatever the history), queue depths (BullMQ counts)
 *   the deliveries still pending and the approved connections by health (PostgreSQL, `store.ts`).
 *
 * A source that does not answer (PostgreSQL or Redis down) keeps its families at the values of
 * the last scrape that read it (a counter never drops to a false zero) and sets
 * `hrx_metrics_source_up{source}` to 0; the scrape itself still answers.
 *
 * The two kinds live in two registries: with several API processes on one machine
 * (`cluster-metrics.ts`), the first is summed over every process and the second is read once, by
 * the process the scrape reached (summing it would count the workers' work once per process).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Queue } from 'bullmq';
import type { RequestObservation } from '../http/router';
import type { Logger } from '../logger';
import type { ClusterMetrics } from './cluster-metrics';
import { DELIVERY_OUTCOMES, SYNC_DURATION_BUCKETS, type SyncRunTotals, type WorkCounters } from './counters';
import type { OpsStore } from './store';

/** The states of `hrx_connection_health` (docs/sync.md "Connection health"), each reported even at 0. */
const HEALTH_STATES = ['not_configured', 'syncing', 'healthy', 'needs_reauth', 'failing'] as const;

/** Request latency buckets (seconds): reads answer in milliseconds, a slow HRMS call in seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** BullMQ job states reported per queue. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children', 'failed', 'completed'] as const;

const SYNC_DURATION = 'hrx_sync_run_duration_seconds';

/**
 * The sync-run duration histogram in the text format. Its buckets are counted by the workers
 * (counters.ts), not observed in this process, and prom-client has no way to set a histogram's
 * buckets, so this one family is rendered here (`_bucket{le}` cumulative, `_sum`, `_count`).
 */
function renderSyncDurations(rows: SyncRunTotals[]): string {
  const lines = [`# HELP ${SYNC_DURATION} Duration of finished sync runs by outcome, counted by the workers.`, `# TYPE ${SYNC_DURATION} histogram`];
  for (const r of rows) {
    const o = `outcome="${r.outcome}"`;
    SYNC_DURATION_BUCKETS.forEach((le, i) => lines.push(`${SYNC_DURATION}_bucket{le="${le}",${o}} ${r.buckets[i] ?? 0}`));
    lines.push(`${SYNC_DURATION}_bucket{le="+Inf",${o}} ${r.runs}`, `${SYNC_DURATION}_sum{${o}} ${r.seconds}`, `${SYNC_DURATION}_count{${o}} ${r.runs}`);
  }
  return lines.join('\n') + '\n';
}

export interface MetricsDeps {
  store: OpsStore;
  counters: Pick<WorkCounters, 'read'>;
  /** The queues whose depths are reported, labelled by their names (`sync`, `events`, `housekeeping`). */
  queues: Pick<Queue, 'name' | 'getJobCounts'>[];
  log: Logger;
  /** Process metrics of prom-client (CPU, memory, event loop lag, GC); default true. */
  processMetrics?: boolean;
  /** In a child of `hrx serve --processes N`: sums the per-process figures over every process. */
  cluster?: ClusterMetrics | undefined;
  /**
   * How long (ms) the connection-health counts read from PostgreSQL are reused by later scrapes
   * (default {@link HEALTH_TTL_MS}); 0 reads them on every scrape.
   */
  healthTtlMs?: number;
}

/**
 * The connection-health counts are one grouped query over every approved connection, so their
 * cost grows with the client orgs (docs/operations.md "Metrics: `GET /metrics`"); scrapes closer
 * together than this (several Prometheus servers, a dashboard refreshing) share one reading.
 */
export const HEALTH_TTL_MS = 5_000;

/** Builds one instance's registry and its instruments. */
export function createMetrics(deps: MetricsDeps) {
  // Counted by this process (summed over the processes of a machine).
  const registry = new Registry();
  const registers = [registry];
  if (deps.processMetrics !== false) collectDefaultMetrics({ register: registry });
  deps.cluster?.share(registry);

  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'hrx_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames,
    registers,
  });
  const latency = new Histogram({
    name: 'hrx_http_request_duration_seconds',
    help: "Time from a request's arrival to its last response byte, by method, route pattern and status.",
    labelNames,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const refusals = new Counter({
    name: 'hrx_rate_limit_refusals_total',
    help: 'Requests refused with 429: by the per-credential rate limit (limit="requests") or a failed-authentication limit (limit="auth_failures").',
    labelNames: ['limit', 'route'] as const,
    registers,
  });
  // One series per live API process: how the requests spread over the processes of a machine.
  const perProcess = new Counter({
    name: 'hrx_process_requests_total',
    help: 'HTTP requests answered, by API process (pid); the series of every live process sum to hrx_http_requests_total.',
    labelNames: ['pid'] as const,
    registers,
  });
  // Bound once: the label set is hashed here, not on every request.
  const ownRequests = perProcess.labels({ pid: String(process.pid) });
  ownRequests.inc(0);

  // Read at scrape time (once, by the process the scrape reached).
  const sources = new Registry();
  const sourceRegisters = [sources];

  const syncRuns = new Counter({
    name: 'hrx_sync_runs_total',
    help: 'Finished sync runs by outcome, counted by the workers.',
    labelNames: ['outcome'] as const,
    registers: sourceRegisters,
  });
  // The last counts read (kept, like the other families, when Redis does not answer).
  let syncDurations: SyncRunTotals[] = [];
  const employeesSynced = new Counter({
    name: 'hrx_sync_employees_total',
    help: 'Employee records written by finished sync runs (employees seen).',
    registers: sourceRegisters,
  });
  const employeesRemoved = new Counter({
    name: 'hrx_sync_employees_removed_total',
    help: 'Employees marked removed by succeeded sync runs.',
    registers: sourceRegisters,
  });
  const deliveries = new Counter({
    name: 'hrx_event_deliveries_total',
    help: 'Finished event deliveries by outcome, counted by the workers.',
    labelNames: ['outcome'] as const,
    registers: sourceRegisters,
  });
  const deliveriesPending = new Gauge({
    name: 'hrx_event_deliveries_pending',
    help: 'Event deliveries still pending (retries included).',
    registers: sourceRegisters,
  });
  const connectionHealth = new Gauge({
    name: 'hrx_connection_health',
    help: 'Approved connections by the HRMS health of their client org (not_configured, syncing, healthy, needs_reauth, failing).',
    labelNames: ['state'] as const,
    registers: sourceRegisters,
  });
  const queueJobs = new Gauge({
    name: 'hrx_queue_jobs',
    help: 'BullMQ jobs per queue and state.',
    labelNames: ['queue', 'state'] as const,
    registers: sourceRegisters,
  });
  const sourceUp = new Gauge({
    name: 'hrx_metrics_source_up',
    help: '1 when the scrape read this source (postgresql, redis; processes: the other API processes of `hrx serve --processes N`), 0 when it did not answer.',
    labelNames: ['source'] as const,
    registers: sourceRegisters,
  });

  const healthTtl = deps.healthTtlMs ?? HEALTH_TTL_MS;
  // The last health counts read and when (ms); only a successful read is kept.
  let health: { at: number; counts: Record<string, number> } | null = null;
  async function readHealth(): Promise<Record<string, number>> {
    const now = Date.now();
    if (health && now - health.at < healthTtl) return health.counts;
    const counts = await deps.store.connectionHealth();
    health = { at: now, counts };
    return counts;
  }

  async function readPending(): Promise<boolean> {
    try {
      const [pending, health] = await Promise.all([deps.store.pendingDeliveries(), readHealth()]);
      deliveriesPending.set(pending);
      for (const state of HEALTH_STATES) connectionHealth.set({ state }, health[state] ?? 0);
      return true;
    } catch (err) {
      deps.log.warn({ errName: (err as { name?: unknown }).name, errCode: (err as { code?: unknown }).code }, 'metrics: PostgreSQL not read');
      return false;
    }
  }

  /** The workers' counters and the queue depths, both in Redis. */
  async function readRedis(): Promise<boolean> {
    try {
      const [t, counts] = await Promise.all([
        deps.counters.read(),
        Promise.all(deps.queues.map(async (q) => ({ name: q.name, counts: await q.getJobCounts(...QUEUE_STATES) }))),
      ]);
      for (const m of [syncRuns, employeesSynced, employeesRemoved, deliveries, queueJobs]) m.reset();
      for (const r of t.syncRuns) syncRuns.inc({ outcome: r.outcome }, r.runs);
      syncDurations = t.syncRuns;
      employeesSynced.inc(t.employeesSynced);
      employeesRemoved.inc(t.employeesRemoved);
      for (const outcome of DELIVERY_OUTCOMES) deliveries.inc({ outcome }, t.deliveries[outcome]);
      for (const { name, counts: c } of counts) for (const state of QUEUE_STATES) queueJobs.set({ queue: name, state }, c[state] ?? 0);
      return true;
    } catch (err) {
      deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'metrics: Redis not read');
      return false;
    }
  }

  // Concurrent scrapes share one read of the sources.
  let inFlight: Promise<string> | null = null;
  /** This process's own figures, or (several processes) their sum over every live process. */
  async function counted(): Promise<string> {
    if (!deps.cluster) return registry.metrics();
    try {
      const text = await deps.cluster.aggregate();
      sourceUp.set({ source: 'processes' }, 1);
      return text;
    } catch (err) {
      deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, "metrics: the other API processes' figures not read");
      sourceUp.set({ source: 'processes' }, 0);
      return registry.metrics();
    }
  }

  async function scrape(): Promise<string> {
    const [pgUp, redisUp, own] = await Promise.all([readPending(), readRedis(), counted()]);
    sourceUp.set({ source: 'postgresql' }, pgUp ? 1 : 0);
    sourceUp.set({ source: 'redis' }, redisUp ? 1 : 0);
    return own.replace(/\n*$/, '\n') + '\n' + (await sources.metrics()) + '\n' + renderSyncDurations(syncDurations);
  }

  return {
    /** `Content-Type` of the exposition (Prometheus text format 0.0.4). */
    contentType: registry.contentType,
    /** Counts one answered request (the router's `observe` hook). Costs no I/O. */
    observe(o: RequestObservation): void {
      const labels = { method: o.method, route: o.route, status: o.status };
      requests.inc(labels);
      ownRequests.inc();
      latency.observe(labels, o.seconds);
      if (o.throttled) refusals.inc({ limit: o.throttled, route: o.route });
    },
    /** Reads the scrape-time sources (each bounded: 1.5 s statement limit, 1.5 s Redis command timeout) and renders the exposition. Never rejects for a source that is down. */
    metrics(): Promise<string> {
      inFlight ??= scrape().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
  };
}

/** One instance's metrics. */
export type Metrics = ReturnType<typeof createMetrics>;
