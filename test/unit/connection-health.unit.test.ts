import { describe, expect, it } from 'vitest';
import { coverageShares, healthOf } from '../../src/connections/freshness';
import { settle } from '../../src/sync/health';

const ok = { status: 'succeeded' } as const;
const auth = { status: 'failed', reason: 'auth' } as const;
const down = { status: 'failed', reason: 'unavailable' } as const;

describe('settle (docs/sync.md "Connection health")', () => {
  it('a first success settles on healthy without an event; a success after healthy sends nothing', () => {
    expect(settle({ settled: null, failures: 0 }, ok)).toEqual({ settled: 'healthy', failures: 0, event: null });
    expect(settle({ settled: 'healthy', failures: 0 }, ok)).toEqual({ settled: 'healthy', failures: 0, event: null });
  });

  it('the HRMS refusing the credentials is needs_reauth at once, once', () => {
    expect(settle({ settled: 'healthy', failures: 2 }, auth)).toEqual({ settled: 'needs_reauth', failures: 0, event: 'connection.needs_reauth' });
    expect(settle({ settled: null, failures: 0 }, auth)).toEqual({ settled: 'needs_reauth', failures: 0, event: 'connection.needs_reauth' });
    expect(settle({ settled: 'needs_reauth', failures: 0 }, auth)).toEqual({ settled: 'needs_reauth', failures: 0, event: null });
  });

  it('other failures make it failing on the third in a row, and only then', () => {
    let s = settle({ settled: 'healthy', failures: 0 }, down);
    expect(s).toEqual({ settled: 'healthy', failures: 1, event: null });
    s = settle(s, down);
    expect(s).toEqual({ settled: 'healthy', failures: 2, event: null });
    s = settle(s, down);
    expect(s).toEqual({ settled: 'failing', failures: 3, event: 'connection.failing' });
    expect(settle(s, down)).toEqual({ settled: 'failing', failures: 4, event: null });
  });

  it('a success in between restarts the count', () => {
    const twice = settle(settle({ settled: 'healthy', failures: 0 }, down), down);
    const again = settle(settle(twice, ok), down);
    expect(again).toEqual({ settled: 'healthy', failures: 1, event: null });
  });

  it('back to healthy from needs_reauth or failing sends connection.healthy', () => {
    expect(settle({ settled: 'needs_reauth', failures: 0 }, ok).event).toBe('connection.healthy');
    expect(settle({ settled: 'failing', failures: 5 }, ok)).toEqual({ settled: 'healthy', failures: 0, event: 'connection.healthy' });
  });

  it('needs_reauth stays until a success, unless three other failures follow', () => {
    const s1 = settle({ settled: 'needs_reauth', failures: 0 }, down);
    expect(s1).toEqual({ settled: 'needs_reauth', failures: 1, event: null });
    expect(settle(settle(s1, down), down)).toEqual({ settled: 'failing', failures: 3, event: 'connection.failing' });
  });
});

describe('healthOf and coverageShares', () => {
  it('no HRMS configuration is not_configured whatever was stored; a configuration before its first run is syncing', () => {
    const run = (status: string) => ({ id: 'r', startedAt: new Date(0), status, kind: 'full' });
    expect(healthOf({ hrmsId: null, configValid: null, state: 'healthy', lastRun: null })).toBe('not_configured');
    expect(healthOf({ hrmsId: 'reference', configValid: true, state: null, lastRun: null })).toBe('syncing');
    expect(healthOf({ hrmsId: 'reference', configValid: true, state: 'needs_reauth', lastRun: run('failed') })).toBe('needs_reauth');
    // No stored health yet (runs from before it was kept): the configuration and the last run say it.
    expect(healthOf({ hrmsId: 'reference', configValid: false, state: null, lastRun: run('failed') })).toBe('needs_reauth');
    expect(healthOf({ hrmsId: 'reference', configValid: true, state: null, lastRun: run('succeeded') })).toBe('healthy');
  });

  it('maps only the given data points to shares 0..1; a point without a count is 0; no coverage is null', () => {
    const coverage = { employees: 8, points: { pan: 8, salary: 2, email: 0, phone: 3 } };
    expect(coverageShares(coverage, ['pan', 'salary', 'bank_account'])).toEqual({ pan: 1, salary: 0.25, bank_account: 0 });
    expect(coverageShares({ employees: 3, points: { pan: 1 } }, ['pan'])).toEqual({ pan: 0.3333 });
    expect(coverageShares({ employees: 0, points: {} }, ['pan'])).toEqual({ pan: 0 });
    expect(coverageShares(null, ['pan'])).toBeNull();
  });
});
