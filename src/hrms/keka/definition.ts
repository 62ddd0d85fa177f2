/**
 * The `keka` product (docs/behaviour.md "HRMS hosts"): grant `kekaapi` with `client_id`, `client_secret` and
 * `api_key`; `hrms_host` = `https://{company}.keka.com`; `api_configs` entry `token` = the token
 * host (default `https://login.keka.com`); optional `access_credentials.enum_labels`: the label
 * tables of Keka's numeric enumerations (mapping.ts `kekaEnumLabelProblems`). Budget: Keka's published 50 requests a minute per
 * tenant (https://developers.keka.com/reference/rate-limit); the tenant is the company host.
 */
import type { CredentialProblem, HrmsAccess, HrmsConnectorDefinition } from '../connector';
import { tenantByHost } from '../tenant';
import { productCredentialProblems } from '../product-credentials';
import { kekaFactory } from './connector';
import { kekaEnumLabelProblems } from './mapping';

/** Keka's connector definition: incremental through `lastModified` (no removals: see connector.ts). */
export const KEKA_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'keka',
  checkCredentials(access: HrmsAccess): CredentialProblem[] {
    return productCredentialProblems(access, {
      hrmsId: 'keka',
      grantType: 'kekaapi',
      required: ['client_id', 'client_secret', 'api_key'],
      apiIds: ['token'],
      enumLabelProblems: kekaEnumLabelProblems,
    });
  },
  budget: { requests: 50, windowMs: 60_000 },
  tenantOf: tenantByHost,
  incremental: true,
  reportsRemovals: false,
  payroll: { source: 'Keka pay register (GET /payroll/paygroups/{payGroupId}/paycycles/{payCycleId}/payregister)' },
  create: kekaFactory,
};
