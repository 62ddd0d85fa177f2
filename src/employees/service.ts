/**
 * Employee reads for vendors (interface.md "Get employee details"; decisions §3, §7): the
 * approved-connection check, consent, data-point filtering, masking and audit.
 */
import type { AuditWriter } from '../audit/writer';
import type { ConnectionAccess } from '../connections/access-cache';
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
  /** The approved connection of a vendor with a client org (cached, see connections/access-cache). */
  connectionAccess: (vendorOrgId: number, clientOrgUuid: string) => Promise<ConnectionAccess | null>;
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
      const access = await deps.connectionAccess(q.vendorOrgId, q.clientOrgUuid.toLowerCase());
      if (!access) throw new AppError('INVALID_ORGANISATION');
      if (live && !access.liveSource) throw new AppError('SOURCE_PERMISSION_DENIED');
      const shared = access.sharedDataPoints ? new Set(access.sharedDataPoints) : 'all';
      const row = await deps.employees.findEmployee(access.clientOrgId, q.employeeRef, access.consentRequired ? q.vendorOrgId : null);
      let record: EmployeeRecord;
      if (live) {
        const fetched = await deps.hrms.fetchEmployee(access.clientOrgId, row?.employeeId ?? q.employeeRef);
        if (!fetched) throw new AppError('EMPLOYEE_NOT_FOUND');
        if (!row?.consentOk) {
          if (access.consentRequired) throw new AppError('CONSENT_MISSING');
        }
        record = normalizeRecord(fetched, row?.id ?? 'NOT AVAILABLE');
      } else {
        if (!row) throw new AppError('EMPLOYEE_NOT_FOUND');
        if (!row.consentOk) throw new AppError('CONSENT_MISSING');
        record = decodeEmployee(row, access.clientOrgId, deps.cipher);
      }
      // `record` is this request's own object, so filtering needs no copy when all is shared.
      const filtered = shared === 'all' ? record : filterRecord(record, shared);
      const out = q.mask ? maskRecord(filtered) : filtered;
      // Answered only once the audit entry is committed (group commit, see audit/writer).
      await deps.audit.write({
        requestId: q.requestId, actorOrgId: q.vendorOrgId, action: live ? 'employee.read.live' : 'employee.read',
        clientOrgId: access.clientOrgId, connectionId: access.connectionId, employeeId: record.employeeId, dataPoints: access.sharedDataPoints,
      });
      return out;
    },
  };
}
