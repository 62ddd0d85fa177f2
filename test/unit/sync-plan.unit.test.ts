/** Which kind of sync runs next (sync/plan.ts `planRun`, docs/hrms/connectors.md "Full and incremental syncs"). */
import { describe, expect, it } from 'vitest';
import { FULL_SYNC_EVERY_MS, INCREMENTAL_OVERLAP_MS, planRun } from '../../src/sync/plan';

const now = Date.parse('2026-11-23T12:00:00Z');
const hoursAgo = (h: number) => new Date(now - h * 3_600_000);

describe('planRun', () => {
  const incremental = { incremental: true };
  it('runs incremental from the last run start less the overlap, on schedule, within a day of a full run', () => {
    expect(planRun(incremental, 'schedule', { any: hoursAgo(1), full: hoursAgo(5) }, now)).toEqual({
      kind: 'incremental',
      since: new Date(hoursAgo(1).getTime() - INCREMENTAL_OVERLAP_MS),
    });
  });
  it('runs full when the product cannot list changes, for setup-config, without a full run, or a day after one', () => {
    expect(planRun({ incremental: false }, 'schedule', { any: hoursAgo(1), full: hoursAgo(1) }, now)).toEqual({ kind: 'full' });
    expect(planRun(incremental, 'setup', { any: hoursAgo(1), full: hoursAgo(1) }, now)).toEqual({ kind: 'full' });
    expect(planRun(incremental, 'schedule', { any: null, full: null }, now)).toEqual({ kind: 'full' });
    expect(planRun(incremental, 'schedule', { any: hoursAgo(1), full: new Date(now - FULL_SYNC_EVERY_MS) }, now)).toEqual({ kind: 'full' });
    expect(planRun(incremental, 'schedule', { any: hoursAgo(1), full: new Date(now - FULL_SYNC_EVERY_MS + 1) }, now).kind).toBe('incremental');
  });
});
