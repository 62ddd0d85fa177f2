/**
 * `/metrics` reuses the connection-health counts for a few seconds (src/ops/metrics.ts
 * `HEALTH_TTL_MS`): they are one grouped query over every approved connection, whose cost grows
 * with the client orgs. The pending deliveries (a cheap count) are still read on every scrape.
 */
import { describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../src/ops/metrics';
import { createLogger } from '../../src/logger';

function setup(healthTtlMs?: number) {
  const reads = { health: 0, pending: 0 };
  let healthy = 1;
  const metrics = createMetrics({
    store: {
      pendingDeliveries: () => Promise.resolve(++reads.pending),
      connectionHealth: () => {
        reads.health++;
        return Promise.resolve({ healthy });
      },
    },
    counters: {
      read: () => Promise.resolve({ syncRuns: [], employeesSynced: 0, employeesRemoved: 0, deliveries: { delivered: 0, failed: 0, cancelled: 0 } }),
    },
    queues: [],
    log: createLogger('silent', 'test'),
    processMetrics: false,
    ...(healthTtlMs === undefined ? {} : { healthTtlMs }),
  });
  const value = (text: string, line: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(line + ' '))
        ?.slice(line.length + 1),
    );
  return { metrics, reads, setHealthy: (n: number) => (healthy = n), value };
}

describe('/metrics connection-health counts', () => {
  it('are read once for scrapes within the TTL, again after it; pending deliveries on every scrape', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { metrics, reads, setHealthy, value } = setup();
      expect(value(await metrics.metrics(), 'hrx_connection_health{state="healthy"}')).toBe(1);
      setHealthy(7);
      const second = await metrics.metrics();
      expect(value(second, 'hrx_connection_health{state="healthy"}')).toBe(1);
      expect(value(second, 'hrx_event_deliveries_pending')).toBe(2);
      expect(reads).toEqual({ health: 1, pending: 2 });
      vi.advanceTimersByTime(5_000);
      expect(value(await metrics.metrics(), 'hrx_connection_health{state="healthy"}')).toBe(7);
      expect(reads).toEqual({ health: 2, pending: 3 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('are read on every scrape with a TTL of 0', async () => {
    const { metrics, reads, setHealthy, value } = setup(0);
    await metrics.metrics();
    setHealthy(3);
    expect(value(await metrics.metrics(), 'hrx_connection_health{state="healthy"}')).toBe(3);
    expect(reads.health).toBe(2);
  });
});
