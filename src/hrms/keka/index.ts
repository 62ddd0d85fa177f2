/** The `keka` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { KEKA_DEFINITION } from './definition';
import { KEKA_PRODUCT } from './product';

/** Keka HR. */
export const product: HrmsProductModule<'keka'> = {
  hrmsId: 'keka',
  definition: KEKA_DEFINITION,
  info: KEKA_PRODUCT,
  startSim: async (options) => (await import('./sim/server')).startKekaSim(options),
  docsPage: 'src/hrms/keka/README.md',
};
