/** The `bamboohr` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { BAMBOOHR_DEFINITION } from './definition';
import { BAMBOOHR_MAPPING } from './mapping';
import { BAMBOOHR_PRODUCT } from './product';

/** BambooHR. */
export const product: HrmsProductModule<'bamboohr'> = {
  hrmsId: 'bamboohr',
  liveReadIds: 'decimal digits without a leading zero (`7`, never `007`), up to 18',
  definition: BAMBOOHR_DEFINITION,
  info: BAMBOOHR_PRODUCT,
  startSim: async (options) => (await import('./sim')).startBambooHrDialect(options),
  docsPage: 'src/hrms/bamboohr/README.md',
  publishedApi: {
    file: 'openapi/public.yaml',
    origin: 'github `BambooHR/bhr-api-php`, `specs/public.yaml` (OpenAPI 3.1)',
    inRepo: 'copied whole under its MIT licence: `openapi/public.yaml` (+ `SOURCE.md`, `LICENSE`)',
    operations: ['request-custom-report', 'get-changed-employee-ids', 'get-employee'],
  },
  // One custom report (POST /api/v1/reports/custom) answering every employee, read as a stream
  // (connector.ts); no token.
  minSyncRequests: () => 1,
  mapping: BAMBOOHR_MAPPING,
};
