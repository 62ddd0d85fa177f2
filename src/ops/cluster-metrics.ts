/**
 * `/metrics` over several API processes of one machine (`hrx serve --processes N`, docs/operations.md
 * "Several processes on one machine"): the figures each process counts itself (requests, latency,
 * refusals, its CPU and memory) are summed over every live process with prom-client's
 * `AggregatorRegistry`, whichever process the scrape reached. Only the primary can ask every
 * process (node:cluster's IPC runs between the primary and each child), so the child that got the
 * scrape asks the primary, which gathers every child's registry and answers the aggregate.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQ = 'hrx:cluster-metrics-req';
const RES = 'hrx:cluster-metrics-res';

/** How long a child waits for the primary's aggregate (prom-client gives each child 5 s). */
const ANSWER_MS = 6_000;

interface Request {
  type: typeof REQ;
  id: number;
}
interface Answer {
  type: typeof RES;
  id: number;
  text?: string;
  error?: string;
}

const isRequest = (m: unknown): m is Request => typeof m === 'object' && m !== null && (m as { type?: unknown }).type === REQ;
const isAnswer = (m: unknown): m is Answer => typeof m === 'object' && m !== null && (m as { type?: unknown }).type === RES;

/** A child's side: hands its registry to the aggregation and asks the primary for the sum. */
export interface ClusterMetrics {
  /** Makes `registry` the one the primary collects from this process. */
  share(registry: Registry): void;
  /** The exposition of every live process's shared registry, aggregated (summed unless a metric says otherwise). Rejects when the primary does not answer in time. */
  aggregate(): Promise<string>;
}

/**
 * The child's side, in a node:cluster child (`undefined` elsewhere: one process has nothing to
 * sum). Constructing prom-client's `AggregatorRegistry` installs its listener that answers the
 * primary's collection requests.
 */
export function clusterMetricsChild(): ClusterMetrics | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  new AggregatorRegistry();
  let next = 0;
  const waiting = new Map<number, { resolve: (s: string) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  process.on('message', (m: unknown) => {
    if (!isAnswer(m)) return;
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    clearTimeout(w.timer);
    if (typeof m.text === 'string') w.resolve(m.text);
    else w.reject(new Error(m.error ?? 'no answer'));
  });
  return {
    share(registry) {
      AggregatorRegistry.setRegistries([registry]);
    },
    aggregate() {
      const id = next++;
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('the primary process did not answer in time'));
        }, ANSWER_MS);
        timer.unref();
        waiting.set(id, { resolve, reject, timer });
        const req: Request = { type: REQ, id };
        process.send!(req, undefined, {}, (err: Error | null) => {
          if (!err) return;
          waiting.delete(id);
          clearTimeout(timer);
          reject(err);
        });
      });
    },
  };
}

/** The primary's side: answers each child's request with the aggregate of every live child. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: unknown) => {
    if (!isRequest(m)) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: RES, id: m.id, ...a } satisfies Answer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
}
