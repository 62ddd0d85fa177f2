/**
 * The `adp_wfn` product (src/hrms/adp_wfn/README.md): grant `client_credentials` with `client_id` and
 * `client_secret`; `hrms_host` = https://api.adp.com (every company's API address); `api_configs`
 * entry `token` (optional) = the token host, default https://accounts.adp.com.
 *
 * Budget: ADP publishes no request limit in its samples, so hrx keeps its own 60 a minute (as for
 * the other products without one); a 429 is waited out (`Retry-After` when sent). Every company
 * shares the one API host, so the tenant is the host plus the client id (`tenantByClientId`).
 * The samples show no change-time filter on `GET /hr/v2/workers`: full syncs only, which find
 * removed workers themselves. Pay history: the Payroll Output API's completed runs (README.md
 * "Pay history"); `access_credentials.payroll_currency` `INR` (or the older `api_configs` entry
 * `payroll_inr`) declares the payroll paid in rupees. Mutual TLS: `tls_client_cert` and
 * `tls_client_key` (optional, checked by src/hrms/tls-client.ts; README.md "Mutual TLS").
 */
import type { CredentialProblem, HrmsConnectorDefinition } from '../connector';
import { productCredentialProblems } from '../product-credentials';
import { tenantByClientId } from '../tenant';
import { ADP_PAYROLL_INR, createAdpWfnConnector } from './connector';

/** ADP Workforce Now's connector definition. */
export const ADP_WFN_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'adp_wfn',
  checkCredentials: (access) => [
    ...productCredentialProblems(access, {
      hrmsId: 'adp_wfn',
      grantType: 'client_credentials',
      required: ['client_id', 'client_secret'],
      apiIds: ['token', ADP_PAYROLL_INR],
      optional: ['tls_client_cert', 'tls_client_key', 'payroll_currency'],
    }),
    ...payrollCurrencyProblems(access.credentials.payroll_currency),
  ],
  budget: { requests: 60, windowMs: 60_000 },
  tenantOf: tenantByClientId,
  incremental: false,
  payroll: { source: 'ADP Payroll Output API v2 (GET /payroll/v2/payroll-output, then ?level=pay per completed run)' },
  create: createAdpWfnConnector,
};

/**
 * The problems of `payroll_currency` (README.md "Pay history"): blank or `INR` (any case). ADP's
 * answers carry no currency and hrx stores pay only in rupees, so another currency is refused
 * rather than stored as rupees (docs/hrms/connectors.md "Values keep their meaning").
 */
export function payrollCurrencyProblems(currency: string | undefined): CredentialProblem[] {
  const c = currency?.trim() ?? '';
  if (c === '' || c.toUpperCase() === 'INR') return [];
  return [{ field: 'access_credentials.payroll_currency', message: 'must be INR: hrx stores pay amounts only in rupees' }];
}
