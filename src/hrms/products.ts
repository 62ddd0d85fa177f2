/**
 * What a person needs to know of each supported HRMS product: its display name and the fields an
 * employer enters for it (decisions §14's table: which credential goes in which setup-config
 * field). One table shared by the Connect page's HRMS step, the docs and the OpenAPI
 * descriptions; each connector folder contributes its entry (issue 8.7, issue 12.3).
 */
import { KEKA_PRODUCT } from './keka/product';
import { ZOHO_PEOPLE_PRODUCT } from './zoho_people/product';
import { DARWINBOX_PRODUCT } from './darwinbox/product';
import { BAMBOOHR_PRODUCT } from './bamboohr/product';
import { GREYTHR_PRODUCT } from './greythr/product';
import { PERSONIO_PRODUCT } from './personio/product';
import type { HrmsProductInfo } from './product-info';

export type { HrmsFieldInfo, HrmsFieldTarget, HrmsProductInfo } from './product-info';

const HOST_HELP = 'The address you open to sign in to your HRMS.';

/** The reference HRMS (decisions §5): hrx's own simulator API, for trials and tests. */
const REFERENCE: HrmsProductInfo = {
  hrmsId: 'reference',
  displayName: 'Reference HRMS (test)',
  grantType: 'client_credentials',
  fields: [
    { target: 'hrms_host', label: 'HRMS address', help: HOST_HELP, required: true, secret: false, placeholder: 'https://hrms.example.com' },
    { target: 'client_id', label: 'Client ID', help: 'The API client created for hrx in the HRMS.', required: true, secret: false },
    { target: 'client_secret', label: 'Client secret', help: 'The secret shown when that API client was created.', required: true, secret: true },
  ],
};

/** Every supported product, in the order the Connect page lists them. */
export const HRMS_PRODUCTS: readonly HrmsProductInfo[] = [
  REFERENCE,
  KEKA_PRODUCT,
  ZOHO_PEOPLE_PRODUCT,
  GREYTHR_PRODUCT,
  DARWINBOX_PRODUCT,
  BAMBOOHR_PRODUCT,
  PERSONIO_PRODUCT,
];

/** The product of `hrmsId`, or `undefined`. */
export function hrmsProduct(hrmsId: string): HrmsProductInfo | undefined {
  return HRMS_PRODUCTS.find((p) => p.hrmsId === hrmsId);
}
