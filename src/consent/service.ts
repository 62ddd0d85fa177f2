/**
 * Consent submission (interface.md "Submit employee consent data"; decisions §7).
 */
import { AppError } from '../errors';
import type { EmployeeRecord } from '../domain/record';
import type { EmployeeService } from '../employees/service';
import type { ConsentStore } from './store';
import { isUuid } from '../domain/ids';

/** The validated submission; timestamps already parsed. */
export interface ConsentInput {
  org: string;
  employee_id: string;
  consent_language: string;
  consent_timestamp: Date;
  consent_expiry: Date;
}

/** How far in the future `consent_timestamp` may be (decisions §7: 5 minutes). */
export const MAX_CONSENT_CLOCK_SKEW_MS = 5 * 60_000;

/** Longest a consent may last, in calendar years after `consent_timestamp` (decisions §11). */
export const MAX_CONSENT_YEARS = 10;

export type ConsentService = ReturnType<typeof createConsentService>;

/** Builds the consent service. */
export function createConsentService(deps: { consents: ConsentStore; employees: EmployeeService }) {
  return {
    /**
     * Records a consent of `employee_id` of client org `org` for the calling vendor and returns the
     * employee record as the plain read does (masked, filtered; audited). Throws VALIDATION
     * (timestamp > 5 min ahead, expiry not after the timestamp, already past or more than 10
     * years after the timestamp), 404
     * INVALID_ORGANISATION (no approved connection), 404 EMPLOYEE_NOT_FOUND.
     */
    async submit(vendorOrgId: number, input: ConsentInput, requestId: string, now = new Date()): Promise<EmployeeRecord> {
      if (input.consent_timestamp.getTime() > now.getTime() + MAX_CONSENT_CLOCK_SKEW_MS) {
        throw AppError.validation([{ field: 'consent_timestamp', message: 'may not be more than 5 minutes in the future' }]);
      }
      if (input.consent_expiry <= input.consent_timestamp) {
        throw AppError.validation([{ field: 'consent_expiry', message: 'must be after consent_timestamp' }]);
      }
      if (input.consent_expiry <= now) throw AppError.validation([{ field: 'consent_expiry', message: 'must be in the future' }]);
      const latest = new Date(input.consent_timestamp);
      latest.setUTCFullYear(latest.getUTCFullYear() + MAX_CONSENT_YEARS);
      if (input.consent_expiry > latest) {
        throw AppError.validation([{ field: 'consent_expiry', message: `must be at most ${MAX_CONSENT_YEARS} years after consent_timestamp` }]);
      }
      const org = input.org.toLowerCase();
      if (!isUuid(org)) throw new AppError('INVALID_ORGANISATION');
      const target = await deps.consents.target(vendorOrgId, org, input.employee_id);
      if (target.clientOrgId === null) throw new AppError('INVALID_ORGANISATION');
      if (!target.employeeExists) throw new AppError('EMPLOYEE_NOT_FOUND');
      await deps.consents.append({
        vendorOrgId, clientOrgId: target.clientOrgId, employeeId: input.employee_id,
        consentLanguage: input.consent_language, consentTimestamp: input.consent_timestamp,
        consentExpiry: input.consent_expiry, requestId,
      });
      return deps.employees.read({
        vendorOrgId, clientOrgUuid: org, employeeRef: input.employee_id, source: 'db', requestId, mask: true,
      });
    },
  };
}
