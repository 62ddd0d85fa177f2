/**
 * What each product folder (`src/hrms/<hrms_id>/index.ts`) exports as its `product`: everything
 * hrx needs of that product, so the lists built from the catalog (`catalog.ts`) never disagree.
 */
import type { HrmsConnectorDefinition } from './connector';
import type { HrmsId } from './hrms-ids';
import type { AnyMappingTable, MappingVersions } from './mapping-table';
import type { HrmsProductInfo } from './product-info';
import type { DialectSim, DialectSimFactory } from './sim/dialect';

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
  /**
   * What the repository's documentation list says after the page's link (README.md
   * "Documentation", generated), e.g. a condition on what hrx reads; empty for none.
   */
  docsNote?: string;
  /**
   * The vendor's machine-readable API description, where it publishes one (docs/hrms/connectors.md
   * "The vendor's published API is the authority"): test/integration/hrms/vendor-contract runs
   * the product against it, and docs/hrms/connectors.md's table lists it. `undefined`: the
   * product publishes none, and each request cites the vendor's documentation page instead.
   */
  publishedApi?: PublishedApiDescription;
  /**
   * The ids its live reads take, in words, where its connector takes an id only in the form the
   * product writes it (docs/hrms/connectors.md "Employee ids in live reads", whose table `npm run
   * docs` writes from this). `undefined`: the id as the HRMS lists it.
   */
  liveReadIds?: string;
  /**
   * The fewest HRMS requests (token and data) a full sync of `sim`'s employees needs, as the
   * product's paging allows: the `hrms_sync` benchmark's minimum (docs/benchmarks.md). `pageSize`
   * caps a product's largest page at the sync's (HRX_SYNC_BATCH_SIZE). `undefined`: not benched
   * (the reference HRMS).
   */
  minSyncRequests?: (sim: DialectSim, pageSize: (max: number) => number) => number | Promise<number>;
  /**
   * Its mapping as rows (src/hrms/mapping-table.ts), where the product keeps it as data:
   * `npm run docs` writes its page's "What is mapped" table from them (between the
   * `hrms-mapping` markers). `undefined`: the page's table is still hand-written.
   */
  mapping?: AnyMappingTable | MappingVersions;
}

/** A vendor's published API description as committed in the product folder (docs/hrms/connectors.md "The vendor's published API is the authority"). */
export interface PublishedApiDescription {
  /** The committed description, a path from the product folder, e.g. `openapi/public.yaml`. */
  file: string;
  /** Where the vendor publishes it (a repository, a path, the format), for the docs table. */
  origin: string;
  /** How it is in the repository (copied under which licence, or hand-encoded rules), for the docs table. */
  inRepo: string;
  /** The operations a vendor-contract run must have used (operationId, else `METHOD template`). */
  operations: readonly string[];
  /**
   * Requests the wrong-credential check may send outside the description, each with its reason;
   * every other request of the run must be described.
   */
  outsideOnWrongCredentials?: readonly string[];
}
