/**
 * The events hrx emits (docs/events.md) and the `data` each carries. Only ids, counts, statuses,
 * timestamps and data point names: never an employee's values. Org ids are the orgs' UUIDs.
 */
import { EVERY_DATA_POINT } from '../domain/data-points';
import type { EventInput, Recipient } from './types';
import { coverageShares, type DegradedPoint, type SyncCoverage } from '../domain/coverage';

/** Most employees one `employee.*` event lists; larger changes are split into several events. */
export const EMPLOYEES_PER_EVENT = 1000;

/** An employee as events name it: store id (UUID) and HRMS `employeeId`. */
export interface EmployeeRef {
  id?: string | undefined;
  employeeId: string;
}

/** One employee's change for `employee.updated`: which data points changed (names, no values). */
export interface EmployeeChange extends EmployeeRef {
  updatedFields: string[];
}

const chunks = <T>(items: T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

const employeeRef = (e: EmployeeRef) => ({ ...(e.id ? { id: e.id } : {}), employee_id: e.employeeId });

/**
 * `connection.approved|rejected|terminated` for the connection's vendor:
 * `data: {connection_id, vendor_org_id, client_org_id, status}`.
 */
export function connectionEvent(
  type: 'connection.approved' | 'connection.rejected' | 'connection.terminated',
  c: { id: string; vendorOrgId: number; clientOrgId: number },
): EventInput {
  const status = type.slice('connection.'.length);
  return {
    type,
    audience: { vendorOrgId: c.vendorOrgId },
    clientOrgId: c.clientOrgId,
    connectionId: c.id,
    data: (r) => ({ connection_id: c.id, vendor_org_id: r.vendorOrgUuid, client_org_id: r.clientOrgUuid, status }),
  };
}

/** Facts of a finished sync run. */
export interface SyncRunFacts {
  clientOrgId: number;
  runId: string;
  startedAt: Date;
  finishedAt: Date;
}

/** Whether the recipient's connection shares data point `point` (every point for `EVERY_DATA_POINT`). */
function sharedBy(r: Recipient): (point: string) => boolean {
  if (r.sharedDataPoints === EVERY_DATA_POINT) return () => true;
  const shared = new Set(r.sharedDataPoints);
  return (point) => shared.has(point);
}

/**
 * `sync.completed` for every vendor with an approved connection to the client org:
 * `data: {client_org_id, sync_run_id, employees_seen, employees_removed, started_at, finished_at,
 * coverage}`; `coverage` maps each data point the vendor's connection shares to the share (0..1)
 * of the run's employees with a value (`{}` when the run saw nobody; docs/events.md). Every
 * sync's event has it; `coverage` absent leaves the field out.
 */
export function syncCompletedEvent(run: SyncRunFacts & { employeesSeen: number; employeesRemoved: number; coverage?: SyncCoverage }): EventInput {
  return {
    type: 'sync.completed',
    audience: { approvedVendorsOf: true },
    clientOrgId: run.clientOrgId,
    occurredAt: run.finishedAt,
    data: (r) => ({
      client_org_id: r.clientOrgUuid,
      sync_run_id: run.runId,
      employees_seen: run.employeesSeen,
      employees_removed: run.employeesRemoved,
      started_at: run.startedAt.toISOString(),
      finished_at: run.finishedAt.toISOString(),
      ...(run.coverage ? { coverage: coverageShares(run.coverage, sharedBy(r)) } : {}),
    }),
  };
}

/**
 * `sync.degraded` for every vendor with an approved connection to the client org, when a full
 * sync's coverage of data points fell by more than half since the org's previous full sync
 * (docs/events.md): `data: {client_org_id, sync_run_id, previous_sync_run_id, employees_seen,
 * data_points: [{name, previous, current}], started_at, finished_at}` (shares 0..1). Each vendor
 * hears only of the data points its connection shares; a vendor sharing none of them gets no event.
 */
export function syncDegradedEvent(run: SyncRunFacts & { previousRunId: string; employeesSeen: number; points: DegradedPoint[] }): EventInput {
  return {
    type: 'sync.degraded',
    audience: { approvedVendorsOf: true },
    clientOrgId: run.clientOrgId,
    occurredAt: run.finishedAt,
    data: (r) => {
      const shared = sharedBy(r);
      const points = run.points.filter((p) => shared(p.name));
      if (!points.length) return null;
      return {
        client_org_id: r.clientOrgUuid,
        sync_run_id: run.runId,
        previous_sync_run_id: run.previousRunId,
        employees_seen: run.employeesSeen,
        data_points: points.map((p) => ({ name: p.name, previous: p.previous, current: p.current })),
        started_at: run.startedAt.toISOString(),
        finished_at: run.finishedAt.toISOString(),
      };
    },
  };
}

/**
 * `sync.failed` for every vendor with an approved connection to the client org:
 * `data: {client_org_id, sync_run_id, reason, will_retry, started_at, finished_at}`; `reason` is
 * a class (`auth`, `host_not_allowed`, `rate_limited`, `unavailable`, `bad_response`, `not_found`, `hrms_stalled`,
 * `lock_lost`, `bound_exceeded`, `internal`), never
 * the HRMS's message.
 */
export function syncFailedEvent(run: SyncRunFacts & { reason: string; willRetry: boolean }): EventInput {
  return {
    type: 'sync.failed',
    audience: { approvedVendorsOf: true },
    clientOrgId: run.clientOrgId,
    occurredAt: run.finishedAt,
    data: (r) => ({
      client_org_id: r.clientOrgUuid,
      sync_run_id: run.runId,
      reason: run.reason,
      will_retry: run.willRetry,
      started_at: run.startedAt.toISOString(),
      finished_at: run.finishedAt.toISOString(),
    }),
  };
}

/**
 * `employee.removed` (employees a full sync no longer saw) for every vendor with an approved
 * connection: `data: {client_org_id, sync_run_id, employees: [{id, employee_id}]}`, at most
 * `EMPLOYEES_PER_EVENT` employees an event.
 */
export function employeesRemovedEvents(clientOrgId: number, runId: string, removed: EmployeeRef[]): EventInput[] {
  return chunks(removed, EMPLOYEES_PER_EVENT).map((part) => ({
    type: 'employee.removed' as const,
    audience: { approvedVendorsOf: true as const },
    clientOrgId,
    data: (r: Recipient) => ({ client_org_id: r.clientOrgUuid, sync_run_id: runId, employees: part.map(employeeRef) }),
  }));
}

/**
 * `employee.removed` for an employee its employer erased (docs/erasure-and-retention.md "Erasing an employee"), for every
 * vendor with an approved connection: `data: {client_org_id, sync_run_id: null, reason: "erased",
 * employees: [{id, employee_id}]}`. Same type and `employees` list as a sync's removal, so a
 * vendor handles both alike; `reason` tells them apart (a vendor must delete what it received
 * of this employee, as far as its own obligations allow).
 */
export function employeeErasedEvent(clientOrgId: number, erased: EmployeeRef, erasedAt: Date): EventInput {
  return {
    type: 'employee.removed',
    audience: { approvedVendorsOf: true },
    clientOrgId,
    occurredAt: erasedAt,
    data: (r) => ({ client_org_id: r.clientOrgUuid, sync_run_id: null, reason: 'erased', employees: [employeeRef(erased)] }),
  };
}

/**
 * `employee.updated` for every vendor with an approved connection:
 * `data: {client_org_id, employees: [{id?, employee_id, updated_fields}]}`. Each vendor hears only
 * of the data points its connection shares (`id` and `employeeId` are always shared); an employee
 * with no shared change is left out, and a vendor with none gets no event.
 */
export function employeesUpdatedEvents(clientOrgId: number, changes: EmployeeChange[]): EventInput[] {
  const changed = changes.filter((c) => c.updatedFields.length > 0);
  return chunks(changed, EMPLOYEES_PER_EVENT).map((part) => ({
    type: 'employee.updated' as const,
    audience: { approvedVendorsOf: true as const },
    clientOrgId,
    data: (r: Recipient) => {
      const shared = r.sharedDataPoints === EVERY_DATA_POINT ? EVERY_DATA_POINT : new Set(r.sharedDataPoints);
      const employees = part
        .map((c) => ({ ...employeeRef(c), updated_fields: shared === EVERY_DATA_POINT ? [...c.updatedFields] : c.updatedFields.filter((f) => shared.has(f)) }))
        .filter((e) => e.updated_fields.length > 0);
      return employees.length ? { client_org_id: r.clientOrgUuid, employees } : null;
    },
  }));
}

/** A `monthly_*` data point other than the month and year that name a pay month. */
const isPayPoint = (d: string): boolean => d.startsWith('monthly_') && d !== 'monthly_month' && d !== 'monthly_year';

/** A pay month recorded for one employee (docs/pay-history.md "Events"): no values. */
export interface PayRecorded {
  employeeId: string;
  year: number;
  month: number;
  /** True when the month replaced a different value recorded before. */
  correction: boolean;
}

/**
 * `employee.pay_recorded`, one per recorded month, for every vendor with an approved connection
 * whose connection shares a `monthly_*` data point other than `monthly_month` and `monthly_year`
 * (the ones a pay history read would serve something of; docs/pay-history.md "Events"):
 * `data: {client_org, employeeId, year, month, correction}`. No values.
 */
export function payRecordedEvents(clientOrgId: number, recorded: PayRecorded[]): EventInput[] {
  return recorded.map((p) => ({
    type: 'employee.pay_recorded' as const,
    audience: { approvedVendorsOf: true as const },
    clientOrgId,
    data: (r: Recipient) => {
      const sharesPay = r.sharedDataPoints === EVERY_DATA_POINT || r.sharedDataPoints.some(isPayPoint);
      return sharesPay ? { client_org: r.clientOrgUuid, employeeId: p.employeeId, year: p.year, month: p.month, correction: p.correction } : null;
    },
  }));
}

/**
 * `consent.expired` for the consent's vendor (while its connection is approved):
 * `data: {client_org_id, employee_id, consent_expiry}`.
 */
export function consentExpiredEvent(k: { vendorOrgId: number; clientOrgId: number; employeeId: string; expiry: Date }): EventInput {
  return {
    type: 'consent.expired',
    audience: { approvedVendorsOf: true, onlyVendorOrgId: k.vendorOrgId },
    clientOrgId: k.clientOrgId,
    occurredAt: k.expiry,
    data: (r) => ({ client_org_id: r.clientOrgUuid, employee_id: k.employeeId, consent_expiry: k.expiry.toISOString() }),
  };
}

/** Who withdrew a consent: the vendor itself, or the employer on the employee's behalf (docs/consent.md "How consent works"). */
export type RevokedBy = 'vendor' | 'employer';

/**
 * `consent.revoked` for the consent's vendor (while its connection is approved):
 * `data: {client_org_id, employee_id, revoked_at, revoked_by}` (`revoked_by`: `vendor` | `employer`).
 * Written in the withdrawal's transaction (docs/api.md "Employee details", docs/events.md).
 */
export function consentRevokedEvent(k: { vendorOrgId: number; clientOrgId: number; employeeId: string; revokedAt: Date; revokedBy: RevokedBy }): EventInput {
  return {
    type: 'consent.revoked',
    audience: { approvedVendorsOf: true, onlyVendorOrgId: k.vendorOrgId },
    clientOrgId: k.clientOrgId,
    occurredAt: k.revokedAt,
    data: (r) => ({ client_org_id: r.clientOrgUuid, employee_id: k.employeeId, revoked_at: k.revokedAt.toISOString(), revoked_by: k.revokedBy }),
  };
}

/** The `connection.*` health events (docs/sync.md "Connection health"). */
export type HealthEventType = 'connection.needs_reauth' | 'connection.failing' | 'connection.healthy';

/**
 * A change of a client org's HRMS health, for every vendor with an approved connection to it:
 * `data: {client_org_id, health, previous_health, sync_run_id, reason, last_successful_sync}`.
 * `health` is the event's own word (`needs_reauth`, `failing`, `healthy`); `reason` is the
 * failed run's class (`auth`, `unavailable`, ...; null for `healthy`), never the HRMS's message;
 * `last_successful_sync` is ISO 8601 or null. Written in the transaction of the run's end.
 */
export function connectionHealthEvent(h: {
  type: HealthEventType;
  clientOrgId: number;
  previous: string | null;
  runId: string;
  reason: string | null;
  lastSuccessAt: Date | null;
  at: Date;
}): EventInput {
  return {
    type: h.type,
    audience: { approvedVendorsOf: true },
    clientOrgId: h.clientOrgId,
    occurredAt: h.at,
    data: (r) => ({
      client_org_id: r.clientOrgUuid,
      health: h.type.slice('connection.'.length),
      previous_health: h.previous,
      sync_run_id: h.runId,
      reason: h.reason,
      last_successful_sync: h.lastSuccessAt ? h.lastSuccessAt.toISOString() : null,
    }),
  };
}
