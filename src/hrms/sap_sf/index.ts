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
  // Per page of persons: the PerPerson page and its employments (2 requests). Snapshot paging
  // answers no `__next` on the last page, so no empty page follows; no persons at all is the one
  // empty PerPerson page (no employments to ask). No token.
  minSyncRequests: (sim, pageSize) => {
    const n = sim.employeeIds().length;
    return n === 0 ? 1 : 2 * Math.ceil(n / pageSize(SAP_SF_MAX_PAGE));
  },
  mapping: SAP_SF_MAPPING,
};
