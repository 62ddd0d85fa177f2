/** The `sap_sf` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { SAP_SF_MAX_PAGE } from './connector';
import { SAP_SF_DEFINITION } from './definition';
import { SAP_SF_MAPPING } from './mapping';
import { SAP_SF_PRODUCT } from './product';

/** SAP SuccessFactors Employee Central. */
export const product: HrmsProductModule<'sap_sf'> = {
  hrmsId: 'sap_sf',
  liveReadIds: 'the `personIdExternal` as listed, up to 32 characters (not blank, no spaces at its ends, no control characters)',
  definition: SAP_SF_DEFINITION,
  info: SAP_SF_PRODUCT,
  startSim: async (options) => (await import('./sim')).startSapSfSim(options),
  docsPage: 'src/hrms/sap_sf/README.md',
  publishedApi: {
    file: 'openapi/rules.yaml',
    origin:
      "SAP's Employee Central OData v2 descriptions (SAP Business Accelerator Hub, Swagger 2.0) `ECPersonalInformation.json` and `ECEmploymentInformation.json`, as kept under `docs/spec/` of github `ballerina-platform/module-ballerinax-sap.successfactors.employeecentral` and its fork `RDPerera/module-ballerinax-sap.successfactors.employeecentral`",
    inRepo: "SAP's files carry no licence of their own: hand-encoded rules, each citing its definition, in `openapi/rules.yaml` (+ `SOURCE.md`)",
    operations: ['listPerPersons', 'getPerPerson', 'GET /EmpEmployment'],
  },
  // Per page of persons: the PerPerson page and its employments (2 requests); a last page that
  // comes back empty (the count was a multiple of the page) is 1. No token.
  minSyncRequests: (sim, pageSize) => {
    const n = sim.employeeIds().length;
    const size = pageSize(SAP_SF_MAX_PAGE);
    return 2 * Math.floor(n / size) + (n % size ? 2 : 1);
  },
  mapping: SAP_SF_MAPPING,
};
