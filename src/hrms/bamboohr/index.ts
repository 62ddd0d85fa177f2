/** The `bamboohr` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { BAMBOOHR_DEFINITION } from './definition';
import { BAMBOOHR_PRODUCT } from './product';

/** BambooHR. */
export const product: HrmsProductModule<'bamboohr'> = {
  hrmsId: 'bamboohr',
  definition: BAMBOOHR_DEFINITION,
  info: BAMBOOHR_PRODUCT,
  startSim: async (options) => (await import('./sim')).startBambooHrDialect(options),
  docsPage: 'src/hrms/bamboohr/README.md',
};
