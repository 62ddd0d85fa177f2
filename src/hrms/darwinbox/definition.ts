/**
 * The `darwinbox` product (docs/hrms/connectors.md): Basic auth (API user and password) plus `api_key`, and
 * the datasets in `api_configs` (`employees_active` required, `employees_inactive` optional), each
 * entry's `access_credentials.api_key` being that dataset's `datasetKey`; optionally `payroll`,
 * whose `api_key` is the payroll API key that salaries are read with (`payroll.ts`).
 */
import type { CredentialProblem, HrmsAccess, HrmsConnectorDefinition } from '../connector';
import { enumLabelProblems, optionalFieldProblems } from '../product-credentials';
import { tenantByHost } from '../tenant';
import { createDarwinboxConnector, DARWINBOX_DATASETS, DARWINBOX_PAYROLL } from './connector';

const REQUIRED = 'required for darwinbox';

/** Setup-config's problems for Darwinbox, in body order, each naming its field. */
function checkDarwinbox(access: HrmsAccess): CredentialProblem[] {
  const c = access.credentials;
  const problems: CredentialProblem[] = [];
  if (c.grant_type !== 'basic') problems.push({ field: 'access_credentials.grant_type', message: 'must be basic for darwinbox' });
  if (!c.client_id) problems.push({ field: 'access_credentials.client_id', message: `${REQUIRED} (the API user)` });
  if (!c.client_secret) problems.push({ field: 'access_credentials.client_secret', message: `${REQUIRED} (the API user's password)` });
  if (!c.api_key) problems.push({ field: 'access_credentials.api_key', message: REQUIRED });
  problems.push(...enumLabelProblems(access, 'darwinbox'));
  problems.push(...optionalFieldProblems(access, 'darwinbox'));
  access.apiConfigs.forEach((a, i) => {
    const payroll = a.api_id === DARWINBOX_PAYROLL;
    if (!payroll && !(DARWINBOX_DATASETS as readonly string[]).includes(a.api_id)) {
      problems.push({ field: `api_configs.${i}.api_id`, message: 'must be employees_active, employees_inactive or payroll for darwinbox' });
    } else if (access.apiConfigs.findIndex((b) => b.api_id === a.api_id) < i) {
      problems.push({ field: `api_configs.${i}.api_id`, message: `${a.api_id} given twice` });
    } else if (!a.access_credentials.api_key) {
      problems.push({ field: `api_configs.${i}.access_credentials.api_key`, message: `${REQUIRED} (${payroll ? 'the payroll API key' : 'the dataset key'})` });
    }
  });
  if (!access.apiConfigs.some((a) => a.api_id === 'employees_active')) {
    problems.push({ field: 'api_configs', message: 'needs an employees_active entry (its access_credentials.api_key is the dataset key) for darwinbox' });
  }
  return problems;
}

/**
 * Darwinbox's definition. Darwinbox publishes no request limit (research `?`). One sync makes one
 * request per dataset (each answering the whole dataset) plus, with a payroll key, one ctcbreakup
 * request per 500 employees: 60 requests a minute per tenant (one a second) lets a 20,000-employee
 * tenant's full sync (2 + 40 requests) run without waiting while every org of the tenant still
 * syncs and reads live in the same minute, and stays far below what any API with a published limit
 * in this product family allows (Zoho People 400/min). 20 a minute (before salaries) made a
 * 50,000-employee sync wait 5 minutes, its dataset answer held open meanwhile.
 * Incremental through `last_modified`; removals only through the daily full sync.
 */
export const DARWINBOX_DEFINITION: HrmsConnectorDefinition = {
  hrmsId: 'darwinbox',
  checkCredentials: checkDarwinbox,
  budget: { requests: 60, windowMs: 60_000 },
  tenantOf: tenantByHost,
  incremental: true,
  reportsRemovals: false,
  create: createDarwinboxConnector,
};
