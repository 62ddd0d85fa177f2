/** The `darwinbox` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { DARWINBOX_DEFINITION } from './definition';
import { DARWINBOX_MAPPING } from './mapping';
import { DARWINBOX_PRODUCT } from './product';

/** Darwinbox. */
export const product: HrmsProductModule<'darwinbox'> = {
  hrmsId: 'darwinbox',
  definition: DARWINBOX_DEFINITION,
  info: DARWINBOX_PRODUCT,
  startSim: async (options) => (await import('./sim')).startDarwinboxDialect(options),
  docsPage: 'src/hrms/darwinbox/README.md',
  docsNote: 'salaries only with the optional payroll API key',
  // One request per dataset (active, inactive), each answering the whole dataset; no token. When
  // the setup has a `payroll` api_configs entry (POST /payrollapi/ctcbreakup), one more request
  // per 500 employees.
  minSyncRequests: (sim) => 2 + (sim.setup().api_configs.some((c) => c.api_id === 'payroll') ? Math.ceil(sim.expected().length / 500) : 0),
  mapping: DARWINBOX_MAPPING,
};
