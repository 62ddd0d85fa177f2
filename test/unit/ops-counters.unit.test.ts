/** The sync-run duration buckets of `/metrics` (src/ops/counters.ts): Prometheus's `le` is "less or equal". */
import { describe, expect, it } from 'vitest';
import { bucketIndex, SYNC_DURATION_BUCKETS } from '../../src/ops/counters';

describe('bucketIndex', () => {
  it("puts a duration equal to a bound in that bound's bucket, and one just above it in the next", () => {
    SYNC_DURATION_BUCKETS.forEach((b, i) => {
      expect(bucketIndex(b)).toBe(i);
      expect(bucketIndex(b + 0.001)).toBe(i + 1);
    });
  });

  it('puts zero and sub-second runs in the first bucket, and runs above every bound past the last', () => {
    expect(bucketIndex(0)).toBe(0);
    expect(bucketIndex(0.5)).toBe(0);
    expect(bucketIndex(10_800.001)).toBe(SYNC_DURATION_BUCKETS.length);
    expect(bucketIndex(1e9)).toBe(SYNC_DURATION_BUCKETS.length);
  });
});
