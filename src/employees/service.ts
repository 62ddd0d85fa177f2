/**
 * Employee reads for vendors (interface.md "Get employee details"; decisions §3, §7): the
 * approved-connection check, consent, data-point filtering, masking and audit.
 */
import type { AuditWriter } from '../audit/writer';
import type { FieldCipher } from '../crypto/field-cipher';
import { AppError } from '../errors';
import type { HrmsSource } from '../hrms/live-source';
import { decodeEmployee } from './codec';
import { filterRecord } from './data-points';
import { maskRecord } from './masking';
import { normalizeRecord, type EmployeeRecord } from './record';
import type { EmployeeStore } from './store';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EmployeeServiceDeps {
  employees: EmployeeStore;
  audit: AuditWriter;
  cipher: FieldCipher;
  /** Live HRMS reads for `source=hrms`. */
  hrms: HrmsSource;
}

/** A vendor's read request. */
export interface ReadQuery {
  vendorOrgId: number;
  clientOrgUuid: string;
  employeeRef: string;
  source: 'db' | 'hrms';
  requestId: string;
  /** Mask identity and bank values (plain endpoint) or not (encrypted V2). */
  mask: boolean;
}

export type EmployeeService = ReturnType<typeof createEmployeeService>;

/** Builds the employee read service. */
export function createEmployeeService(deps: EmployeeServiceDeps) {
  return {
    /**
     * Reads one employee for a vendor. Throws 404 INVALID_ORGANISATION (no approved connection,
     * including another vendor's), 404 EMPLOYEE_NOT_FOUND, 403 SOURCE_PERMISSION_DENIED
     * (`hrms` without live reads), 403 CONSENT_MISSING. Writes the audit entry of decisions §7.
     */
    async read(q: ReadQuery): Promise<EmployeeRecord> {
      if (!UUID_RE.test(q.clientOrgUuid)) throw new AppError('INVALID_ORGANISATION');
      const live = q.source === 'hrms';
      const row = await deps.employees.readForVendor({
        vendorOrgId: q.vendorOrgId, clientOrgUuid: q.clientOrgUuid, employeeRef: q.employeeRef,
      });
      if (!row) throw new AppError('INVALID_ORGANISATION');
      const shared = row.sharedDataPoints ? new Set(row.sharedDataPoints) : 'all';
      let record: EmployeeRecord;
      if (live) {
        if (!row.liveSource) throw new AppError('SOURCE_PERMISSION_DENIED');
        const employeeId = row.employee?.employeeId ?? q.employeeRef;
        const fetched = await deps.hrms.fetchEmployee(row.clientOrgId, employeeId);
        if (!fetched) throw new AppError('EMPLOYEE_NOT_FOUND');
        if (row.consentRequired && !(row.employee && row.consentOk)) throw new AppError('CONSENT_MISSING');
        record = normalizeRecord(fetched, row.employee?.id ?? 'NOT AVAILABLE');
      } else {
        if (!row.employee) throw new AppError('EMPLOYEE_NOT_FOUND');
        if (!row.consentOk) throw new AppError('CONSENT_MISSING');
        record = decodeEmployee(row.employee, row.clientOrgId, deps.cipher);
      }
      // `record` is this request's own object, so filtering needs no copy when all is shared.
      const filtered = shared === 'all' ? record : filterRecord(record, shared);
      const out = q.mask ? maskRecord(filtered) : filtered;
      // Answered only once the audit entry is committed (group commit, see audit/writer).
      await deps.audit.write({
        requestId: q.requestId, actorOrgId: q.vendorOrgId, action: live ? 'employee.read.live' : 'employee.read',
        clientOrgId: row.clientOrgId, connectionId: row.connectionId, employeeId: record.employeeId, dataPoints: row.sharedDataPoints,
      });
      return out;
    },
  };
}
