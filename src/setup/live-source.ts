/**
 * `source=hrms` reads (decisions §7): one employee fetched live through the client org's stored
 * HRMS configuration and connector.
 */
import type { ConnectorLookup } from '../hrms/registry';
import type { HrmsSource } from '../hrms/live-source';
import type { HrmsConfigStore } from './store';

/** Builds the live source; an org without a valid configuration has no live employees (null). */
export function createHrmsSource(hrmsConfigs: HrmsConfigStore, connectorFor: ConnectorLookup): HrmsSource {
  return {
    async fetchEmployee(orgId, employeeId) {
      const hrmsConfig = await hrmsConfigs.load(orgId);
      const definition = hrmsConfig?.valid ? connectorFor(hrmsConfig.hrmsId) : undefined;
      if (!hrmsConfig || !definition) return null;
      const access = { credentials: hrmsConfig.credentials, apiConfigs: hrmsConfig.apiConfigs };
      return definition.create(access, { timeoutMs: 10_000, retries: 1 }).getEmployee(employeeId);
    },
  };
}
