/**
 * What each product folder (`src/hrms/<hrms_id>/index.ts`) exports as its `product`: everything
 * hrx needs of that product, so the lists built from the catalog (`catalog.ts`) never disagree.
 */
import type { HrmsConnectorDefinition } from './connector';
import type { HrmsId } from './hrms-ids';
import type { HrmsProductInfo } from './product-info';
import type { DialectSimFactory } from './sim/dialect';

/** One HRMS product, as its folder exports it. */
export interface HrmsProductModule<Id extends HrmsId = HrmsId> {
  hrmsId: Id;
  /** Its connector definition: credential checks, budget, tenant, incremental, `create` (the connector factory). */
  definition: HrmsConnectorDefinition;
  /** What the Connect page, the README and the OpenAPI descriptions show of it. */
  info: HrmsProductInfo;
  /**
   * Starts its simulator (`hrx hrms-sim --dialect <hrms_id>`, the conformance suite). The folder
   * loads its `sim/` only when called, so serving and syncing never load a simulator.
   */
  startSim: DialectSimFactory;
  /** Its users' page, a path from the repository root (`src/hrms/<hrms_id>/README.md`); none for the reference HRMS. */
  docsPage?: string;
}
