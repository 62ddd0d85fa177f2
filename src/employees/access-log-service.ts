/**
 * The employer's access log of one employee (docs/consent.md "Access log (employer)"):
 * every read of that employee's data by a vendor, from the audit every read writes (docs/api.md "Employee details").
 */
import type { AccessLogStore } from '../audit/access-log-store';
import { ALL_DATA_POINTS, EVERY_DATA_POINT } from '../domain/data-points';
import { offsetOf, pageInfoOf, type PageInfo, type PageRequest } from '../paging';

/** One read as the access log sends it (`read_at` ISO 8601 UTC with ms). */
export interface AccessLogEntry {
  vendor_org: string;
  vendor_org_name: string;
  /** The data point names the read returned (docs/data-points.md); every name when the connection shares all. */
  data_points: string[];
  source: 'db' | 'hrms';
  read_at: string;
  request_id: string;
}

export type AccessLogService = ReturnType<typeof createAccessLogService>;

/** Builds the access log service over the audit's access log store. */
export function createAccessLogService(deps: { log: AccessLogStore }) {
  return {
    /**
     * Page `q` of the reads of employee `employeeId` (its HRMS `employeeId`) of client org
     * `clientOrgId`, newest first. Only that client org's own entries: an employee id it has no
     * reads for (unknown to it, or another employer's) is page 1 with `data: []`, never a 404
     * that would tell the two apart. Throws 404 INVALID_PAGE past the end (docs/api.md "Vendor connections").
     */
    async list(clientOrgId: number, employeeId: string, q: PageRequest): Promise<{ pageInfo: PageInfo; data: AccessLogEntry[] }> {
      const { total, rows } = await deps.log.reads(clientOrgId, employeeId, offsetOf(q), q.pageSize);
      const pageInfo = pageInfoOf(q, total, rows.length);
      return {
        pageInfo,
        data: rows.map((r) => ({
          vendor_org: r.vendorOrgUuid,
          vendor_org_name: r.vendorOrgName,
          data_points: r.dataPoints === EVERY_DATA_POINT ? [...ALL_DATA_POINTS] : r.dataPoints,
          source: r.source,
          read_at: r.at.toISOString(),
          request_id: r.requestId,
        })),
      };
    },
  };
}
