/** The one kit of the product simulators (`src/hrms/<hrms_id>/sim/`): see each module (`assemble.ts`: the auth preamble and `dialectSim`). */
export * from './http';
export * from './staff';
export * from './core';
export * from './base';
export * from './truth';
export * from './assemble';
