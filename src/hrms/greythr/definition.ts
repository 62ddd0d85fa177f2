/**
 * The `greythr` product (docs/behaviour.md "HRMS hosts"): grant `client_credentials` with `client_id` = the API user
 * and `client_secret` = its password; `hrms_host` = `https://{tenant}.greythr.com` (the token host,
 * and the `x-greythr-domain` value); `api_configs` entry `api` = the data API's host (default
 * https://api.greythr.com).
 *
 * Budget: greytHR publishes no request limit (the sources in src/hrms/greythr/README.md; clients retry 429 with backoff), so hrx
 * keeps each tenant to 240 requests a minute (four a second, token requests included), below the
 * 300 a minute Personio publishes for the same kind of listing and Zoho People's 400; a 429 is
 * waited out (its `Retry-After` when sent). A full sync of 10,000 employees (8 list endpoints,
 * 200 a page) needs about 410 requests, under two minutes. The tenant is the tenant host. Not
 * incremental: greytHR has no change listing (the sources in src/hrms/greythr/README.md: `lastModified` is on the record, no
 * filter was seen).
 */
import type { HrmsConnectorDefinition } from '../connector';
import { productCredentialProblems } from '../product-credentials';
import { tenantByHost } from '../tenant';
import { createGreythrConnector } from './connector';

/** greytHR's connector definition. */
export const GREYTHR_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'greythr',
  checkCredentials: (access) =>
    productCredentialProblems(access, {
      hrmsId: 'greythr',
      grantType: 'client_credentials',
      required: ['client_id', 'client_secret'],
      apiIds: ['api'],
    }),
  budget: { requests: 240, windowMs: 60_000 },
  tenantOf: tenantByHost,
  incremental: false,
  create: createGreythrConnector,
};
