/**
 * The `personio` product (docs/behaviour.md "HRMS hosts"): grant `client_credentials` with `client_id` and
 * `client_secret`; `hrms_host` = https://api.personio.de; no `api_configs`.
 *
 * Budget: 300 requests a minute, the limit Personio published for listing employees
 * (https://developer.personio.de/changelog/rate-limits-on-get-employees-endpoint-may-6-2024; 429
 * beyond it). Token requests have their own limit (60 a minute) and skip this budget. Every
 * company shares the one host, so the tenant is the host plus the client id (`tenantByClientId`). Incremental through
 * `updated_since` (v1) / `updated_at.gt` (v2); Personio's listings never show deletions, so
 * removals are found by the daily full sync (`reportsRemovals` false).
 */
import type { HrmsConnectorDefinition } from '../connector';
import { productCredentialProblems } from '../product-credentials';
import { tenantByClientId } from '../tenant';
import { createPersonioConnector } from './connector';

/** Personio's connector definition. */
export const PERSONIO_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'personio',
  checkCredentials: (access) =>
    productCredentialProblems(access, {
      hrmsId: 'personio',
      grantType: 'client_credentials',
      required: ['client_id', 'client_secret'],
      apiIds: [],
    }),
  budget: { requests: 300, windowMs: 60_000 },
  tenantOf: tenantByClientId,
  incremental: true,
  reportsRemovals: false,
  create: createPersonioConnector,
};
