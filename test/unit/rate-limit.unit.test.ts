/**
 * The rate limit's arithmetic (src/ratelimit/gcra.ts, docs/limits.md "Rate limits") and its configuration:
 * bursts, refill, batches, Retry-After rounding, and the knobs' defaults and bounds.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { gcra, gcraParams, retryAfterSeconds } from '../../src/ratelimit/gcra';

const NOW = 1_760_000_000_000_000; // µs, a 2025 wall clock: the magnitude Redis TIME gives

describe('gcraParams', () => {
  it('600 a minute is one request per 100 ms, bursts of 600', () => {
    expect(gcraParams(600, 60_000)).toEqual({ intervalUs: 100_000, limit: 600 });
  });

  it('rounds the interval up, so the limit is never exceeded', () => {
    expect(gcraParams(7, 60_000)).toEqual({ intervalUs: 8_571_429, limit: 7 });
    // More than one request per µs (the benchmarks' 10⁹ a minute): capped at one per µs.
    expect(gcraParams(1_000_000_000, 60_000)).toEqual({ intervalUs: 1, limit: 1_000_000_000 });
    expect(gcraParams(5_000_000, 1)).toEqual({ intervalUs: 1, limit: 5_000_000 });
  });

  it('refuses a limit or window below 1', () => {
    expect(() => gcraParams(0, 60_000)).toThrow(RangeError);
    expect(() => gcraParams(10, 0)).toThrow(RangeError);
    expect(() => gcraParams(1.5, 60_000)).toThrow(RangeError);
  });
});

describe('gcra', () => {
  const p = gcraParams(50, 60_000); // one per 1.2 s

  it('a fresh credential gets exactly `limit` at once, the rest are refused until one interval passed', () => {
    expect(gcra(undefined, NOW, 200, p)).toEqual({ allowed: 50, tatUs: NOW + 60_000_000, waitUs: 1_200_000 });
  });

  it('counts one at a time the same as all at once', () => {
    let tat: number | undefined;
    const allowed: number[] = [];
    for (let i = 0; i < 51; i++) {
      const r = gcra(tat, NOW, 1, p);
      tat = r.tatUs;
      allowed.push(r.allowed);
    }
    expect(allowed.slice(0, 50)).toEqual(Array(50).fill(1));
    expect(allowed[50]).toBe(0);
    expect(tat).toBe(NOW + 60_000_000);
  });

  it('refills one request per interval, and the whole burst after a full window', () => {
    const full = gcra(undefined, NOW, 50, p).tatUs;
    expect(gcra(full, NOW + 1_199_999, 5, p)).toMatchObject({ allowed: 0, waitUs: 1 });
    expect(gcra(full, NOW + 1_200_000, 5, p)).toMatchObject({ allowed: 1, waitUs: 1_200_000 });
    expect(gcra(full, NOW + 6_000_000, 9, p)).toMatchObject({ allowed: 5, waitUs: 1_200_000 });
    expect(gcra(full, NOW + 60_000_000, 60, p)).toMatchObject({ allowed: 50 });
    expect(gcra(full, NOW + 600_000_000, 60, p)).toMatchObject({ allowed: 50 });
  });

  it('no 2× burst: spending the budget just before a minute ends leaves nothing just after it', () => {
    const spent = gcra(undefined, NOW + 59_999_000, 50, p);
    expect(spent.allowed).toBe(50);
    // 2 ms later (a fixed window would have just reset): one request at most every 1.2 s.
    expect(gcra(spent.tatUs, NOW + 60_001_000, 50, p)).toMatchObject({ allowed: 0, waitUs: 1_198_000 });
  });

  it('waitUs is 0 while budget remains', () => {
    expect(gcra(undefined, NOW, 10, p)).toMatchObject({ allowed: 10, waitUs: 0 });
  });

  it('a TAT beyond the span (limit lowered since) refuses and waits until it is back in range', () => {
    const small = gcraParams(2, 60_000); // 30 s interval, 60 s span
    expect(gcra(NOW + 100_000_000, NOW, 1, small)).toEqual({ allowed: 0, tatUs: NOW + 100_000_000, waitUs: 70_000_000 });
  });

  it('n = 0 asks nothing and changes nothing', () => {
    expect(gcra(NOW + 5, NOW, 0, p)).toEqual({ allowed: 0, tatUs: NOW + 5, waitUs: 0 });
  });
});

describe('retryAfterSeconds', () => {
  it('rounds up to whole seconds, at least 1', () => {
    expect([0, 1, 999_999, 1_000_000, 1_000_001, 72_000_000].map(retryAfterSeconds)).toEqual([1, 1, 1, 1, 2, 72]);
  });
});

describe('configuration', () => {
  it('defaults to 600 a minute; 0 disables; negatives and fractions are refused', () => {
    const c = loadConfig({});
    expect([c.HRX_RATE_LIMIT_PER_MINUTE, c.HRX_RATE_LIMIT_WINDOW_MS]).toEqual([600, 60_000]);
    expect(loadConfig({ HRX_RATE_LIMIT_PER_MINUTE: '0' }).HRX_RATE_LIMIT_PER_MINUTE).toBe(0);
    expect(loadConfig({ HRX_RATE_LIMIT_WINDOW_MS: '1500' }).HRX_RATE_LIMIT_WINDOW_MS).toBe(1500);
    expect(() => loadConfig({ HRX_RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ HRX_RATE_LIMIT_PER_MINUTE: '2.5' })).toThrow(/HRX_RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ HRX_RATE_LIMIT_WINDOW_MS: '0' })).toThrow(/HRX_RATE_LIMIT_WINDOW_MS/);
  });
});
