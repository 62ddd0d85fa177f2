/** The `bamboohr` product (docs/hrms/connectors.md): `grant_type` `api_key`, the API key in `access_credentials.api_key`, no `api_configs`. */
import type { CredentialProblem, HrmsAccess, HrmsConnectorDefinition } from '../connector';
import { enumLabelProblems, optionalFieldProblems } from '../product-credentials';
import { tenantByHost } from '../tenant';
import { createBambooHrConnector } from './connector';

/** Setup-config's problems for BambooHR, in body order, each naming its field. */
function checkBambooHr(access: HrmsAccess): CredentialProblem[] {
  const problems: CredentialProblem[] = [];
  if (access.credentials.grant_type !== 'api_key') problems.push({ field: 'access_credentials.grant_type', message: 'must be api_key for bamboohr' });
  if (!access.credentials.api_key) problems.push({ field: 'access_credentials.api_key', message: 'required for bamboohr' });
  problems.push(...enumLabelProblems({ ...access, apiConfigs: [] }, 'bamboohr'));
  problems.push(...optionalFieldProblems(access, 'bamboohr'));
  access.apiConfigs.forEach((_, i) => problems.push({ field: `api_configs.${i}`, message: 'bamboohr takes no api_configs' }));
  return problems;
}

/**
 * BambooHR's definition. BambooHR publishes no numbers for its limits (only the throttling
 * signal: https://documentation.bamboohr.com/docs/planned-changes-to-the-api), so hrx keeps each
 * company domain at a conservative 60 requests a minute; a throttled answer's `Retry-After`
 * holds the whole tenant off on top. Incremental through `/v1/employees/changed`, which also
 * lists deletions.
 */
export const BAMBOOHR_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'bamboohr',
  checkCredentials: checkBambooHr,
  budget: { requests: 60, windowMs: 60_000 },
  tenantOf: tenantByHost,
  incremental: true,
  create: createBambooHrConnector,
};
