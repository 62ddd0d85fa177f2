/**
 * Employee reads for vendors (docs/api.md "Employee details"; docs/data-points.md, docs/consent.md "How consent works"): the
 * approved-connection check, consent, data-point filtering, masking and audit.
 */
import { LIVE_READ_AUDIT_ACTION, READ_AUDIT_ACTION } from '../audit/access-log-store';
import type { AuditWriter } from '../audit/writer';
import type { ConnectionAccess } from '../connections/access-cache';
import type { FieldCipher } from '../crypto/field-cipher';
import { AppError } from '../errors';
import type { HrmsSource } from '../hrms/live-source';
import { decodeEmployee, maskedAad } from './codec';
import type { ErasureStore } from './erasure-store';
import { canonicalEmployeeId, isUsableEmployeeId } from './employee-id';
import { EVERY_DATA_POINT, filterRecord, type DataPoints } from '../domain/data-points';
import { maskRecord } from '../domain/masking';
import { normalizeRecord, type EmployeeRecord } from '../domain/record';
import type { EmployeeStore } from './store';
import type { PayMonthStore } from './pay-months';
import { newestMonthsJson, openPayEnvelope, PAY_POINTS, projectPayMonth, type PayPoint } from './pay-envelope';
import { isUuid } from '../domain/ids';

export interface EmployeeServiceDeps {
  employees: EmployeeStore;
  /** The approved connection of a vendor with a client org (cached, see connections/access-cache). */
  connectionAccess: (vendorOrgId: number, clientOrgUuid: string) => Promise<ConnectionAccess | null>;
  /** Whether the vendor's every connection with the client org is terminated (docs/api.md "Errors"); absent: never asked. */
  terminated?: (vendorOrgId: number, clientOrgUuid: string) => Promise<boolean>;
  audit: AuditWriter;
  cipher: FieldCipher;
  /** Live HRMS reads for `source=hrms`. */
  hrms: HrmsSource;
  /** Tombstones (docs/erasure-and-retention.md "Erasing an employee"): an erased employee is not read live either. */
  erasures: Pick<ErasureStore, 'erasedAt'>;
  /** Pay history (docs/pay-history.md "Read"). */
  payMonths: Pick<PayMonthStore, 'latestWithAsOf'>;
}

/** A pay history answer (docs/pay-history.md "Read"): each month `month`, `year` and the shared `monthly_*` points. */
export interface PayHistory {
  employeeId: string;
  /** The org's last successful sync, ISO 8601 UTC; null when none. */
  as_of: string | null;
  months: Record<string, unknown>[];
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
  /** When set (V2 names its connection), the approved connection must be this one, else 404 INVALID_ORGANISATION. */
  connectionId?: string;
}

export type EmployeeService = ReturnType<typeof createEmployeeService>;

/** The `monthly_*` points a connection sharing `shared` is served of a pay month. */
function payFieldsOf(shared: ReadonlySet<string> | typeof EVERY_DATA_POINT): typeof PAY_POINTS {
  return shared === EVERY_DATA_POINT ? PAY_POINTS : PAY_POINTS.filter((p) => shared.has(p.point));
}

/** `monthly_month`, `monthly_year` and `fields`' points (none when `fields` is empty). */
function payPointsOfFields(fields: readonly PayPoint[]): string[] {
  return fields.length === 0 ? [] : ['monthly_month', 'monthly_year', ...fields.map((f) => f.point)];
}

/**
 * What a read sharing every data point is audited with, frozen (a change would throw), so that
 * its array literal is made once (db/sql.ts `auditDataPointsLiteral`).
 */
const EVERY_PAY_POINT = Object.freeze(payPointsOfFields(PAY_POINTS)) as string[];

/** What a pay history read is audited with: `monthly_month`, `monthly_year` and the pay points served; nothing when none is. */
function payPointsOf(shared: DataPoints): DataPoints {
  return shared === EVERY_DATA_POINT ? EVERY_PAY_POINT : payPointsOfFields(payFieldsOf(new Set(shared)));
}

/** Builds the employee read service. */
export function createEmployeeService(deps: EmployeeServiceDeps) {
  /**
   * Everything a read checks, in order: the approved connection (404 INVALID_ORGANISATION, also
   * for another vendor's; 404 CONNECTION_TERMINATED when the caller's own ones are all terminated), `hrms` allowed (403 SOURCE_PERMISSION_DENIED), the employee (404
   * EMPLOYEE_NOT_FOUND, also for an id made only of dots or holding NUL), consent (403
   * CONSENT_MISSING). Live reads check consent first, then the tombstone of an erased employee
   * (404 EMPLOYEE_NOT_FOUND, docs/privacy.md), then fetch the HRMS here, and serve the record only
   * when its canonical `employeeId` is the one asked for (else 404 EMPLOYEE_NOT_FOUND).
   */
  async function locate(asked: ReadQuery, form: 'full' | 'masked' | 'pay', auditPoints?: (shared: DataPoints) => DataPoints) {
    // One id for the lookup, the tombstone and the HRMS call (docs/erasure-and-retention.md).
    const q = { ...asked, employeeRef: canonicalEmployeeId(asked.employeeRef) };
    if (!isUuid(q.clientOrgUuid)) throw new AppError('INVALID_ORGANISATION');
    const live = q.source === 'hrms';
    const access = await deps.connectionAccess(q.vendorOrgId, q.clientOrgUuid.toLowerCase());
    if (!access && q.connectionId === undefined && (await deps.terminated?.(q.vendorOrgId, q.clientOrgUuid.toLowerCase()))) {
      // The caller's own connection, ended: its own answer, at the unknown org's status (docs/api.md "Errors").
      throw new AppError('CONNECTION_TERMINATED');
    }
    if (!access || (q.connectionId !== undefined && access.connectionId !== q.connectionId)) throw new AppError('INVALID_ORGANISATION');
    if (live && !access.liveSource) throw new AppError('SOURCE_PERMISSION_DENIED');
    // An id that cannot name an employee (only dots, NUL) is never looked up, here or live.
    if (!isUsableEmployeeId(q.employeeRef)) throw new AppError('EMPLOYEE_NOT_FOUND');
    // Stored reads are audited by the lookup itself (same statement); live ones once fetched.
    const row = await deps.employees.findEmployee({
      clientOrgId: access.clientOrgId,
      employeeRef: q.employeeRef,
      consentFor: access.consentRequired ? q.vendorOrgId : null,
      form,
      audit: live
        ? undefined
        : {
            requestId: q.requestId,
            actorOrgId: q.vendorOrgId,
            action: READ_AUDIT_ACTION,
            connectionId: access.connectionId,
            dataPoints: auditPoints ? auditPoints(access.sharedDataPoints) : access.sharedDataPoints,
          },
    });
    let liveRecord: EmployeeRecord | null = null;
    if (live) {
      // Consent before the HRMS is asked: a vendor without consent learns nothing, not even
      // whether the HRMS knows the id (a consent names a stored employee, docs/consent.md "How consent works").
      if (access.consentRequired && !row?.consentOk) throw new AppError('CONSENT_MISSING');
      // Erased by its employer: hrx processes nothing of it until the employer posts it again.
      if (!row && (await deps.erasures.erasedAt(access.clientOrgId, q.employeeRef))) throw new AppError('EMPLOYEE_NOT_FOUND');
      const askedId = row?.employeeId ?? q.employeeRef;
      const fetched = await deps.hrms.fetchEmployee(access.clientOrgId, askedId);
      // Served only when the HRMS returned the employee asked for (docs/api.md "Live reads serve
      // the employee asked for"): an HRMS that reads `007` as `7` answers with employee `7`, whose
      // tombstone the id as typed does not name. With the ids equal, the tombstone checked above
      // is the returned employee's too; nothing is audited for a refused read.
      if (!fetched || canonicalEmployeeId(fetched.employeeId) !== askedId) throw new AppError('EMPLOYEE_NOT_FOUND');
      liveRecord = normalizeRecord(fetched, row?.id ?? 'NOT AVAILABLE');
    } else {
      if (!row) throw new AppError('EMPLOYEE_NOT_FOUND');
      if (!row.consentOk) throw new AppError('CONSENT_MISSING');
    }
    const shared = access.sharedDataPoints === EVERY_DATA_POINT ? EVERY_DATA_POINT : new Set(access.sharedDataPoints);
    return { access, row, liveRecord, shared, live };
  }

  /** The full record of a located read (this request's own object). */
  function fullRecord(found: Awaited<ReturnType<typeof locate>>): EmployeeRecord {
    if (found.liveRecord) return found.liveRecord;
    const row = found.row!;
    return decodeEmployee({ id: row.id, employeeId: row.employeeId, recordEnc: row.recordEnc! }, found.access.clientOrgId, deps.cipher);
  }

  /**
   * Writes the audit entry of a live read (stored reads were audited by their lookup); reads are
   * answered only once it is committed (group commit).
   */
  async function auditLive(q: ReadQuery, found: Awaited<ReturnType<typeof locate>>, employeeId: string): Promise<void> {
    if (!found.live) return;
    await deps.audit.write({
      requestId: q.requestId,
      actorOrgId: q.vendorOrgId,
      action: LIVE_READ_AUDIT_ACTION,
      clientOrgId: found.access.clientOrgId,
      connectionId: found.access.connectionId,
      employeeId,
      dataPoints: found.access.sharedDataPoints,
    });
  }

  /**
   * A pay history read, serialized (docs/pay-history.md "Read"): the checks, errors and audit of
   * `read` (stored reads only; the audit names the `monthly_*` points served), then `data` as JSON
   * text. Where the employee's pay envelope is built (employees/pay-envelope.ts) it is the one
   * source: sliced as it is for a connection sharing every pay point, else parsed and projected;
   * without one, the months are read from `pay_months`.
   */
  async function payHistoryJson(q: Omit<ReadQuery, 'mask' | 'source'>, n: number): Promise<string> {
    const found = await locate({ ...q, source: 'db', mask: true }, 'pay', payPointsOf);
    const row = found.row!;
    const orgId = found.access.clientOrgId;
    const fields = payFieldsOf(found.shared);
    let asOf: string | null = row.asOf ?? null;
    let months: string;
    if (fields.length === 0) months = '[]';
    else if (row.payEnc) {
      months = newestMonthsJson(openPayEnvelope(deps.cipher, row.payEnc, orgId, row.id), n);
      if (fields.length < PAY_POINTS.length) months = JSON.stringify((JSON.parse(months) as Record<string, unknown>[]).map((m) => projectPayMonth(m, fields)));
    } else {
      const stored = await deps.payMonths.latestWithAsOf(orgId, row.id, n);
      asOf = stored.asOf ? stored.asOf.toISOString() : null;
      months = JSON.stringify(stored.months.map((m) => projectPayMonth(m, fields)));
    }
    return `{"employeeId":${JSON.stringify(row.employeeId)},"as_of":${JSON.stringify(asOf)},"months":${months}}`;
  }

  return {
    payHistoryJson,

    /** `payHistoryJson` as an object (the V2 read seals it). */
    async payHistory(q: Omit<ReadQuery, 'mask' | 'source'>, months: number): Promise<PayHistory> {
      return JSON.parse(await payHistoryJson(q, months)) as PayHistory;
    },

    /**
     * Reads one employee for a vendor as a record: filtered to the connection's data points,
     * masked when `q.mask`. Errors as `locate` above. Writes the audit entry of docs/api.md "Employee details".
     */
    async read(q: ReadQuery): Promise<EmployeeRecord> {
      const found = await locate(q, 'full');
      const record = fullRecord(found);
      const filtered = found.shared === EVERY_DATA_POINT ? record : filterRecord(record, found.shared);
      const out = q.mask ? maskRecord(filtered) : filtered;
      await auditLive(q, found, record.employeeId);
      return out;
    },

    /**
     * The read behind a credential (docs/credentials.md "Issuing"): as `read` from the store
     * (unmasked, filtered, same checks, errors and audit), with the connection it went through and
     * the employee's row id.
     */
    async readWithAccess(q: Omit<ReadQuery, 'mask' | 'source'>): Promise<{ record: EmployeeRecord; access: ConnectionAccess; rowId: string }> {
      const found = await locate({ ...q, source: 'db', mask: false }, 'full');
      const record = fullRecord(found);
      return { record: found.shared === EVERY_DATA_POINT ? record : filterRecord(record, found.shared), access: found.access, rowId: found.row!.id };
    },

    /**
     * The plain endpoint's read (masked), serialized. Where the connection shares every data
     * point the stored masked form is sent as it is; otherwise it is filtered first. Same checks,
     * errors and audit as `read`.
     */
    async readMaskedJson(q: Omit<ReadQuery, 'mask'>): Promise<string> {
      const query = { ...q, mask: true };
      const found = await locate(query, 'masked');
      let json: string;
      let employeeId: string;
      const maskedEnc = found.row?.maskedEnc;
      if (!found.liveRecord && maskedEnc) {
        const row = found.row!;
        employeeId = row.employeeId;
        json = deps.cipher.decrypt(maskedEnc, maskedAad(found.access.clientOrgId, row.employeeId));
        // Masking and filtering commute: unshared points take empty values, which masking keeps.
        if (found.shared !== EVERY_DATA_POINT) json = JSON.stringify(filterRecord(JSON.parse(json) as EmployeeRecord, found.shared));
      } else {
        const record = fullRecord(found);
        employeeId = record.employeeId;
        json = JSON.stringify(maskRecord(found.shared === EVERY_DATA_POINT ? record : filterRecord(record, found.shared)));
      }
      await auditLive(query, found, employeeId);
      return json;
    },
  };
}
