/**
 * Live reads of one employee from a client org's HRMS (`source=hrms`, decisions §7), through the
 * org's stored configuration and its connector.
 */
import type { PartialEmployeeRecord } from '../domain/record';

/** Fetches one employee live; null when the HRMS has none. Throws `HrmsError` on HRMS failures. */
export interface HrmsSource {
  fetchEmployee(clientOrgId: number, employeeId: string): Promise<PartialEmployeeRecord | null>;
}
