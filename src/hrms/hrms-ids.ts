/**
 * The one list of HRMS products hrx speaks: each `hrms_id` names its folder `src/hrms/<hrms_id>/`,
 * whose `index.ts` exports that product's `product` (`catalog.ts` collects them). The registry of
 * connector definitions, the product table of the Connect page and the docs, the simulators of
 * `hrx hrms-sim` and the CLI's `--dialect` choices all follow this list and its order. It imports
 * nothing, so `hrx --help` lists the dialects without loading a connector.
 * Adding a product: src/hrms/README.md, "Adding a product".
 */
export const HRMS_IDS = ['reference', 'keka', 'zoho_people', 'greythr', 'darwinbox', 'bamboohr', 'personio', 'hibob', 'adp_wfn', 'sap_sf'] as const;

/** One supported `hrms_id`. */
export type HrmsId = (typeof HRMS_IDS)[number];
