/** The `personio` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { PERSONIO_DEFINITION } from './definition';
import { PERSONIO_MAPPING } from './mapping';
import { PERSONIO_PRODUCT } from './product';

/** Personio. */
export const product: HrmsProductModule<'personio'> = {
  hrmsId: 'personio',
  liveReadIds: 'decimal digits without a leading zero, up to 18',
  definition: PERSONIO_DEFINITION,
  info: PERSONIO_PRODUCT,
  startSim: async (options) => (await import('./sim/server')).startPersonioSim(options),
  docsPage: 'src/hrms/personio/README.md',
  publishedApi: {
    file: 'openapi/rules.yaml',
    origin: 'github `personio/api-docs`, `personio-auth-api.yaml`, `personio-personnel-data-api-oa3.yaml` (OpenAPI 3.0)',
    inRepo: 'no licence: hand-encoded rules with their lines in `openapi/rules.yaml` (+ `SOURCE.md`)',
    operations: ['POST /auth', 'GET /company/employees', 'GET /company/employees/{employee_id}'],
    // Credentials v1 refuses are tried on Personio's API v2 (README.md), which these v1
    // description files do not cover.
    outsideOnWrongCredentials: ['POST /v2/auth/token: no operation in the description'],
  },
  // The simulator's default (`api` both): a v1 token, then v1 `limit`/`offset` pages of at most
  // 100 (v1.ts); `metadata.total_pages` ends the listing on its last page.
  minSyncRequests: (sim, pageSize) => 1 + Math.max(1, Math.ceil(sim.expected().length / pageSize(100))),
  mapping: PERSONIO_MAPPING,
};
