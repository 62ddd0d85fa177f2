/**
 * Persistence of employee consents (docs/consent.md "How consent works"): append-only rows; the latest unexpired,
 * unrevoked one recorded after the last withdrawn one is in force (the read path checks it in
 * SQL, see employees/store). Withdrawal sets `revoked_at` on the record in force and nothing
 * else: older records keep their status, yet never come back into force (`notWithdrawnSince`,
 * docs/consent.md "How consent works"); rows are never deleted here.
 *
 * The statement (`consent_language`, free text the vendor wrote, which may name the employee) is
 * stored only encrypted (docs/at-rest.md): an envelope bound to its record
 * (`consent:<id>`, {@link consentStatementAad}). Erasure replaces it by its keyed digest
 * (employees/erasure-store.ts), which the history shows as it is.
 *
 * Every method but `revokeInForce` (which takes its `tx` first) takes an optional `Tx` (db/tx.ts),
 * last, to run in a caller's transaction.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { revokeGroundless } from '../credentials/store';
import { ERASED_STATEMENT_PREFIX } from '../crypto/tombstone';
import type { FieldCipher } from '../crypto/field-cipher';
import { Consent } from '../db/entities';
import { insertAuditEntries, notWithdrawnSince } from '../db/sql';
import { emOf, execute, pgClientOf, type Tx } from '../db/tx';

/** Status of a consent record (docs/consent.md "How consent works"). */
export type ConsentStatus = 'active' | 'expired' | 'revoked' | 'superseded';

/** One consent record as the history lists it. */
export interface ConsentHistoryRow {
  consentLanguage: string;
  consentTimestamp: Date;
  consentExpiry: Date;
  createdAt: Date;
  revokedAt: Date | null;
  status: ConsentStatus;
}

/** One vendor's consent that a withdrawal revoked. */
export interface RevokedConsent {
  vendorOrgId: number;
  vendorOrgUuid: string;
  revokedAt: Date;
}

/** What a withdrawal revokes: the consents in force of one employee of one client org. */
export interface Withdrawal {
  clientOrgId: number;
  employeeId: string;
  /** Only this vendor's consents; null: every vendor's. */
  vendorOrgId: number | null;
  /** The org withdrawing (the vendor, or the client org on the employee's behalf), for the audit entry. */
  actorOrgId: number;
  requestId: string;
}

/** A consent record to append, its statement in clear (the store encrypts it). */
export type NewConsent = Omit<Consent, 'id' | 'createdAt' | 'revokedAt' | 'consentLanguageEnc'> & { consentLanguage: string };

/** Associated data of a consent statement's envelope: bound to its record. */
export const consentStatementAad = (consentId: string): string => `consent:${consentId}`;

/** The audit action of a withdrawal (actor: the vendor or the client org). */
export const REVOKE_AUDIT_ACTION = 'consent.revoke';

export interface ConsentStore {
  /**
   * The client org and employee a vendor may record a consent for: its approved connection with
   * `clientOrgUuid` and the (not removed) employee `employeeId`. null fields when absent.
   */
  target(vendorOrgId: number, clientOrgUuid: string, employeeId: string, tx?: Tx): Promise<{ clientOrgId: number | null; employeeExists: boolean }>;
  /** Appends a consent record (its statement encrypted); returns its id. */
  append(c: NewConsent, tx?: Tx): Promise<{ id: string }>;
  /** The numeric id of the org with `uuid` (lower case), or null. */
  orgId(uuid: string, tx?: Tx): Promise<number | null>;
  /**
   * Revokes, in `tx`, the consent of `w` in force at the transaction's time (per vendor: the
   * latest unrevoked, unexpired record recorded after that vendor's last withdrawn one; older
   * records keep their status) and, when it revoked any, writes one `consent.revoke` audit entry (actor, client org,
   * employee; no data points: nothing was read; which vendors is in the rows' `revoked_at`).
   * Returns one entry per vendor whose consent it revoked, by vendor id. Concurrent
   * withdrawals of the same consent take turns on its row: only the first revokes it.
   */
  revokeInForce(tx: Tx, w: Withdrawal): Promise<RevokedConsent[]>;
  /**
   * Page of vendor `vendorOrgId`'s consent records for employee `employeeId` of client org
   * `clientOrgUuid` (lower case), newest first (`created_at`, then id), with the status of each
   * (docs/api.md "Employee details") and the total count (0 when the page is empty: the caller tells page 1 of an
   * empty list from a page past the end).
   */
  history(
    vendorOrgId: number,
    clientOrgUuid: string,
    employeeId: string,
    offset: number,
    limit: number,
    tx?: Tx,
  ): Promise<{ total: number; rows: ConsentHistoryRow[] }>;
}

/**
 * The status of each record, computed at the statement's time (docs/consent.md "Consent
 * history"): `revoked` once withdrawn (whatever its expiry), else `expired` once past
 * `consent_expiry`, else `active` for the one in force (the latest unexpired, unrevoked record
 * recorded after the last withdrawn one: by `created_at`, then id) and `superseded` for the other
 * unexpired, unrevoked ones, including those a later withdrawal ended.
 */
const HISTORY_SQL = `with k as (
    select * from consents
     where vendor_org_id = ? and client_org_id = (select id from orgs where uuid = ?::uuid) and employee_id = ?
  ), in_force as (
    select id from k where revoked_at is null and consent_expiry > now() and ${notWithdrawnSince('k')} order by created_at desc, id desc limit 1
  )
  select k.id, k.consent_language_enc, k.consent_timestamp, k.consent_expiry, k.created_at, k.revoked_at,
         case when k.revoked_at is not null then 'revoked'
              when k.consent_expiry <= now() then 'expired'
              when k.id in (select id from in_force) then 'active'
              else 'superseded' end as status,
         count(*) over ()::int as total
    from k order by k.created_at desc, k.id desc offset ? limit ?`;

/** Builds the consent store over `orm`; `cipher` seals and opens the statements. */
export function createConsentStore(orm: MikroORM, cipher: FieldCipher): ConsentStore {
  /** A stored statement in clear: opened, or the digest erasure left, as it is. */
  const statementOf = (id: string, stored: string): string =>
    stored.startsWith(ERASED_STATEMENT_PREFIX) ? stored : cipher.decrypt(stored, consentStatementAad(id));
  return {
    async target(vendorOrgId, clientOrgUuid, employeeId, tx) {
      const [row] = await execute<{ client_org_id: number; employee_exists: boolean }>(
        orm,
        `select co.id as client_org_id,
                exists (select 1 from employees e where e.org_id = co.id and e.employee_id = ? and e.removed_at is null) as employee_exists
           from orgs co join connections c on c.client_org_id = co.id and c.vendor_org_id = ? and c.status = 'approved'
          where co.uuid = ?::uuid limit 1`,
        [employeeId, vendorOrgId, clientOrgUuid],
        tx,
      );
      return { clientOrgId: row?.client_org_id ?? null, employeeExists: row?.employee_exists === true };
    },
    async append({ consentLanguage, ...c }, tx) {
      const em = emOf(orm, tx);
      const id = randomUUID();
      const consent = em.create(Consent, {
        ...c,
        id,
        consentLanguageEnc: cipher.encrypt(consentLanguage, consentStatementAad(id)),
        createdAt: new Date(),
        revokedAt: null,
      });
      await em.persistAndFlush(consent);
      return { id };
    },
    async orgId(uuid, tx) {
      const [row] = await execute<{ id: number }>(orm, `select id from orgs where uuid = ?::uuid`, [uuid], tx);
      return row?.id ?? null;
    },
    async revokeInForce(tx, w) {
      const rows = await execute<{ vendor_org_id: number; vendor_uuid: string; revoked_at: string }>(
        orm,
        // Per vendor, only the record in force: older records keep their status (docs/consent.md).
        `with r as (
           update consents set revoked_at = now()
            where id in (
                    select distinct on (k.vendor_org_id) k.id from consents k
                     where k.client_org_id = ? and k.employee_id = ? and (?::int is null or k.vendor_org_id = ?::int)
                       and k.revoked_at is null and k.consent_expiry > now() and ${notWithdrawnSince('k')}
                     order by k.vendor_org_id, k.created_at desc, k.id desc)
              and revoked_at is null
           returning vendor_org_id, revoked_at)
         select distinct r.vendor_org_id, o.uuid as vendor_uuid, r.revoked_at
           from r join orgs o on o.id = r.vendor_org_id order by r.vendor_org_id`,
        [w.clientOrgId, w.employeeId, w.vendorOrgId, w.vendorOrgId],
        tx,
      );
      const revoked = rows.map((r) => ({ vendorOrgId: r.vendor_org_id, vendorOrgUuid: r.vendor_uuid, revokedAt: new Date(r.revoked_at) }));
      if (revoked.length > 0) {
        // The credentials that relied on the withdrawn consent: revoked with it (docs/credentials.md "Revocation").
        await revokeGroundless(orm, 'consent_withdrawn', `c.client_org_id = ? and c.employee_id = ?`, [w.clientOrgId, w.employeeId], tx);
        await insertAuditEntries(await pgClientOf(tx), [
          {
            requestId: w.requestId,
            actorOrgId: w.actorOrgId,
            action: REVOKE_AUDIT_ACTION,
            clientOrgId: w.clientOrgId,
            connectionId: null,
            employeeId: w.employeeId,
            dataPoints: [],
          },
        ]);
      }
      return revoked;
    },
    async history(vendorOrgId, clientOrgUuid, employeeId, offset, limit, tx) {
      const rows = await execute<Record<string, unknown>>(orm, HISTORY_SQL, [vendorOrgId, clientOrgUuid, employeeId, offset, limit], tx);
      return {
        total: (rows[0]?.total as number | undefined) ?? 0,
        rows: rows.map((r) => ({
          consentLanguage: statementOf(r.id as string, r.consent_language_enc as string),
          consentTimestamp: new Date(r.consent_timestamp as string),
          consentExpiry: new Date(r.consent_expiry as string),
          createdAt: new Date(r.created_at as string),
          revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at as string),
          status: r.status as ConsentStatus,
        })),
      };
    },
  };
}
