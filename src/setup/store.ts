/**
 * Persistence of client orgs' HRMS configurations; credentials encrypted at rest (decisions §5),
 * bound to their org by the AEAD's associated data.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FieldCipher } from '../crypto/field-cipher';
import { HrmsConfig } from '../db/entities';
import type { HrmsCredentials } from '../hrms/connector';

/** Decrypted configuration of one client org. */
export interface HrmsConfiguration {
  orgId: number;
  hrmsId: string;
  credentials: HrmsCredentials;
  apiConfigs: { api_id: string; access_credentials: HrmsCredentials }[];
  valid: boolean;
  invalidReason: string | null;
}

export interface HrmsConfigStore {
  /** Creates or replaces the configuration of `orgId` (posting again replaces it). */
  save(cfg: Omit<HrmsConfiguration, 'valid' | 'invalidReason'>): Promise<void>;
  /** The decrypted configuration, or null. Throws `DecryptionError` if it was tampered with. */
  load(orgId: number): Promise<HrmsConfiguration | null>;
  markInvalid(orgId: number, reason: string): Promise<void>;
}

const aad = (orgId: number) => `hrms-config:${orgId}`;

/** Builds the store over `orm`, encrypting with `cipher`. */
export function createHrmsConfigStore(orm: MikroORM, cipher: FieldCipher): HrmsConfigStore {
  return {
    async save(cfg) {
      const em = orm.em.fork();
      const credentialsEnc = cipher.encrypt(JSON.stringify({ credentials: cfg.credentials, apiConfigs: cfg.apiConfigs }), aad(cfg.orgId));
      const configuredApis = cfg.apiConfigs.map((a) => a.api_id);
      await em.upsert(HrmsConfig, {
        orgId: cfg.orgId, hrmsId: cfg.hrmsId, credentialsEnc, configuredApis, valid: true, invalidReason: null,
        createdAt: new Date(), updatedAt: new Date(),
      }, { onConflictFields: ['orgId'], onConflictExcludeFields: ['createdAt'] });
    },
    async load(orgId) {
      const row = await orm.em.fork().findOne(HrmsConfig, { orgId });
      if (!row) return null;
      const dec = JSON.parse(cipher.decrypt(row.credentialsEnc, aad(orgId))) as Pick<HrmsConfiguration, 'credentials' | 'apiConfigs'>;
      return { orgId, hrmsId: row.hrmsId, ...dec, valid: row.valid, invalidReason: row.invalidReason };
    },
    async markInvalid(orgId, reason) {
      await orm.em.fork().nativeUpdate(HrmsConfig, { orgId }, { valid: false, invalidReason: reason, updatedAt: new Date() });
    },
  };
}
