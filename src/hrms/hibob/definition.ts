/**
 * The `hibob` product (src/hrms/hibob/README.md): `grant_type` `basic`, the service user's id in
 * `access_credentials.client_id` and its token in `client_secret`; `hrms_host` =
 * https://api.hibob.com (or https://api.sandbox.hibob.com); no `api_configs`.
 *
 * Budget: 50 requests a minute, the limit HiBob publishes for `POST /v1/people/search`
 * (https://apidocs.hibob.com/docs/rate-limit; 429 beyond it). Every company shares the one API
 * host, so the tenant is the host plus the service user id (`tenantByClientId`). The search filters by
 * id or e-mail only, never by change time: no incremental listing, every sync is full and finds
 * removals itself.
 */
import type { HrmsConnectorDefinition } from '../connector';
import { productCredentialProblems } from '../product-credentials';
import { tenantByClientId } from '../tenant';
import { createHibobConnector } from './connector';

/** HiBob's connector definition. */
export const HIBOB_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'hibob',
  checkCredentials: (access) =>
    productCredentialProblems(access, { hrmsId: 'hibob', grantType: 'basic', required: ['client_id', 'client_secret'], apiIds: [] }),
  budget: { requests: 50, windowMs: 60_000 },
  tenantOf: tenantByClientId,
  incremental: false,
  create: createHibobConnector,
};
