/** The `adp_wfn` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { ADP_WFN_MAX_PAGE } from './connector';
import type { AdpWfnSim } from './sim';
import { ADP_WFN_DEFINITION } from './definition';
import { ADP_WFN_MAPPING } from './mapping';
import { ADP_WFN_PRODUCT } from './product';

/** ADP Workforce Now. */
export const product: HrmsProductModule<'adp_wfn'> = {
  hrmsId: 'adp_wfn',
  liveReadIds: 'the associate OID: letters and digits only, up to 64',
  definition: ADP_WFN_DEFINITION,
  info: ADP_WFN_PRODUCT,
  startSim: async (options) => (await import('./sim')).startAdpWfnSim(options),
  docsPage: 'src/hrms/adp_wfn/README.md',
  publishedApi: {
    file: 'openapi/rules.yaml',
    origin: 'github `adpllc/marketplace-sample-payloads`, `wfn/` (official sample requests and answers, Postman collections; no OpenAPI)',
    inRepo: 'Apache-2.0; the rules hrx checks are encoded by hand, each with its sample file and line, in `openapi/rules.yaml` (+ `SOURCE.md`)',
    operations: ['POST /auth/oauth/v2/token', 'GET /hr/v2/workers', 'GET /hr/v2/workers/{aoid}'],
  },
  // One token, then pages of at most 100 ($top) until ADP answers 204: the listing never ends on a
  // short page, so the end costs one request more. Then the first sync's pay history backfill
  // (24 months, docs/pay-history.md "Where months come from"): the payroll run listing and one
  // request per completed run read.
  minSyncRequests: (sim, pageSize) =>
    1 + Math.ceil(sim.employeeIds().length / pageSize(ADP_WFN_MAX_PAGE)) + 1 + ((sim as Partial<AdpWfnSim>).payrollRequests?.(24) ?? 1),
  mapping: ADP_WFN_MAPPING,
};
