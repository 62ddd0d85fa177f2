/**
 * The `grant_type`s of setup-config's `access_credentials` (docs/hrms/connectors.md, docs/api.md
 * "Setup config"): how a product's credentials are presented to its HRMS. Every product names one
 * (`HrmsProductInfo.grantType`); code that treats credentials by their grant type (setup's
 * credential digest) switches on this union exhaustively, so a product bringing a new grant type
 * adds it here and `tsc` names every place that must learn it.
 */

/** Every grant type a product speaks. */
export const GRANT_TYPES = [
  /** OAuth 2.0 client credentials (RFC 6749 §4.4): `client_id`, `client_secret`. */
  'client_credentials',
  /** One API key: `api_key`. */
  'api_key',
  /** OAuth 2.0 refresh token (RFC 6749 §6): `client_id`, `client_secret`, the refresh token in `api_key`. */
  'refresh_token',
  /** A vendor's own token grant with an API key besides the client: `client_id`, `client_secret`, `api_key`. */
  'kekaapi',
  /** HTTP Basic (RFC 7617) user and password in `client_id` and `client_secret`, plus an `api_key`. */
  'basic',
  /**
   * OAuth 2.0 with a SAML 2.0 bearer assertion the client signs (RFC 7522): the signing key (PEM)
   * in `client_secret`, the other parts as the product's page says (SAP SuccessFactors).
   */
  'saml2_bearer',
] as const;

/** One grant type. */
export type GrantType = (typeof GRANT_TYPES)[number];

/** Whether `v` (setup-config's `grant_type`, any text) is a grant type a product speaks. */
export const isGrantType = (v: string): v is GrantType => (GRANT_TYPES as readonly string[]).includes(v);

/** For an exhaustive `switch` over a union: a case left out fails `tsc` here. */
export function unreachable(v: never): never {
  throw new Error(`unhandled case ${String(v)}`);
}
