/** The `personio` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { PERSONIO_DEFINITION } from './definition';
import { PERSONIO_PRODUCT } from './product';

/** Personio. */
export const product: HrmsProductModule<'personio'> = {
  hrmsId: 'personio',
  definition: PERSONIO_DEFINITION,
  info: PERSONIO_PRODUCT,
  startSim: async (options) => (await import('./sim/server')).startPersonioSim(options),
  docsPage: 'src/hrms/personio/README.md',
};
