/**
 * Every product folder's `product`, in the order of `HRMS_IDS` (hrms-ids.ts, the one list). The
 * registry (registry.ts), the product table (products.ts) and the simulators (sim/dialects.ts)
 * are built from `HRMS_CATALOG`; the record below is keyed by `HrmsId`, so a folder missing from
 * it, or one the list does not name, fails the type check.
 */
import { HRMS_IDS, type HrmsId } from './hrms-ids';
import type { HrmsProductModule } from './product-module';
import { product as reference } from './reference';
import { product as keka } from './keka';
import { product as zoho_people } from './zoho_people';
import { product as greythr } from './greythr';
import { product as darwinbox } from './darwinbox';
import { product as bamboohr } from './bamboohr';
import { product as personio } from './personio';

const BY_ID: { readonly [Id in HrmsId]: HrmsProductModule<Id> } = { reference, keka, zoho_people, greythr, darwinbox, bamboohr, personio };

/** Every supported product, in `HRMS_IDS` order. */
export const HRMS_CATALOG: readonly HrmsProductModule[] = HRMS_IDS.map((id) => BY_ID[id]);
