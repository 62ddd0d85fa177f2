/** How connectors name the HRMS tenant their credentials address (the scope of its shared request budget, docs/behaviour.md "Live reads and the HRMS budget"). */
import type { HrmsAccess } from './connector';

/**
 * The tenant as the origin of `hrms_host` (scheme, lower-cased host, port), e.g.
 * `https://acme.hrms.example`: every org configured on one HRMS host shares one budget. A host that
 * does not parse is used as given (the connector refuses it before any request).
 */
export function tenantByHost(access: HrmsAccess): string {
  try {
    return new URL(access.credentials.hrms_host).origin;
  } catch {
    return access.credentials.hrms_host;
  }
}

/**
 * The tenant on a host every company shares (one API address for all, such as a vendor's single
 * `api.<vendor>.com`): the host's origin plus the credentials' `client_id`, which names the
 * company (docs/behaviour.md "Live reads and the HRMS budget": one company's syncs never spend
 * another's budget). The id is not a secret; the budget store hashes the tenant into its key.
 */
export function tenantByClientId(access: HrmsAccess): string {
  return `${tenantByHost(access)}#${access.credentials.client_id ?? ''}`;
}
