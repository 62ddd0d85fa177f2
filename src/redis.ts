/**
 * The Redis client type every feature takes, and how hrx opens one: a single server (ioredis
 * `Redis`) or, with `HRX_REDIS_CLUSTER=1`, a Redis Cluster (ioredis `Cluster`), as
 * docs/operations.md "Redis Cluster" describes.
 *
 * In a cluster, every key one script, one MULTI or one BullMQ queue touches must hash to one slot
 * (Redis Cluster specification, "Hash tags"): hrx's keys carry a `{…}` hash tag where they are
 * used together (the BullMQ prefix per queue, the failed-authentication counters and their set of
 * locks, one HRMS tenant's budget log and pause, a bucket of rate-limit keys). Pub/sub channels
 * are not keys: a PUBLISH reaches every node's subscribers.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { ConfigError } from './config';

/** A connection to one Redis server or to a Redis Cluster; both take the same commands and scripts. */
export type RedisClient = Redis | Cluster;

/** Where hrx's Redis is: `REDIS_URL` and `HRX_REDIS_CLUSTER` (docs/settings.md). */
export interface RedisTarget {
  /** One URL, or with `cluster` one or more seed nodes' URLs, comma-separated. */
  url: string;
  cluster: boolean;
}

/**
 * The seed nodes of a cluster URL list (`redis://h1:7000,redis://h2:7001`) and the per-node
 * options they share: the first URL's username, password and TLS (`rediss:`), which the nodes
 * the cluster announces (not in the list) need too. Throws ConfigError (naming `REDIS_URL`, never
 * its value: it may hold a password) on an empty list or an entry that is not a redis:// or
 * rediss:// URL.
 */
export function clusterSeeds(url: string): { nodes: { host: string; port: number }[]; shared: RedisOptions } {
  const refused = new ConfigError('Invalid configuration: REDIS_URL must be one or more redis:// or rediss:// URLs, comma-separated (HRX_REDIS_CLUSTER=1)');
  const urls: URL[] = [];
  for (const s of url.split(',').map((x) => x.trim())) {
    if (!s) continue;
    const u = URL.canParse(s) ? new URL(s) : null;
    if (!u || !/^rediss?:$/.test(u.protocol) || !u.hostname) throw refused;
    urls.push(u);
  }
  if (!urls.length) throw refused;
  const first = urls[0]!;
  const shared: RedisOptions = {};
  if (first.username) shared.username = decodeURIComponent(first.username);
  if (first.password) shared.password = decodeURIComponent(first.password);
  if (first.protocol === 'rediss:') shared.tls = {};
  // An IPv6 host comes back bracketed from URL; ioredis wants it bare.
  return { nodes: urls.map((u) => ({ host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port || 6379) })), shared };
}

/**
 * Opens a client of `target` with `opts` (ioredis options of one connection). For a cluster,
 * `opts` become the options of each node's connection, except those the cluster itself holds:
 * its offline queue and its reconnection (`retryStrategy` becomes `clusterRetryStrategy`).
 */
export function openRedis(target: RedisTarget, opts: RedisOptions): RedisClient {
  if (!target.cluster) return new Redis(target.url, opts);
  const { nodes, shared } = clusterSeeds(target.url);
  const { enableOfflineQueue, retryStrategy, ...node } = opts;
  const options: ClusterOptions = {
    redisOptions: { ...node, ...shared },
    enableOfflineQueue: enableOfflineQueue ?? true,
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
  };
  return new Cluster(nodes, options);
}
