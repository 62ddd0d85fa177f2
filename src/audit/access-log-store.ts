/**
 * The reads of one employee as the audit recorded them (docs/consent.md
 * "Access log (employer)"): what the employer's access log lists. Every read of employee data is audited
 * (docs/api.md "Employee details"): reads from the store by their lookup statement (employees/store.ts), live reads
 * by the writer (writer.ts); both under the actions below.
 */
import type pg from 'pg';
import { auditDataPointsOf } from '../db/sql';
import { queryableOf, type Tx } from '../db/tx';
import type { DataPoints } from '../domain/data-points';

/** Audit action of a vendor's read served from the store (plain, V2, the consent response). */
export const READ_AUDIT_ACTION = 'employee.read';

/** Audit action of a vendor's live read (`source=hrms`). */
export const LIVE_READ_AUDIT_ACTION = 'employee.read.live';

/** One audited read of an employee's data. */
export interface AccessLogRow {
  at: Date;
  requestId: string;
  vendorOrgUuid: string;
  vendorOrgName: string;
  /** The data points the read returned (`EVERY_DATA_POINT`: all of them). */
  dataPoints: DataPoints;
  source: 'db' | 'hrms';
}

export interface AccessLogStore {
  /**
   * Page of the reads of employee `employeeId` (its HRMS `employeeId`) of client org
   * `clientOrgId`, newest first (time, then entry id), with the total count (0 when the page is
   * empty: the caller tells page 1 of an empty list from a page past the end). Only that client
   * org's entries: the same `employeeId` at another employer is another employee.
   */
  reads(clientOrgId: number, employeeId: string, offset: number, limit: number, tx?: Tx): Promise<{ total: number; rows: AccessLogRow[] }>;
}

const READS_SQL = `select a.at, a.request_id, a.action, a.data_points, v.uuid as vendor_uuid, v.org_name as vendor_name,
         count(*) over ()::int as total
    from audit_log a join orgs v on v.id = a.actor_org_id
   where a.client_org_id = $1 and a.employee_id = $2 and a.action = any($3::text[])
   order by a.at desc, a.id desc offset $4 limit $5`;

/** Builds the access log store over `pool`; its method takes an optional `Tx` (db/tx.ts), last. */
export function createAccessLogStore(pool: pg.Pool): AccessLogStore {
  return {
    async reads(clientOrgId, employeeId, offset, limit, tx) {
      const res = await (
        await queryableOf(pool, tx)
      ).query({
        text: READS_SQL,
        values: [clientOrgId, employeeId, [READ_AUDIT_ACTION, LIVE_READ_AUDIT_ACTION], offset, limit],
      });
      const rows = res.rows as Record<string, unknown>[];
      return {
        total: (rows[0]?.total as number | undefined) ?? 0,
        rows: rows.map((r) => ({
          at: new Date(r.at as string | Date),
          requestId: r.request_id as string,
          vendorOrgUuid: r.vendor_uuid as string,
          vendorOrgName: r.vendor_name as string,
          dataPoints: auditDataPointsOf(r.data_points as string[] | null),
          source: r.action === LIVE_READ_AUDIT_ACTION ? 'hrms' : 'db',
        })),
      };
    },
  };
}
