/**
 * A Redis that stops answering (docs/operations.md "Redis or PostgreSQL down; shutdown"): the
 * request-path client's commands time out ("Command timed out", ioredis `commandTimeout`), and the
 * background work that issues them — the job schedulers' periodic check, the work counters — logs
 * the failure and carries on: no unhandled rejection, which would end the worker process.
 *
 * The Redis here is the test's own (test/support/private-services.ts), paused with SIGSTOP: the
 * shared Redis is never touched.
 */
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScheduleReconciler } from '../../../jobs/schedules';
import { createLogger } from '../../../src/logger';
import { createWorkCounters } from '../../../src/ops/counters';
import { waitFor } from '../../support/harness';
import { pauseRedis, startPrivateRedis, type PrivateRedis } from '../../support/private-services';

let server: PrivateRedis;
let client: Redis;
const lines: Record<string, unknown>[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
const log = createLogger(
  'debug',
  'test',
  new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  }),
);

beforeAll(async () => {
  server = await startPrivateRedis();
  // The request-path client's options (src/infra.ts): a command is sent now or fails now.
  client = new Redis(server.url, {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 300,
    retryStrategy: () => 100,
  });
  client.on('error', () => undefined);
  await waitFor(async () => client.status === 'ready' && (await client.ping()) === 'PONG', 10_000);
  process.on('unhandledRejection', onUnhandled);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  if (server) pauseRedis(server, false);
  client?.disconnect();
  await server?.stop();
});

/** Pauses the test's Redis (it keeps the connection but answers nothing) while `fn` runs. */
async function whilePaused(fn: () => Promise<void>): Promise<void> {
  pauseRedis(server, true);
  try {
    await fn();
  } finally {
    pauseRedis(server, false);
  }
}

describe('Redis commands that time out', () => {
  it("the schedulers' periodic check logs the timeout, carries on and succeeds once Redis answers", async () => {
    let passes = 0;
    const ping = async (): Promise<void> => {
      passes++;
      await client.hset('hrx-timeouts:housekeeping', 'at', Date.now());
    };
    const reconciler = startScheduleReconciler({
      schedules: { expected: () => Promise.resolve(new Map<number, number>()), fingerprint: () => Promise.resolve({ count: 0, sum: 0 }) },
      redis: client,
      syncQueue: {
        applySchedules: () => Promise.resolve([]),
        schedulerState: async () => ({ stored: { count: 0, sum: 0 }, count: Number(await client.hlen('hrx-timeouts:schedulers')) }),
      },
      installHousekeeping: ping,
      retentionQueue: { installScheduler: () => ping() },
      retentionPurgeMs: 60_000,
      log,
      everyMs: 200,
    });
    try {
      await waitFor(() => passes > 0, 5000);
      await whilePaused(async () => {
        await waitFor(() => lines.some((l) => l.msg === 'job schedulers not reconciled; retried later'), 10_000);
      });
      const failed = lines.find((l) => l.msg === 'job schedulers not reconciled; retried later')!;
      expect(failed.level).toBe(40);
      expect(failed.err).toMatchObject({ name: 'Error' });
      // The serializer's form: no message of a driver error (it may quote values).
      expect(failed.err).not.toHaveProperty('message');
      // Redis answers again: the periodic check runs on (and passes).
      const before = passes;
      await waitFor(() => passes > before + 2, 10_000);
      expect(await reconciler.check()).toBe(true);
    } finally {
      await reconciler.stop();
    }
    expect(unhandled).toEqual([]);
  });

  it('the work counters lose the increment, logged, and never reject', async () => {
    const counters = createWorkCounters(client, 'hrx-timeouts', log);
    await whilePaused(async () => {
      counters.syncRun({ outcome: 'succeeded', seconds: 2, employees: 10, removed: 0 });
      counters.deliveries('delivered', 3);
      await waitFor(() => lines.filter((l) => l.msg === 'work counter not recorded').length >= 2, 10_000);
    });
    const lost = lines.filter((l) => l.msg === 'work counter not recorded');
    expect(lost.map((l) => l.what).sort()).toEqual(['deliveries', 'sync run']);
    expect(unhandled).toEqual([]);
  });
});
