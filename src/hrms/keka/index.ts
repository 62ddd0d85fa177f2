/** The `keka` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { KEKA_DEFINITION } from './definition';
import { KEKA_MAPPING } from './mapping';
import { KEKA_PRODUCT } from './product';

/** Keka HR. */
export const product: HrmsProductModule<'keka'> = {
  hrmsId: 'keka',
  definition: KEKA_DEFINITION,
  info: KEKA_PRODUCT,
  startSim: async (options) => (await import('./sim/server')).startKekaSim(options),
  docsPage: 'src/hrms/keka/README.md',
  publishedApi: {
    file: 'openapi/rules.yaml',
    origin: "Keka's OpenAPI 3.0.1 as generated into github `konfig-sdks/keka-hr-java-sdk`, `api/openapi.yaml`",
    inRepo: 'no licence granted for it: the rules hrx checks are encoded by hand, each with its line, in `openapi/rules.yaml` (+ `SOURCE.md`)',
    operations: ['Authentication_getAccessToken', 'Employees_getAll'],
  },
  // One token, then two listings (Working, Relieved), each at least one page of 200, its maximum;
  // then the payroll listing of a tenant with one pay group and no closed pay cycle (the bench's
  // simulators serve no pay months): the pay groups page and that group's pay cycles page.
  minSyncRequests: (sim) => {
    const relieved = sim.expected().filter((e) => e.status === 'Inactive').length;
    const working = sim.expected().length - relieved;
    return 1 + Math.max(1, Math.ceil(working / 200)) + Math.max(1, Math.ceil(relieved / 200)) + 2;
  },
  mapping: KEKA_MAPPING,
};
