/**
 * The dialect simulators by `hrms_id` (`hrx hrms-sim --dialect <hrms_id>`; the conformance suite
 * runs each). Each product's simulator lives in `sim/<hrms_id>/` and is listed here.
 */
import type { DialectSimFactory } from './dialect';
import { startKekaSim } from '../keka/sim/server';
import { startReferenceDialect } from '../reference/sim/index';
import { startZohoPeopleSim } from '../zoho_people/sim/server';
import { startDarwinboxDialect } from '../darwinbox/sim';
import { startBambooHrDialect } from '../bamboohr/sim';
import { startGreythrSim } from '../greythr/sim/server';
import { startPersonioSim } from '../personio/sim/server';

/** Every dialect simulator, in a stable order. */
export const DIALECT_SIMS: ReadonlyMap<string, DialectSimFactory> = new Map<string, DialectSimFactory>([
  ['reference', startReferenceDialect],
  ['keka', startKekaSim],
  ['zoho_people', startZohoPeopleSim],
  ['darwinbox', startDarwinboxDialect],
  ['bamboohr', startBambooHrDialect],
  ['greythr', startGreythrSim],
  ['personio', startPersonioSim],
]);
