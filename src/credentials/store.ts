/**
 * Persistence of the employment and income credentials (docs/credentials.md "What hrx keeps"):
 * one row per credential naming its holder, what it relied on and its place in a status list;
 * never a claim. Every method takes an optional `Tx` (db/tx.ts), last.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, type Tx } from '../db/tx';

/** Entries per status list (docs/credentials.md "Status lists"): 2^17 bits, 16 KiB before compression. */
export const STATUS_LIST_SIZE = 131_072;

/** Why a credential was revoked (the `revoked_reason` of docs/api.md "Credentials"). */
export type RevokedReason = 'vendor' | 'consent_withdrawn' | 'employee_erased' | 'employee_not_active' | 'connection_terminated' | 'key_revoked';

/** A credential to record. */
export interface NewCredential {
  id: string;
  vendorOrgId: number;
  clientOrgId: number;
  employeeId: string;
  connectionId: string;
  /** `kid` of the vendor key of docs/v2.md bound as `cnf.jwk`. */
  vendorKid: string;
  consentRequired: boolean;
  statusList: number;
  statusIdx: number;
  issuedAt: Date;
  expiresAt: Date;
}

/** What the issuing vendor may read of a credential. */
export interface CredentialState {
  issuedAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: RevokedReason | null;
}

/** A live credential whose employee record changed since it was last checked. */
export interface ChangedEmployee {
  credentialId: string;
  clientOrgId: number;
  employeeId: string;
  recordEnc: string;
  rowId: string;
}

export interface CredentialStore {
  /** The next status list place: `{list, idx}` (sequential; a list holds {@link STATUS_LIST_SIZE}). */
  nextStatusPlace(tx?: Tx): Promise<{ list: number; idx: number }>;
  /** Records an issued credential. */
  insert(c: NewCredential, tx?: Tx): Promise<void>;
  /** The credential `id` of `vendorOrgId`; null when unknown or another vendor's. */
  find(id: string, vendorOrgId: number, tx?: Tx): Promise<CredentialState | null>;
  /** Revokes the vendor's credential `id` when live; false when unknown, another vendor's or already revoked. */
  revoke(id: string, vendorOrgId: number, reason: RevokedReason, tx?: Tx): Promise<boolean>;
  /** The revoked places of list `list`, and whether the list has been started at all. */
  revokedInList(list: number, tx?: Tx): Promise<{ exists: boolean; revoked: number[] }>;
  /**
   * Revokes, by SQL alone, every live credential whose connection is no longer approved, whose
   * bound key is revoked, whose consent was withdrawn (none in force, one revoked since issuance)
   * or whose employee is gone (erased) or removed. Returns how many per reason.
   */
  sweep(tx?: Tx): Promise<Partial<Record<RevokedReason, number>>>;
  /** Live credentials whose employee row changed after their last check (at most `limit`). */
  changedEmployees(limit: number, tx?: Tx): Promise<ChangedEmployee[]>;
  /** Marks credentials checked now. */
  markChecked(ids: string[], tx?: Tx): Promise<void>;
  /** Revokes the given live credentials with `reason`; returns how many. */
  revokeMany(ids: string[], reason: RevokedReason, tx?: Tx): Promise<number>;
  /** The client org's name and UUID, its HRMS product id and last successful sync (null when none). */
  employer(clientOrgId: number, tx?: Tx): Promise<{ name: string; uuid: string; hrmsId: string | null; lastSuccessAt: Date | null }>;
}

/** Revocations the sweep makes by SQL, each: reason, condition on the live credential `c`. */
const SWEEPS: [SqlRevokedReason, string][] = [
  ['connection_terminated', `not exists (select 1 from connections k where k.id = c.connection_id and k.status = 'approved')`],
  ['key_revoked', `exists (select 1 from vendor_keys k where k.org_id = c.vendor_org_id and k.kid = c.vendor_kid and k.revoked_at is not null)`],
  [
    'consent_withdrawn',
    `c.consent_required
     and not exists (select 1 from consents s where s.vendor_org_id = c.vendor_org_id and s.client_org_id = c.client_org_id
                     and s.employee_id = c.employee_id and s.revoked_at is null and s.consent_expiry > now())
     and exists (select 1 from consents s where s.vendor_org_id = c.vendor_org_id and s.client_org_id = c.client_org_id
                 and s.employee_id = c.employee_id and s.revoked_at >= c.issued_at)`,
  ],
  ['employee_erased', `not exists (select 1 from employees e where e.org_id = c.client_org_id and e.employee_id = c.employee_id)`],
  ['employee_not_active', `exists (select 1 from employees e where e.org_id = c.client_org_id and e.employee_id = c.employee_id and e.removed_at is not null)`],
];

/** The reasons the sweep finds by SQL alone. */
export type SqlRevokedReason = Exclude<RevokedReason, 'vendor'>;

/**
 * Revokes with `reason`, in `tx`, the live credentials matching `scope` (a condition on the
 * credential `c`, with `?` placeholders for `params`) whose ground `reason` names is gone: the
 * sweep's own condition, so a revocation in the event's transaction and the sweep never disagree
 * (docs/credentials.md "Revocation"). Returns how many it revoked.
 */
export async function revokeGroundless(orm: MikroORM, reason: SqlRevokedReason, scope: string, params: unknown[], tx?: Tx): Promise<number> {
  const cond = SWEEPS.find(([r]) => r === reason)![1];
  const rows = await execute(
    orm,
    `update credentials c set revoked_at = now(), revoked_reason = ?
      where c.revoked_at is null and c.expires_at > now() and ${cond} and (${scope}) returning c.id`,
    [reason, ...params],
    tx,
  );
  return rows.length;
}

/** A PostgreSQL array literal of UUIDs (the query builder would spread a JS array into a list). */
const uuidArray = (ids: string[]): string => `{${ids.join(',')}}`;

/** Builds the credential store over `orm`. */
export function createCredentialStore(orm: MikroORM): CredentialStore {
  return {
    async nextStatusPlace(tx) {
      const [row] = await execute<{ n: string }>(orm, `select nextval('credential_status_seq')::text as n`, [], tx);
      const n = Number(row!.n);
      return { list: Math.floor(n / STATUS_LIST_SIZE), idx: n % STATUS_LIST_SIZE };
    },
    async insert(c, tx) {
      await execute(
        orm,
        `insert into credentials (id, vendor_org_id, client_org_id, employee_id, connection_id, vendor_kid, consent_required,
                                  status_list, status_idx, issued_at, expires_at, checked_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          c.id,
          c.vendorOrgId,
          c.clientOrgId,
          c.employeeId,
          c.connectionId,
          c.vendorKid,
          c.consentRequired,
          c.statusList,
          c.statusIdx,
          c.issuedAt,
          c.expiresAt,
          c.issuedAt,
        ],
        tx,
      );
    },
    async find(id, vendorOrgId, tx) {
      const [row] = await execute<{ issued_at: Date; expires_at: Date; revoked_at: Date | null; revoked_reason: RevokedReason | null }>(
        orm,
        `select issued_at, expires_at, revoked_at, revoked_reason from credentials where id = ? and vendor_org_id = ?`,
        [id, vendorOrgId],
        tx,
      );
      if (!row) return null;
      const at = (v: Date | string) => new Date(v);
      return {
        issuedAt: at(row.issued_at),
        expiresAt: at(row.expires_at),
        revokedAt: row.revoked_at ? at(row.revoked_at) : null,
        revokedReason: row.revoked_reason,
      };
    },
    async revoke(id, vendorOrgId, reason, tx) {
      const rows = await execute(
        orm,
        `update credentials set revoked_at = now(), revoked_reason = ? where id = ? and vendor_org_id = ? and revoked_at is null returning id`,
        [reason, id, vendorOrgId],
        tx,
      );
      return rows.length > 0;
    },
    async revokedInList(list, tx) {
      const [seq] = await execute<{ last: string | null }>(
        orm,
        `select case when is_called then last_value::text end as last from credential_status_seq`,
        [],
        tx,
      );
      const started = seq?.last != null && Math.floor(Number(seq.last) / STATUS_LIST_SIZE) >= list;
      if (!started) return { exists: false, revoked: [] };
      const rows = await execute<{ status_idx: number }>(
        orm,
        `select status_idx from credentials where status_list = ? and revoked_at is not null`,
        [list],
        tx,
      );
      return { exists: true, revoked: rows.map((r) => r.status_idx) };
    },
    async sweep(tx) {
      const out: Partial<Record<RevokedReason, number>> = {};
      for (const [reason] of SWEEPS) {
        const n = await revokeGroundless(orm, reason, 'true', [], tx);
        if (n > 0) out[reason] = n;
      }
      return out;
    },
    async changedEmployees(limit, tx) {
      const rows = await execute<{ id: string; client_org_id: number; employee_id: string; record_enc: string; row_id: string }>(
        orm,
        `select c.id, c.client_org_id, c.employee_id, e.record_enc, e.id as row_id
           from credentials c join employees e on e.org_id = c.client_org_id and e.employee_id = c.employee_id
          where c.revoked_at is null and c.expires_at > now() and e.updated_at >= c.checked_at
          limit ?`,
        [limit],
        tx,
      );
      return rows.map((r) => ({ credentialId: r.id, clientOrgId: r.client_org_id, employeeId: r.employee_id, recordEnc: r.record_enc, rowId: r.row_id }));
    },
    async markChecked(ids, tx) {
      if (ids.length === 0) return;
      await execute(orm, `update credentials set checked_at = now() where id = any(?::uuid[])`, [uuidArray(ids)], tx);
    },
    async revokeMany(ids, reason, tx) {
      if (ids.length === 0) return 0;
      const rows = await execute(
        orm,
        `update credentials set revoked_at = now(), revoked_reason = ? where id = any(?::uuid[]) and revoked_at is null returning id`,
        [reason, uuidArray(ids)],
        tx,
      );
      return rows.length;
    },
    async employer(clientOrgId, tx) {
      const [row] = await execute<{ org_name: string; uuid: string; hrms_id: string | null; last_success_at: Date | string | null }>(
        orm,
        `select o.org_name, o.uuid, c.hrms_id, h.last_success_at
           from orgs o left join hrms_configs c on c.org_id = o.id left join org_health h on h.org_id = o.id
          where o.id = ?`,
        [clientOrgId],
        tx,
      );
      return { name: row!.org_name, uuid: row!.uuid, hrmsId: row!.hrms_id, lastSuccessAt: row!.last_success_at ? new Date(row!.last_success_at) : null };
    },
  };
}
