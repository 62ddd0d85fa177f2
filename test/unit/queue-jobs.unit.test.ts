/**
 * The worker-edge checks of the queues' job payloads (src/sync/queue.ts, src/events/queue.ts): a
 * payload read back from Redis may have been written by an older hrx, so the workers check it
 * before use and fail the job for good when it does not fit.
 */
import { describe, expect, it } from 'vitest';
import { isDeliverJobData } from '../../src/events/queue';
import { isSyncJobData, SYNC_TRIGGERS } from '../../src/sync/queue';

describe('sync job payloads', () => {
  it('accepts an integer org id with every known trigger', () => {
    for (const trigger of SYNC_TRIGGERS) expect(isSyncJobData({ orgId: 7, trigger })).toBe(true);
  });

  it('refuses a missing or non-integer org id, an unknown or missing trigger, and non-objects', () => {
    for (const data of [
      { trigger: 'setup' },
      { orgId: '7', trigger: 'setup' },
      { orgId: 7.5, trigger: 'setup' },
      { orgId: 7, trigger: 'manual' },
      { orgId: 7 },
      null,
      undefined,
      'sync',
      7,
      [],
    ])
      expect(isSyncJobData(data), JSON.stringify(data)).toBe(false);
  });
});

describe('deliver job payloads', () => {
  it('accepts a string delivery id', () => {
    expect(isDeliverJobData({ deliveryId: '0193a5c2-0000-7000-8000-000000000000' })).toBe(true);
  });

  it('refuses a missing or non-string delivery id and non-objects', () => {
    for (const data of [{}, { deliveryId: 42 }, { deliveryId: null }, null, undefined, 'x']) expect(isDeliverJobData(data), JSON.stringify(data)).toBe(false);
  });
});
