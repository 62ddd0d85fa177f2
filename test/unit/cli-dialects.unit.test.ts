/**
 * `hrx hrms-sim --dialect` lists its allowed values without loading the simulators (src/cli/long.ts
 * SIM_DIALECTS, the one list src/hrms/hrms-ids.ts); they must be exactly the simulators src/hrms/sim/dialects.ts starts.
 */
import { describe, expect, it } from 'vitest';
import { SIM_DIALECTS } from '../../src/cli/long';
import { DIALECT_SIMS } from '../../src/hrms/sim/dialects';

describe('hrx hrms-sim --dialect', () => {
  it('allows exactly the dialect simulators, in their order', () => {
    expect(SIM_DIALECTS).toEqual([...DIALECT_SIMS.keys()]);
  });
});
