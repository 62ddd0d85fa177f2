/** The `greythr` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { GREYTHR_DEFINITION } from './definition';
import { GREYTHR_PRODUCT } from './product';

/** greytHR. */
export const product: HrmsProductModule<'greythr'> = {
  hrmsId: 'greythr',
  definition: GREYTHR_DEFINITION,
  info: GREYTHR_PRODUCT,
  startSim: async (options) => (await import('./sim/server')).startGreythrSim(options),
  docsPage: 'src/hrms/greythr/README.md',
};
