/** The `darwinbox` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { DARWINBOX_DEFINITION } from './definition';
import { DARWINBOX_PRODUCT } from './product';

/** Darwinbox. */
export const product: HrmsProductModule<'darwinbox'> = {
  hrmsId: 'darwinbox',
  definition: DARWINBOX_DEFINITION,
  info: DARWINBOX_PRODUCT,
  startSim: async (options) => (await import('./sim')).startDarwinboxDialect(options),
  docsPage: 'src/hrms/darwinbox/README.md',
};
