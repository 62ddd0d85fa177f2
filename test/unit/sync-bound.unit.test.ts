/**
 * The bound of one sync run (src/sync/bound.ts, docs/behaviour.md "Sync"): the settings and their
 * derived page default, and the counting that refuses the page crossing either bound.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, syncBounds } from '../../src/config';
import { createRunBound, SyncBoundError } from '../../src/sync/bound';

const page = (employees: number, removed = 0) => ({
  employees: Array.from({ length: employees }, (_, i) => ({ employeeId: `E${i}` })),
  ...(removed ? { removedIds: Array.from({ length: removed }, (_, i) => `R${i}`) } : {}),
});

describe('sync bound settings', () => {
  it('default to a million employees and pages derived from them and the page size', () => {
    expect(syncBounds(loadConfig({}))).toEqual({ maxEmployees: 1_000_000, maxPages: 100_100 });
    expect(syncBounds(loadConfig({ HRX_SYNC_BATCH_SIZE: '5' }))).toEqual({ maxEmployees: 1_000_000, maxPages: 200_100 });
    expect(syncBounds(loadConfig({ HRX_SYNC_MAX_EMPLOYEES: '1000', HRX_SYNC_MAX_PAGES: '7' }))).toEqual({ maxEmployees: 1000, maxPages: 7 });
  });

  it('refuse a bound below one, naming the setting', () => {
    expect(() => loadConfig({ HRX_SYNC_MAX_EMPLOYEES: '0' })).toThrow(/HRX_SYNC_MAX_EMPLOYEES/);
    expect(() => loadConfig({ HRX_SYNC_MAX_PAGES: '0' })).toThrow(/HRX_SYNC_MAX_PAGES/);
  });
});

describe('createRunBound', () => {
  it('admits exactly the bound of employees; the page crossing it is refused whole', () => {
    const bound = createRunBound({ maxPages: 100, maxEmployees: 25 });
    bound.admit(page(10));
    bound.admit(page(10));
    expect(() => bound.admit(page(6))).toThrow(new SyncBoundError('the HRMS lists more than 25 employees (HRX_SYNC_MAX_EMPLOYEES)'));
    const exact = createRunBound({ maxPages: 100, maxEmployees: 25 });
    exact.admit(page(20));
    expect(() => exact.admit(page(5))).not.toThrow();
  });

  it('counts employees reported removed, and empty pages against the page bound', () => {
    const removals = createRunBound({ maxPages: 100, maxEmployees: 5 });
    expect(() => removals.admit(page(3, 3))).toThrow(SyncBoundError);
    const empty = createRunBound({ maxPages: 2, maxEmployees: 5 });
    empty.admit(page(0));
    empty.admit(page(0));
    expect(() => empty.admit(page(0))).toThrow(new SyncBoundError('the HRMS listing is longer than 2 pages (HRX_SYNC_MAX_PAGES)'));
  });

  it('admits everything without bounds', () => {
    const none = createRunBound(undefined);
    for (let i = 0; i < 1000; i++) none.admit(page(1000));
  });
});
