/**
 * `HRX_PROCESSES` / `hrx serve --processes` (docs/operations.md "Several processes on one machine"):
 * `auto` or a whole number from 1 to 999; `auto` is one process per core.
 */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { processCount } from '../../src/cli/processes';

describe('HRX_PROCESSES', () => {
  it('defaults to one process and accepts auto or 1 to 999', () => {
    expect(loadConfig({}).HRX_PROCESSES).toBe('1');
    for (const v of ['auto', '1', '2', '999']) expect(loadConfig({ HRX_PROCESSES: v }).HRX_PROCESSES).toBe(v);
  });

  it('refuses anything else, naming the variable', () => {
    for (const v of ['0', '-1', '1000', '2.5', 'all', ' 2']) {
      expect(() => loadConfig({ HRX_PROCESSES: v }), v).toThrow('Invalid configuration: HRX_PROCESSES must be auto or a whole number from 1 to 999');
    }
  });

  it('auto is one per core', () => {
    expect(processCount('auto')).toBe(availableParallelism());
    expect(processCount('3')).toBe(3);
  });
});
