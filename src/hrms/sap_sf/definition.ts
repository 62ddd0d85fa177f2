/**
 * The `sap_sf` product (src/hrms/sap_sf/README.md "Signing in"), two grant types:
 * - `basic`: the company ID in `access_credentials.client_id`, the API user name in `api_key` and
 *   its password in `client_secret` (sent as HTTP Basic `<api_key>@<client_id>:<client_secret>`),
 *   no `api_configs`.
 * - `saml2_bearer` (OAuth 2.0 with a SAML bearer assertion, oauth.ts): the company ID in
 *   `client_id`, the SuccessFactors user ID in `api_key`, the OAuth client's private key (PEM,
 *   RSA of at least 2048 bits) in `client_secret`, and the `api_configs` entry `oauth` whose
 *   `client_id` is the OAuth client's API key (its `hrms_host` the token server, default the API server).
 */
import type { CredentialProblem, HrmsAccess, HrmsConnectorDefinition } from '../connector';
import { grantRuleProblems } from '../product-credentials';
import { tenantByClientId } from '../tenant';
import { createSapSfConnector } from './connector';
import { OAUTH_API_ID, samlSigningKey } from './oauth';

/** Setup-config's problems for SAP SuccessFactors, in body order, each naming its field and never quoting a value. */
function checkSapSf(access: HrmsAccess): CredentialProblem[] {
  const required = ['client_id', 'api_key', 'client_secret'] as const;
  const problems = grantRuleProblems(access, [
    { hrmsId: 'sap_sf', grantType: 'basic', required, apiIds: [] },
    { hrmsId: 'sap_sf', grantType: 'saml2_bearer', required, apiIds: [OAUTH_API_ID] },
  ]);
  if (access.credentials.grant_type !== 'saml2_bearer') return problems;
  const pem = access.credentials.client_secret;
  const key = pem?.trim() ? samlSigningKey(pem) : undefined;
  if (typeof key === 'string') problems.push({ field: 'access_credentials.client_secret', message: `${key} (the OAuth client's private key)` });
  const i = access.apiConfigs.findIndex((a) => a.api_id === OAUTH_API_ID);
  if (i < 0)
    problems.push({
      field: 'api_configs',
      message: `needs an ${OAUTH_API_ID} entry (its access_credentials.client_id is the API key) for grant_type saml2_bearer`,
    });
  else if (!access.apiConfigs[i]!.access_credentials.client_id?.trim()) {
    problems.push({ field: `api_configs.${i}.access_credentials.client_id`, message: 'required for sap_sf (the API key of the OAuth client application)' });
  }
  return problems;
}

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
  checkCredentials: checkSapSf,
  budget: { requests: 60, windowMs: 60_000 },
  tenantOf: tenantByClientId,
  incremental: true,
  reportsRemovals: false,
  create: createSapSfConnector,
};
