/** The one kit of the product simulators (`sim/<hrms_id>/`): see each module. */
export * from './http';
export * from './staff';
export * from './core';
export * from './base';
export * from './truth';
