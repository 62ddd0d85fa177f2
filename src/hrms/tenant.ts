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
