/**
 * Employee persistence. The sync's bulk writes (one `INSERT … ON CONFLICT` per page) and the
 * vendor read path (one prepared statement, the hottest path of the service, see bench/) go
 * straight to a `pg` pool on the same database and schema as MikroORM: both carry large or
 * frequent parameters that the query builder would only slow down.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { ConnectionAccess } from '../connections/access-cache';
import type { FieldCipher } from '../crypto/field-cipher';
import { encodeEmployee } from './codec';
import type { EmployeeRecord } from './record';

/**
 * An employee row as the read path gets it. In the `masked` form `record` and `sensitiveEnc` are
 * null unless `maskedEnc` is (a row written before the masked envelope existed).
 */
export interface StoredEmployeeRow {
  id: string;
  employeeId: string;
  record: Record<string, unknown> | null;
  sensitiveEnc: string | null;
  maskedEnc: string | null;
  /** Whether a consent is in force (true when none was asked about). */
  consentOk: boolean;
}

export interface EmployeeStore {
  /** Inserts or updates `records` of `orgId` (deduplicated by employeeId), marking them seen by `runId`. */
  upsertBatch(orgId: number, runId: string | null, records: EmployeeRecord[]): Promise<number>;
  /** Marks employees of `orgId` not seen by `runId` as removed; returns how many. */
  removeUnseen(orgId: number, runId: string): Promise<number>;
  /** Existing store ids by employeeId for `orgId` (so re-synced employees keep their `id`). */
  idsFor(orgId: number, employeeIds: string[]): Promise<Map<string, string>>;
  /** The approved connection of `vendorOrgId` with client org `clientOrgUuid` (a UUID), or null. */
  connectionAccess(vendorOrgId: number, clientOrgUuid: string): Promise<ConnectionAccess | null>;
  /**
   * The (not removed) employee `employeeRef` (employeeId, or store id) of `clientOrgId`, and,
   * when `consentFor` names a vendor org, whether a consent of it is in force. One indexed
   * statement: this is the hottest query of the service (see bench/).
   */
  findEmployee(clientOrgId: number, employeeRef: string, consentFor: number | null, form: 'full' | 'masked'): Promise<StoredEmployeeRow | null>;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ACCESS_SQL = `select co.id as client_org_id, c.id as connection_id, c.shared_data_points, c.consent_required, c.live_source
    from orgs co join connections c on c.client_org_id = co.id and c.vendor_org_id = $1 and c.status = 'approved'
   where co.uuid = $2 limit 1`;

function employeeSql(byId: boolean, consent: boolean, masked: boolean): string {
  const match = byId ? '(e.employee_id = $2 or e.id = $2::uuid)' : 'e.employee_id = $2';
  const consentOk = consent
    ? `exists (select 1 from consents k where k.vendor_org_id = $3 and k.client_org_id = e.org_id and k.employee_id = e.employee_id
                 and k.revoked_at is null and k.consent_expiry > now())`
    : 'true';
  const columns = masked
    ? `e.masked_enc, case when e.masked_enc is null then e.record end as record,
       case when e.masked_enc is null then e.sensitive_enc end as sensitive_enc`
    : 'null as masked_enc, e.record, e.sensitive_enc';
  return `select e.id, e.employee_id, ${columns}, ${consentOk} as consent_ok
            from employees e where e.org_id = $1 and ${match} and e.removed_at is null limit 1`;
}

/** Builds the employee store: bulk writes over `orm`, the read path over `pool`. */
export function createEmployeeStore(orm: MikroORM, pool: pg.Pool, cipher: FieldCipher): EmployeeStore {
  const execute = (q: string, params: unknown[] = [], method: 'all' | 'run' = 'all') => orm.em.getConnection().execute(q, params, method);
  return {
    async upsertBatch(orgId, runId, records) {
      const byEmployee = new Map<string, EmployeeRecord>();
      for (const r of records) byEmployee.set(r.employeeId, r);
      if (byEmployee.size === 0) return 0;
      const rows = [...byEmployee.values()].map((r) => {
        const stored = encodeEmployee(r, orgId, cipher);
        return { id: r.id, employee_id: r.employeeId, record: stored.record, sensitive_enc: stored.sensitiveEnc, masked_enc: stored.maskedEnc };
      });
      // Straight to pg: the batch is one multi-megabyte JSON parameter, which knex's binding
      // handling would walk again for nothing.
      await pool.query(
        `insert into employees (id, org_id, employee_id, record, sensitive_enc, masked_enc, last_sync_run_id, removed_at, updated_at)
         select r.id, $1, r.employee_id, r.record, r.sensitive_enc, r.masked_enc, $2::uuid, null, now()
           from jsonb_to_recordset($3::jsonb) as r(id uuid, employee_id text, record jsonb, sensitive_enc text, masked_enc text)
         on conflict (org_id, employee_id) do update
           set record = excluded.record, sensitive_enc = excluded.sensitive_enc, masked_enc = excluded.masked_enc,
               last_sync_run_id = coalesce(excluded.last_sync_run_id, employees.last_sync_run_id),
               removed_at = null, updated_at = now()`,
        [orgId, runId, JSON.stringify(rows)],
      );
      return rows.length;
    },
    async removeUnseen(orgId, runId) {
      const res = (await execute(
        `update employees set removed_at = now(), updated_at = now()
          where org_id = ? and removed_at is null and last_sync_run_id is distinct from ?::uuid`,
        [orgId, runId],
        'run',
      )) as unknown as { affectedRows: number };
      return res.affectedRows;
    },
    async idsFor(orgId, employeeIds) {
      if (employeeIds.length === 0) return new Map();
      const res = await pool.query({
        name: 'hrx_employee_ids', text: `select employee_id, id from employees where org_id = $1 and employee_id = any($2::text[])`,
        values: [orgId, employeeIds],
      });
      return new Map((res.rows as { employee_id: string; id: string }[]).map((r) => [r.employee_id, r.id]));
    },
    async connectionAccess(vendorOrgId, clientOrgUuid) {
      const res = await pool.query({ name: 'hrx_connection_access', text: ACCESS_SQL, values: [vendorOrgId, clientOrgUuid] });
      const r = res.rows[0] as Record<string, unknown> | undefined;
      if (!r) return null;
      return {
        clientOrgId: r.client_org_id as number, connectionId: r.connection_id as string,
        sharedDataPoints: r.shared_data_points as string[] | null, consentRequired: r.consent_required as boolean,
        liveSource: r.live_source as boolean,
      };
    },
    async findEmployee(clientOrgId, employeeRef, consentFor, form) {
      const byId = UUID_RE.test(employeeRef);
      const consent = consentFor !== null;
      const masked = form === 'masked';
      const res = await pool.query({
        name: `hrx_employee${byId ? '_by_id' : ''}${consent ? '_consent' : ''}${masked ? '_masked' : ''}`,
        text: employeeSql(byId, consent, masked),
        values: consent ? [clientOrgId, employeeRef, consentFor] : [clientOrgId, employeeRef],
      });
      const r = res.rows[0] as Record<string, unknown> | undefined;
      if (!r) return null;
      return {
        id: r.id as string, employeeId: r.employee_id as string, record: r.record as Record<string, unknown> | null,
        sensitiveEnc: r.sensitive_enc as string | null, maskedEnc: r.masked_enc as string | null, consentOk: r.consent_ok === true,
      };
    },
  };
}

/** A new store id for an employee seen for the first time. */
export const newEmployeeId = (): string => randomUUID();
