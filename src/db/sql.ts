/**
 * SQL helpers shared by the stores: PostgreSQL array literals, the audit log insert
 * (docs/api.md "Employee details"), which the audit writer (live reads, batched) and the update webhook (in its transaction)
 * both use, and the condition that a consent was not ended by a later withdrawal (the read path,
 * the consent history and withdrawal, the expiry announcements).
 */
import { EVERY_DATA_POINT, type DataPoints } from '../domain/data-points';
import type { Queryable } from './tx';

/**
 * SQL condition on the `consents` row aliased `k`: no record of the same vendor, client org and
 * employee was withdrawn after `k` was recorded. A withdrawal revokes only the record in force,
 * yet it ends every older record with it: they keep their status (`superseded`) but never come
 * back into force (docs/consent.md "How consent works"). Uses the alias `wd`.
 */
export function notWithdrawnSince(k: string): string {
  return `not exists (select 1 from consents wd where wd.vendor_org_id = ${k}.vendor_org_id and wd.client_org_id = ${k}.client_org_id
            and wd.employee_id = ${k}.employee_id and wd.revoked_at is not null and (wd.created_at, wd.id) > (${k}.created_at, ${k}.id))`;
}

/**
 * SQL expression: the last successful sync of the org whose id is the expression `orgId`, as the
 * connection status answers it (docs/api.md "Connection status", `last_successful_sync`): the later of its health row's
 * `last_success_at` and its newest succeeded sync run. Null when there is none.
 */
export function lastSuccessSql(orgId: string): string {
  return `greatest((select h.last_success_at from org_health h where h.org_id = ${orgId}),
                   (select max(s.finished_at) from sync_runs s where s.org_id = ${orgId} and s.status = 'succeeded'))`;
}

/** A PostgreSQL array literal of `items` with every element quoted and escaped. */
export function pgTextArray(items: readonly string[]): string {
  return `{${items.map((i) => `"${i.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** How `audit_log.data_points` stores `EVERY_DATA_POINT` (src/domain/data-points.ts). */
const AUDIT_EVERY_DATA_POINT: readonly string[] = Object.freeze(['*']);

/** Literals already made of frozen arrays, by the array. */
const auditLiterals = new WeakMap<readonly string[], string>();

/**
 * The `audit_log.data_points` array literal of `points` (`{*}` for `EVERY_DATA_POINT`). Made once
 * per frozen array (one that cannot change, e.g. the pay read's points of a connection): every
 * read audits its points, and escaping some 30 names per read showed in the read's profile.
 */
export function auditDataPointsLiteral(points: DataPoints): string {
  const list = points === EVERY_DATA_POINT ? AUDIT_EVERY_DATA_POINT : points;
  if (!Object.isFrozen(list)) return pgTextArray(list);
  let literal = auditLiterals.get(list);
  if (literal === undefined) auditLiterals.set(list, (literal = pgTextArray(list)));
  return literal;
}

/** The data points of an `audit_log.data_points` value as read back (`{*}` → `EVERY_DATA_POINT`; null → none). */
export function auditDataPointsOf(stored: readonly string[] | null): DataPoints {
  if (stored === null) return [];
  return stored.length === 1 && stored[0] === AUDIT_EVERY_DATA_POINT[0] ? EVERY_DATA_POINT : [...stored];
}

/** One audited action (docs/api.md "Employee details"). */
export interface AuditEntryInput {
  requestId: string;
  actorOrgId: number;
  action: string;
  clientOrgId: number | null;
  connectionId: string | null;
  employeeId: string | null;
  dataPoints: DataPoints;
}

// Typed arrays, one per column (cheaper for PostgreSQL than parsing a JSON batch); each row's
// data points travel as one array literal and are cast back per row.
const AUDIT_INSERT = `insert into audit_log (request_id, actor_org_id, action, client_org_id, connection_id, employee_id, data_points)
  select r, a, ac, c, cn, e, d::text[]
    from unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::uuid[], $6::text[], $7::text[]) as t(r, a, ac, c, cn, e, d)`;

/**
 * Inserts `entries` with one statement on `db`: a pool, or a transaction's client
 * (`pgClientOf(tx)`) so the entries commit or roll back with the writes they record.
 */
export async function insertAuditEntries(db: Queryable, entries: readonly AuditEntryInput[]): Promise<void> {
  if (entries.length === 0) return;
  const values = [
    entries.map((e) => e.requestId),
    entries.map((e) => e.actorOrgId),
    entries.map((e) => e.action),
    entries.map((e) => e.clientOrgId),
    entries.map((e) => e.connectionId),
    entries.map((e) => e.employeeId),
    entries.map((e) => auditDataPointsLiteral(e.dataPoints)),
  ];
  await db.query({ text: AUDIT_INSERT, values });
}

/**
 * Marks org `orgId` established (docs/connect.md "Who may approve") unless it already is; run in
 * the transaction that writes the org's first HRMS configuration or employee row, after those
 * writes (row locks in one order: employees, then the org). Never cleared: erasing every
 * employee leaves the org established.
 */
export async function markEstablished(db: Queryable, orgId: number): Promise<void> {
  await db.query({ text: `update orgs set established_at = now() where id = $1 and established_at is null`, values: [orgId] });
}
