/**
 * Persistence of client orgs' HRMS configurations; credentials encrypted at rest (docs/behaviour.md "Sync"),
 * bound to their org by the AEAD's associated data. Every method takes an optional `Tx`
 * (db/tx.ts), last, to run in a caller's transaction.
 */
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { markEstablished, pgTextArray } from '../db/sql';
import type { FieldCipher } from '../crypto/field-cipher';
import { HrmsConfig } from '../db/entities';
import { emOf, execute, pgClientOf, transactionOf, type Tx } from '../db/tx';
import type { HrmsCredentials } from '../hrms/connector';

/** Decrypted configuration of one client org. */
export interface HrmsConfiguration {
  orgId: number;
  hrmsId: string;
  credentials: HrmsCredentials;
  apiConfigs: { api_id: string; access_credentials: HrmsCredentials }[];
  valid: boolean;
  invalidReason: string | null;
  /** The Connect session that entered it for a new org (docs/connect.md "The session"), or null (setup-config). */
  connectSessionId: string | null;
  /**
   * Which save this is: the SHA-256 (hex) of the stored ciphertext, new with every save (a fresh
   * IV), the same in SQL as {@link HRMS_CONFIG_VERSION_SQL}. A Connect proof by the HRMS step is
   * recorded only while the configuration it compared is still this one (docs/connect.md "Who may
   * approve").
   */
  version: string;
}

/** {@link HrmsConfiguration.version} of an `hrms_configs` row, as a SQL expression. */
export const HRMS_CONFIG_VERSION_SQL = `encode(sha256(convert_to(credentials_enc, 'UTF8')), 'hex')`;

/**
 * Whether a client org is established (docs/connect.md "Who may approve"): it has, or once had,
 * an HRMS configuration or an employee row (`orgs.established_at`, set with the first of them and
 * never cleared, so erasing every employee does not make an org new again).
 */
export interface Establishment {
  established: boolean;
  hasConfig: boolean;
}

export interface HrmsConfigStore {
  /**
   * Creates or replaces the configuration of `orgId` (setup-config; posting again replaces it).
   * In the same transaction (squat-then-replace, docs/connect.md "The session"): when the replaced configuration
   * was entered through Connect session S, every approved connection of the org whose approval
   * rested on S goes back to `pending` (its data point lists reset as for a new request,
   * docs/api.md "Vendor connections"); and every Connect session of the org's connections that proved control with
   * the HRMS step (against the replaced configuration) is no longer proven. Returns the ids of
   * the connections sent back to pending.
   *
   * `sameTenant` (new credentials for the stored HRMS tenant while it refuses the old ones,
   * docs/connect.md "Updating refused credentials"): the Connect session that entered the tenant
   * stays recorded and the approvals resting on it stay, so a later setup-config still ends them.
   */
  save(
    hrmsConfig: Omit<HrmsConfiguration, 'valid' | 'invalidReason' | 'connectSessionId' | 'version'> & { sameTenant?: boolean },
    tx?: Tx,
  ): Promise<{ revoked: string[] }>;
  /**
   * Stores the first configuration of a NOT established org, entered in Connect session
   * `sessionId` (docs/connect.md "The session"). Atomic with the check: the org row is locked `for update`, which
   * also waits for (and is waited for by) any transaction inserting the org's first employee or
   * configuration (their foreign-key checks lock the org row `for key share`). Returns false,
   * storing nothing, when the org is established.
   */
  saveIfUnestablished(
    hrmsConfig: Omit<HrmsConfiguration, 'valid' | 'invalidReason' | 'connectSessionId' | 'version'>,
    sessionId: string,
    tx?: Tx,
  ): Promise<boolean>;
  /** Whether `orgId` is established (for good: erased and removed employees count). */
  establishment(orgId: number, tx?: Tx): Promise<Establishment>;
  /** The decrypted configuration, or null. Throws `DecryptionError` if it was tampered with. */
  load(orgId: number, tx?: Tx): Promise<HrmsConfiguration | null>;
  markInvalid(orgId: number, reason: string, tx?: Tx): Promise<void>;
  /**
   * Whether the org's HRMS refused its stored credentials and waits for new ones (docs/sync.md
   * "Connection health": `needs_reauth`): the configuration is marked invalid and the org's
   * health is `needs_reauth` (or not kept yet). Returns its `hrmsId` and when the refusing sync
   * ended (`refusedAt`: the health's change, else the configuration's marking), or null.
   */
  reauthNeeded(orgId: number, tx?: Tx): Promise<{ hrmsId: string; refusedAt: Date } | null>;
}

const aad = (orgId: number) => `hrms-config:${orgId}`;

// `established_at` is the rule; a configuration or employee row present counts too, whatever wrote it.
const ESTABLISHED_SQL = `select o.established_at is not null
    or exists (select 1 from hrms_configs where org_id = o.id) or exists (select 1 from employees where org_id = o.id) as established,
  exists (select 1 from hrms_configs where org_id = o.id) as has_config
  from orgs o where o.id = ?`;

/** Builds the store over `orm`, encrypting with `cipher`. */
export function createHrmsConfigStore(orm: MikroORM, cipher: FieldCipher): HrmsConfigStore {
  return {
    async save(hrmsConfig, tx) {
      const credentialsEnc = cipher.encrypt(JSON.stringify({ credentials: hrmsConfig.credentials, apiConfigs: hrmsConfig.apiConfigs }), aad(hrmsConfig.orgId));
      return transactionOf(orm, tx, async (em) => {
        // The replaced row, locked so a concurrent Connect approval cannot slip in between.
        const [prior] = await em.execute<{ connect_session_id: string | null }[]>(`select connect_session_id from hrms_configs where org_id = ? for update`, [
          hrmsConfig.orgId,
        ]);
        await em.execute(
          `insert into hrms_configs (org_id, hrms_id, credentials_enc, configured_apis, valid, invalid_reason, connect_session_id, created_at, updated_at)
           values (?, ?, ?, ?::text[], true, null, null, now(), now())
           on conflict (org_id) do update set hrms_id = excluded.hrms_id, credentials_enc = excluded.credentials_enc,
             configured_apis = excluded.configured_apis, valid = true, invalid_reason = null,
             connect_session_id = case when ? then hrms_configs.connect_session_id end, updated_at = now()`,
          [hrmsConfig.orgId, hrmsConfig.hrmsId, credentialsEnc, pgTextArray(hrmsConfig.apiConfigs.map((a) => a.api_id)), hrmsConfig.sameTenant === true],
        );
        await markEstablished(await pgClientOf(em), hrmsConfig.orgId);
        if (!prior) return { revoked: [] };
        await em.execute(
          `update connect_sessions set proven_at = null, proof_method = null
            where proof_method = 'hrms' and connection_id in (select id from connections where client_org_id = ?)`,
          [hrmsConfig.orgId],
        );
        if (!prior.connect_session_id || hrmsConfig.sameTenant) return { revoked: [] };
        // Pending lists as a new request stores them (connections/store.ts request()).
        const rows = await em.execute<{ id: string }[]>(
          `update connections set status = 'pending', status_changed_at = now(), approved_on_config_session = null, decided_by = null,
                  shared_data_points = null, not_shared_data_points = '{}', not_requested_data_points = '{}'
            where client_org_id = ? and status = 'approved' and approved_on_config_session = ?
           returning id`,
          [hrmsConfig.orgId, prior.connect_session_id],
        );
        return { revoked: rows.map((r) => r.id) };
      });
    },
    async saveIfUnestablished(hrmsConfig, sessionId, tx) {
      const credentialsEnc = cipher.encrypt(JSON.stringify({ credentials: hrmsConfig.credentials, apiConfigs: hrmsConfig.apiConfigs }), aad(hrmsConfig.orgId));
      return transactionOf(orm, tx, async (em) => {
        const locked = await em.execute(`select id from orgs where id = ? for update`, [hrmsConfig.orgId]);
        if (locked.length === 0) return false;
        const [state] = await em.execute<{ established: boolean }[]>(ESTABLISHED_SQL, [hrmsConfig.orgId]);
        if (state!.established) return false;
        await em.execute(
          `insert into hrms_configs (org_id, hrms_id, credentials_enc, configured_apis, valid, invalid_reason, connect_session_id, created_at, updated_at)
           values (?, ?, ?, ?::text[], true, null, ?, now(), now())`,
          // An array literal: the driver would spread a JS array into a list.
          [hrmsConfig.orgId, hrmsConfig.hrmsId, credentialsEnc, pgTextArray(hrmsConfig.apiConfigs.map((a) => a.api_id)), sessionId],
        );
        await markEstablished(await pgClientOf(em), hrmsConfig.orgId);
        return true;
      });
    },
    async establishment(orgId, tx) {
      const [state] = await execute<{ established: boolean; has_config: boolean }>(orm, ESTABLISHED_SQL, [orgId], tx);
      return { established: state?.established ?? false, hasConfig: state?.has_config ?? false };
    },
    async load(orgId, tx) {
      const row = await emOf(orm, tx).findOne(HrmsConfig, { orgId });
      if (!row) return null;
      const dec = JSON.parse(cipher.decrypt(row.credentialsEnc, aad(orgId))) as Pick<HrmsConfiguration, 'credentials' | 'apiConfigs'>;
      const version = createHash('sha256').update(row.credentialsEnc, 'utf8').digest('hex');
      return { orgId, hrmsId: row.hrmsId, ...dec, valid: row.valid, invalidReason: row.invalidReason, connectSessionId: row.connectSessionId, version };
    },
    async reauthNeeded(orgId, tx) {
      const [r] = await execute<{ hrms_id: string; refused_at: Date | string }>(
        orm,
        `select hc.hrms_id, coalesce(oh.changed_at, hc.updated_at) as refused_at
           from hrms_configs hc left join org_health oh on oh.org_id = hc.org_id
          where hc.org_id = ? and not hc.valid and (oh.state is null or oh.state = 'needs_reauth')`,
        [orgId],
        tx,
      );
      return r ? { hrmsId: r.hrms_id, refusedAt: new Date(r.refused_at) } : null;
    },
    async markInvalid(orgId, reason, tx) {
      await emOf(orm, tx).nativeUpdate(HrmsConfig, { orgId }, { valid: false, invalidReason: reason, updatedAt: new Date() });
    },
  };
}
