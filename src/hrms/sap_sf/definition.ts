/**
 * The `sap_sf` product (src/hrms/sap_sf/README.md): `grant_type` `basic`, the company ID in
 * `access_credentials.client_id`, the API user name in `api_key` and its password in
 * `client_secret` (sent as HTTP Basic `<api_key>@<client_id>:<client_secret>`), no `api_configs`.
 */
import type { HrmsConnectorDefinition } from '../connector';
import { productCredentialProblems } from '../product-credentials';
import { tenantByClientId } from '../tenant';
import { createSapSfConnector } from './connector';

/**
 * SAP SuccessFactors' definition. SAP publishes no fixed request rate for the OData API (a
 * throttled request is answered 429 with `Retry-After`), so hrx keeps each company at a
 * conservative 60 requests a minute (README "Rate limit"). One data-centre host (such as
 * `api4.successfactors.com`) serves many companies: the budget is scoped by host and company ID
 * (`tenantByClientId`). Incremental through the `lastModifiedDateTime` of each entity hrx reads
 * (connector.ts); a deleted person is in none of those lists, so removals wait for the next full
 * sync.
 */
export const SAP_SF_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'sap_sf',
  checkCredentials: (access) =>
    productCredentialProblems(access, { hrmsId: 'sap_sf', grantType: 'basic', required: ['client_id', 'api_key', 'client_secret'], apiIds: [] }),
  budget: { requests: 60, windowMs: 60_000 },
  tenantOf: tenantByClientId,
  incremental: true,
  reportsRemovals: false,
  create: createSapSfConnector,
};
