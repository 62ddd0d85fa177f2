/**
 * `source=hrms` reads (decisions §7): one employee fetched live through the client org's stored
 * HRMS configuration and connector.
 */
import type { ConnectorFactory } from '../hrms/connector';
import type { HrmsSource } from '../hrms/live-source';
import type { HrmsConfigStore } from './store';

/** Builds the live source; an org without a valid configuration has no live employees (null). */
export function createHrmsSource(hrmsConfigs: HrmsConfigStore, connectorFor: (id: string) => ConnectorFactory | undefined): HrmsSource {
  return {
    async fetchEmployee(orgId, employeeId) {
      const hrmsConfig = await hrmsConfigs.load(orgId);
      const factory = hrmsConfig?.valid ? connectorFor(hrmsConfig.hrmsId) : undefined;
      if (!hrmsConfig || !factory) return null;
      return factory(hrmsConfig.credentials, { timeoutMs: 10_000, retries: 1 }).getEmployee(employeeId);
    },
  };
}
