/**
 * How `REDIS_URL` names a Redis Cluster's seed nodes (src/redis.ts `clusterSeeds`, docs/operations.md
 * "Redis Cluster"): a comma-separated list of URLs, whose first one's credentials and TLS apply to
 * every node, including those the cluster announces.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config';
import { clusterSeeds } from '../../src/redis';

describe('clusterSeeds', () => {
  it('reads each node of a comma-separated list (white space allowed), port 6379 by default', () => {
    expect(clusterSeeds('redis://10.0.0.5:7000, redis://10.0.0.6,redis://[::1]:7002')).toEqual({
      nodes: [
        { host: '10.0.0.5', port: 7000 },
        { host: '10.0.0.6', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      shared: {},
    });
  });

  it("takes the first URL's username, password (decoded) and rediss: for every node", () => {
    expect(clusterSeeds('rediss://hrx:p%40ss@a.example:6380,redis://b.example:6380').shared).toEqual({ username: 'hrx', password: 'p@ss', tls: {} });
  });

  it('refuses an empty list, a URL that does not parse and another scheme, naming the setting, never its value', () => {
    for (const bad of [' , ', 'redis://a:1,not a url', 'http://hrx:secret@a.example:6379']) {
      expect(() => clusterSeeds(bad)).toThrow(ConfigError);
      expect(() => clusterSeeds(bad)).toThrow(/^Invalid configuration: REDIS_URL must be one or more redis:\/\/ or rediss:\/\/ URLs/);
    }
    expect(() => clusterSeeds('http://hrx:secret@a.example:6379')).not.toThrow(/secret/);
  });
});
