/** The `reference` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { REFERENCE_DEFINITION } from './definition';
import { REFERENCE_PRODUCT } from './product';

/** hrx's own HRMS API, spoken by the reference simulator. */
export const product: HrmsProductModule<'reference'> = {
  hrmsId: 'reference',
  definition: REFERENCE_DEFINITION,
  info: REFERENCE_PRODUCT,
  startSim: async (options) => (await import('./sim')).startReferenceDialect(options),
};
