/**
 * The dialect simulators by `hrms_id` (`hrx hrms-sim --dialect <hrms_id>`; the conformance suite
 * runs each): each product folder's `product.startSim` (its simulator lives in
 * `src/hrms/<hrms_id>/sim/` and is loaded when started), in the catalog's order.
 */
import { HRMS_CATALOG } from '../catalog';
import type { DialectSimFactory } from './dialect';

/** Every dialect simulator, in a stable order. */
export const DIALECT_SIMS: ReadonlyMap<string, DialectSimFactory> = new Map(HRMS_CATALOG.map((p) => [p.hrmsId, p.startSim]));
