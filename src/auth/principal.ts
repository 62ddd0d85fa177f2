/**
 * Who is calling, as resolved from a credential (decisions §2). A plain value type, so services
 * can take it without knowing anything of HTTP.
 */
export interface Principal {
  orgId: number;
  orgUuid: string;
  isVendor: boolean;
  isClient: boolean;
  /** Id of the API key or Basic credential used (for rate limits and audit). */
  credentialId: string;
}
