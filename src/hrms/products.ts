/**
 * What a person needs to know of each supported HRMS product: its display name and the fields an
 * employer enters for it (which credential goes in which setup-config field). One table shared by
 * the Connect page's HRMS step, the docs and the OpenAPI descriptions, built from each product
 * folder's `product.info` (catalog.ts).
 */
import { HRMS_CATALOG } from './catalog';
import type { HrmsProductInfo } from './product-info';

export type { HrmsFieldInfo, HrmsFieldTarget, HrmsProductInfo } from './product-info';

/** Every supported product, in the order the Connect page lists them. */
export const HRMS_PRODUCTS: readonly HrmsProductInfo[] = HRMS_CATALOG.map((p) => p.info);

/** The product of `hrmsId`, or `undefined`. */
export function hrmsProduct(hrmsId: string): HrmsProductInfo | undefined {
  return HRMS_PRODUCTS.find((p) => p.hrmsId === hrmsId);
}
