/** The `zoho_people` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { ZOHO_PEOPLE_DEFINITION } from './definition';
import { ZOHO_MAPPING } from './mapping';
import { ZOHO_PEOPLE_PRODUCT } from './product';

/** Zoho People. */
export const product: HrmsProductModule<'zoho_people'> = {
  hrmsId: 'zoho_people',
  definition: ZOHO_PEOPLE_DEFINITION,
  info: ZOHO_PEOPLE_PRODUCT,
  startSim: async (options) => (await import('./sim/server')).startZohoPeopleSim(options),
  docsPage: 'src/hrms/zoho_people/README.md',
  // One token, then pages of 200, its maximum. No total: the listing ends on a short page, so an
  // exact multiple of 200 costs one more.
  minSyncRequests: (sim) => 1 + Math.floor(sim.expected().length / 200) + 1,
  mapping: ZOHO_MAPPING,
};
