/**
 * Consent (docs/api.md "Consent"; docs/consent.md "How consent works"): submission, withdrawal by
 * the vendor or by the employer on the employee's behalf, and the vendor's consent history.
 *
 * Withdrawal needs no cache invalidation: no process caches consent. Every read checks it in
 * the read's own SQL statement (employees/store.ts `LOOKUP_SQL`), so the first read that starts
 * after a withdrawal committed is refused, in every API process. The connection access cache
 * (connections/access-cache.ts) holds connections only, which a withdrawal does not change.
 */
import { AppError } from '../errors';
import type { EmployeeRecord } from '../domain/record';
import type { EmployeeService } from '../employees/service';
import { consentRevokedEvent, type RevokedBy } from '../events/catalog';
import type { EventService } from '../events/service';
import type { Written } from '../events/types';
import type { Transactor } from '../db/tx';
import { offsetOf, pageInfoOf, type PageInfo, type PageRequest } from '../paging';
import type { ConsentStatus, ConsentStore, RevokedConsent, Withdrawal } from './store';
import { isUuid } from '../domain/ids';

/** The validated submission; timestamps already parsed. */
export interface ConsentInput {
  org: string;
  employee_id: string;
  consent_language: string;
  consent_timestamp: Date;
  consent_expiry: Date;
}

/** How far in the future `consent_timestamp` may be (docs/consent.md "How consent works": 5 minutes). */
export const MAX_CONSENT_CLOCK_SKEW_MS = 5 * 60_000;

/** Longest a consent may last, in calendar years after `consent_timestamp` (docs/limits.md). */
export const MAX_CONSENT_YEARS = 10;

/** One record of the consent history as sent (docs/consent.md "How consent works"; timestamps ISO 8601 UTC with ms). */
export interface ConsentHistoryEntry {
  consent_language: string;
  consent_timestamp: string;
  consent_expiry: string;
  created_at: string;
  revoked_at: string | null;
  status: ConsentStatus;
}

/** The answer of the employer's withdrawal: the vendors whose consent it revoked (maybe none). */
export interface EmployerWithdrawal {
  employee_id: string;
  revoked: { vendor_org: string; revoked_at: string }[];
}

export interface ConsentServiceDeps {
  consents: ConsentStore;
  employees: EmployeeService;
  transactor: Transactor;
  /** The outbox (docs/events.md "Outbox"): `consent.revoked` written in the withdrawal's transaction, queued after commit. */
  events: Pick<EventService, 'writeIn' | 'dispatch'>;
}

export type ConsentService = ReturnType<typeof createConsentService>;

/** Builds the consent service. */
export function createConsentService(deps: ConsentServiceDeps) {
  /**
   * Revokes the consents in force of `w` and writes one `consent.revoked` per vendor concerned,
   * in one transaction (a committed withdrawal always has its events, docs/events.md "Delivery"); queues the
   * deliveries after commit without waiting. Returns the revoked vendors (none: nothing written).
   */
  async function withdraw(w: Withdrawal, by: RevokedBy): Promise<RevokedConsent[]> {
    let written: Written | undefined;
    const revoked = await deps.transactor.transaction(async (tx) => {
      const rows = await deps.consents.revokeInForce(tx, w);
      written =
        rows.length === 0
          ? undefined
          : await deps.events.writeIn(
              tx,
              rows.map((r) =>
                consentRevokedEvent({
                  vendorOrgId: r.vendorOrgId,
                  clientOrgId: w.clientOrgId,
                  employeeId: w.employeeId,
                  revokedAt: r.revokedAt,
                  revokedBy: by,
                }),
              ),
            );
      return rows;
    });
    void deps.events.dispatch(written);
    return revoked;
  }

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
        vendorOrgId,
        clientOrgId: target.clientOrgId,
        employeeId: input.employee_id,
        consentLanguage: input.consent_language,
        consentTimestamp: input.consent_timestamp,
        consentExpiry: input.consent_expiry,
        requestId,
      });
      return deps.employees.read({
        vendorOrgId,
        clientOrgUuid: org,
        employeeRef: input.employee_id,
        source: 'db',
        requestId,
        mask: true,
      });
    },

    /**
     * The vendor's withdrawal (docs/consent.md "How consent works"): revokes its consent(s) in force for `employee_id` of
     * client org `org` at once, whatever the connection's state, and announces
     * `consent.revoked` to it. Throws 404 CONSENT_NOT_IN_FORCE when none is in force, also for
     * an org or employee it never had a consent for (another vendor's consents are never
     * touched, nor revealed).
     */
    async revoke(
      vendorOrgId: number,
      input: { org: string; employee_id: string },
      requestId: string,
    ): Promise<{ org: string; employee_id: string; revoked_at: string }> {
      const org = input.org.toLowerCase();
      // Not a UUID: no org, the answer of an unknown one (docs/api.md "Conventions").
      const clientOrgId = isUuid(org) ? await deps.consents.orgId(org) : null;
      if (clientOrgId === null) throw new AppError('CONSENT_NOT_IN_FORCE');
      const [done] = await withdraw({ clientOrgId, employeeId: input.employee_id, vendorOrgId, actorOrgId: vendorOrgId, requestId }, 'vendor');
      if (!done) throw new AppError('CONSENT_NOT_IN_FORCE');
      return { org, employee_id: input.employee_id, revoked_at: done.revokedAt.toISOString() };
    },

    /**
     * The employer's withdrawal on the employee's behalf (docs/consent.md "How consent works"): revokes the consents in
     * force for its employee `employee_id`, of vendor org `vendor_org` (a UUID) or, without it,
     * of every vendor, and announces `consent.revoked` (`revoked_by: employer`) to each vendor
     * concerned. Touches only consents given for `clientOrgId`'s employees. Answers the vendors
     * revoked, `[]` when none was in force (the wanted state holds either way).
     */
    async revokeForEmployee(
      clientOrgId: number,
      input: { employee_id: string; vendor_org?: string | undefined },
      requestId: string,
    ): Promise<EmployerWithdrawal> {
      let vendorOrgId: number | null = null;
      if (input.vendor_org !== undefined) {
        vendorOrgId = isUuid(input.vendor_org) ? await deps.consents.orgId(input.vendor_org.toLowerCase()) : null;
        if (vendorOrgId === null) return { employee_id: input.employee_id, revoked: [] };
      }
      const revoked = await withdraw({ clientOrgId, employeeId: input.employee_id, vendorOrgId, actorOrgId: clientOrgId, requestId }, 'employer');
      return { employee_id: input.employee_id, revoked: revoked.map((r) => ({ vendor_org: r.vendorOrgUuid, revoked_at: r.revokedAt.toISOString() })) };
    },

    /**
     * The calling vendor's consent records for employee `employee_id` of client org `org` (a
     * UUID), newest first, with their status (docs/api.md "Employee details"), paged (docs/api.md "Vendor connections"). Only this
     * vendor's records: an org or employee it has none for is page 1 with `data: []` (the same
     * answer whether or not another vendor has some). Throws 404 INVALID_PAGE past the end.
     */
    async history(vendorOrgId: number, q: { org: string; employee_id: string } & PageRequest): Promise<{ pageInfo: PageInfo; data: ConsentHistoryEntry[] }> {
      // An org that is not a UUID names no org: the answer of an unknown one (docs/api.md "Conventions").
      const { total, rows } = isUuid(q.org)
        ? await deps.consents.history(vendorOrgId, q.org.toLowerCase(), q.employee_id, offsetOf(q), q.pageSize)
        : { total: 0, rows: [] };
      const pageInfo = pageInfoOf(q, total, rows.length);
      return {
        pageInfo,
        data: rows.map((r) => ({
          consent_language: r.consentLanguage,
          consent_timestamp: r.consentTimestamp.toISOString(),
          consent_expiry: r.consentExpiry.toISOString(),
          created_at: r.createdAt.toISOString(),
          revoked_at: r.revokedAt?.toISOString() ?? null,
          status: r.status,
        })),
      };
    },
  };
}
