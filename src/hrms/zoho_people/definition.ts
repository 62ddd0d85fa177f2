/**
 * The `zoho_people` product (docs/behaviour.md "HRMS hosts"): grant `refresh_token` with `client_id`,
 * `client_secret` and `api_key` = the refresh token; `hrms_host` = the data-centre host (e.g.
 * `https://people.zoho.in`); `api_configs` entry `token` = the Zoho Accounts host (default: the
 * data centre's, else `https://accounts.zoho.in`). Budget: Zoho People's threshold of 400
 * `getRecords` requests a minute (https://www.zoho.com/people/api/bulk-records.html).
 */
import type { CredentialProblem, HrmsAccess, HrmsConnectorDefinition } from '../connector';
import { productCredentialProblems } from '../product-credentials';
import { tenantByHost } from '../tenant';
import { zohoPeopleFactory } from './connector';

/**
 * The tenant of a Zoho People configuration. `hrms_host` names only the data centre, shared by
 * every Zoho organisation there, so the OAuth client is added: one Zoho organisation's
 * integration registers its own client (whether Zoho counts the threshold per organisation or
 * per client is not documented, research `?`). The client id is not a secret.
 */
export function zohoTenantOf(access: HrmsAccess): string {
  return `${tenantByHost(access)}#${access.credentials.client_id ?? ''}`;
}

/** Zoho People's connector definition: incremental through `modifiedtime` (no removals: see connector.ts). */
export const ZOHO_PEOPLE_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'zoho_people',
  checkCredentials(access: HrmsAccess): CredentialProblem[] {
    return productCredentialProblems(access, {
      hrmsId: 'zoho_people',
      grantType: 'refresh_token',
      required: ['client_id', 'client_secret', 'api_key'],
      apiIds: ['token'],
    });
  },
  budget: { requests: 400, windowMs: 60_000 },
  tenantOf: zohoTenantOf,
  incremental: true,
  reportsRemovals: false,
  create: zohoPeopleFactory,
};
