/** The `hibob` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { HIBOB_DEFINITION } from './definition';
import { HIBOB_MAPPING } from './mapping';
import { HIBOB_PRODUCT } from './product';

/** HiBob. */
export const product: HrmsProductModule<'hibob'> = {
  hrmsId: 'hibob',
  liveReadIds: 'decimal digits without a leading zero (its backend ids), up to 24',
  definition: HIBOB_DEFINITION,
  info: HIBOB_PRODUCT,
  startSim: async (options) => (await import('./sim')).startHibobSim(options),
  docsPage: 'src/hrms/hibob/README.md',
  publishedApi: {
    file: 'openapi/rules.yaml',
    origin: 'github `RuBAN-GT/hibob-sdk`, `utils/hibob-public-api.generated.yml` (OpenAPI 3.0.1, compiled from apidocs.hibob.com)',
    inRepo: 'no licence: hand-encoded rules with their lines in `openapi/rules.yaml` (+ `SOURCE.md`)',
    operations: ['POST /people/search'],
  },
  // Two searches, each the whole company in one answer read as a stream (connector.ts): the
  // active employees' ids, then every employee with `showInactive`. No token, no paging.
  minSyncRequests: () => 2,
  mapping: HIBOB_MAPPING,
};
