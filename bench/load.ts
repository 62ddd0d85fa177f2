/**
 * HTTP load with autocannon's programmatic API: a warm-up run (discarded) then the measured run,
 * each request's path rotating round-robin over a list (so every employee is read in turn), with
 * the server child's CPU use and the machine's CPU use over the measured run.
 */
import { createRequire } from 'node:module';
import { busyFraction, cpuSeconds, openCpuWindow, round, type Child, type CpuWindow } from './lib';

interface AutocannonRequest {
  method?: string;
  path?: string;
  setupRequest?: (req: AutocannonRequest, context: object) => AutocannonRequest;
}
interface Histogram {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
  p99_9: number;
}
interface AutocannonResult {
  requests: Histogram & { sent: number };
  latency: Histogram;
  throughput: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  requests?: AutocannonRequest[];
  timeout?: number;
}
type Autocannon = ((opts: AutocannonOptions) => Promise<AutocannonResult>) & { track?: unknown };

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadOptions {
  /** Origin, e.g. http://127.0.0.1:1234 */
  origin: string;
  /** Request paths, used round-robin across all connections. */
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  durationSec: number;
  warmupSec: number;
}

export interface LoadFigures {
  /** Completed requests / measured duration. */
  rps: number;
  requests: number;
  latencyMs: { avg: number; p50: number; p90: number; p99: number; max: number };
  responses2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Server child's CPU use during the measured run, in cores (1.0 = one core fully busy). */
  serverCpuCores: number | null;
  /** Server child's CPU per measured request, ms. */
  serverCpuMsPerRequest: number | null;
  /** Load generator's (this process's) CPU use during the measured run, in cores. */
  loadgenCpuCores: number;
  /** Share of all the machine's cores busy during the measured run (load generator, server, PostgreSQL...). */
  machineBusy: number;
  /** PostgreSQL processes' CPU use (all of the machine's, other users' included), in cores. */
  postgresCpuCores: number;
  /** PostgreSQL CPU per measured request, ms (meaningful when nothing else uses PostgreSQL). */
  postgresCpuMsPerRequest: number;
  /** Busy cores used by neither the server child, the load generator nor PostgreSQL: other work on the machine. */
  otherCpuCores: number;
  throughputMiBps: number;
}

function run(opts: LoadOptions, durationSec: number): Promise<AutocannonResult> {
  let next = 0;
  const { paths } = opts;
  return autocannon({
    url: opts.origin,
    connections: opts.connections,
    duration: durationSec,
    timeout: 10,
    headers: opts.headers ?? {},
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          req.path = paths[next++ % paths.length]!;
          return req;
        },
      },
    ],
  });
}

/** Warms up, then measures; `server` is the child answering (for its CPU use); `raw` gets autocannon's result of the measured run (its p99.9, say). */
export async function measureLoad(opts: LoadOptions, server: Child, raw?: (r: AutocannonResult) => void): Promise<LoadFigures> {
  if (opts.warmupSec > 0) await run(opts, opts.warmupSec);
  const window = openCpuWindow(() => cpuSeconds(server.pid));
  const r = await run(opts, opts.durationSec);
  const cpu = window.close();
  raw?.(r);
  return figuresOf(r, cpu);
}

/** The parts of an autocannon result the figures are made of. */
export interface RunResult {
  requests: { total: number };
  latency: { average: number; p50: number; p90: number; p99: number; max: number };
  throughput: { average: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats?: Record<string, { count: number }>;
}

/** Where a measured run's CPU went: inputs to `figuresOf`, taken just before and after the run. */
/** The CPU readings of a measured run (bench/proc.ts). */
export type RunCpu = CpuWindow;

/** The figures of one autocannon run: rates, latency, status counts and CPU use per request. */
export function figuresOf(r: RunResult, m: RunCpu): LoadFigures {
  const { wallSec, cpu0, cpu1, pgSec } = m;
  const postgresCpuCores = round(pgSec / wallSec, 2);
  const loadgenCpuCores = round((m.own.user + m.own.system) / 1e6 / wallSec, 2);
  const serverCpuCores = cpu0 !== null && cpu1 !== null ? round((cpu1 - cpu0) / wallSec, 2) : null;
  const busy = busyFraction(m.m0, m.m1);
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
  return {
    rps: round(r.requests.total / r.duration, 0),
    requests: r.requests.total,
    latencyMs: { avg: round(r.latency.average, 2), p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    responses2xx: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    serverCpuCores,
    serverCpuMsPerRequest: cpu0 !== null && cpu1 !== null && r.requests.total ? round(((cpu1 - cpu0) * 1000) / r.requests.total, 3) : null,
    loadgenCpuCores,
    machineBusy: round(busy, 2),
    postgresCpuCores,
    postgresCpuMsPerRequest: r.requests.total ? round((pgSec * 1000) / r.requests.total, 3) : 0,
    otherCpuCores: round(Math.max(0, busy * m.cores - (serverCpuCores ?? 0) - loadgenCpuCores - postgresCpuCores), 2),
    throughputMiBps: round(r.throughput.average / 1024 / 1024, 2),
  };
}
