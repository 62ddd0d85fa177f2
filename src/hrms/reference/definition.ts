/**
 * The `reference` product (docs/behaviour.md "Sync", docs/hrms/connectors.md): hrx's own HRMS API, spoken by the reference
 * simulator (`src/hrms/sim/`). OAuth2 client credentials or an API key.
 */
import type { CredentialProblem, HrmsAccess, HrmsConnectorDefinition, HrmsCredentials } from '../connector';
import { enumLabelProblems, optionalFieldProblems } from '../product-credentials';
import { tenantByHost } from '../tenant';
import { createReferenceConnector } from './connector';

/** The grant-specific fields of docs/behaviour.md "Sync" for one credentials object at body path `path`; the first problem or null. */
function grantProblem(c: HrmsCredentials, path: string): CredentialProblem | null {
  if (c.grant_type === 'client_credentials') {
    if (!c.client_id) return { field: `${path}.client_id`, message: 'required for grant_type client_credentials' };
    if (!c.client_secret) return { field: `${path}.client_secret`, message: 'required for grant_type client_credentials' };
  } else if (c.grant_type === 'api_key') {
    if (!c.api_key) return { field: `${path}.api_key`, message: 'required for grant_type api_key' };
  } else {
    return { field: `${path}.grant_type`, message: 'must be client_credentials or api_key' };
  }
  return null;
}

/** The reference connector's definition: no change listing; a budget far above what the simulator serves. */
export const REFERENCE_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'reference',
  checkCredentials(access: HrmsAccess): CredentialProblem[] {
    const first =
      grantProblem(access.credentials, 'access_credentials') ??
      access.apiConfigs.map((a, i) => grantProblem(a.access_credentials, `api_configs.${i}.access_credentials`)).find(Boolean) ??
      enumLabelProblems(access, 'reference')[0] ??
      optionalFieldProblems(access, 'reference')[0] ??
      null;
    return first ? [first] : [];
  },
  budget: { requests: 6000, windowMs: 60_000 },
  tenantOf: tenantByHost,
  incremental: false,
  payroll: { source: 'GET /api/v1/payroll/months (the reference payroll API)' },
  create: createReferenceConnector,
};
