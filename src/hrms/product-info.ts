/**
 * The shape of a supported HRMS product's entry (`products.ts` lists them): its own module so
 * each product folder's `product.ts` can use it without importing the list that imports it.
 */
import type { GrantType } from './grant-types';

/**
 * Where a field's value goes in the setup-config body (docs/api.md "Setup config"):
 * a key of `access_credentials`, or `api_configs.<api_id>.<key>` for an `api_configs` entry
 * (whose `hrms_host` defaults to the main `hrms_host` when the product has no field for it).
 */
export type HrmsFieldTarget =
  | 'hrms_host'
  | 'client_id'
  | 'client_secret'
  | 'api_key'
  | 'tls_client_cert'
  | 'tls_client_key'
  | 'payroll_currency'
  | `api_configs.${string}.${'hrms_host' | 'client_id' | 'client_secret' | 'api_key'}`;

/** One input of the product's form. */
export interface HrmsFieldInfo {
  /** Where the value goes in the setup-config body. */
  target: HrmsFieldTarget;
  /** The product's own words for it, e.g. "Refresh token" (Zoho People), "Dataset key" (Darwinbox). */
  label: string;
  /** Where the employer finds it in the product's admin screens; plain words, one or two sentences. */
  help: string;
  required: boolean;
  /** A secret: entered in a password field, never shown back. */
  secret: boolean;
  /** Example value, e.g. `https://acme.hrms.example`. */
  placeholder?: string;
  /**
   * A value of several lines, pasted whole (a PEM certificate or key): a text area, its line
   * breaks kept. A secret one is emptied once sent, as a password field is.
   */
  multiline?: boolean;
}

/** Another way of signing in a product offers: its own `grant_type` and fields (docs/hrms/connectors.md). */
export interface HrmsGrantChoice {
  grantType: GrantType;
  /** The product's words for it, e.g. "OAuth 2.0 with a SAML assertion" (SAP SuccessFactors). */
  label: string;
  fields: readonly HrmsFieldInfo[];
}

/** A supported HRMS product (docs/hrms/connectors.md). */
export interface HrmsProductInfo {
  /** The `hrms_id` of setup-config, as `HRMS_IDS` (hrms-ids.ts) names it. */
  hrmsId: string;
  /** The product's name as its users know it, e.g. "Zoho People". */
  displayName: string;
  /** The `grant_type` every setup-config for this product carries (docs/hrms/connectors.md). */
  grantType: GrantType;
  fields: readonly HrmsFieldInfo[];
  /** The product's words for the sign-in of `grantType` and `fields`; given when it offers others. */
  grantLabel?: string;
  /** The other sign-ins it offers (absent: only `grantType`); the Connect page lets the employer choose. */
  otherGrants?: readonly HrmsGrantChoice[];
}
