/**
 * Persistence of organizations and their API keys (MikroORM).
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiKey, Org } from '../db/entities';

/** Fields needed to create an org. */
export interface NewOrg {
  uuid: string;
  orgName: string;
  appName: string;
  appKey: string;
  appSecretHash: string;
  appSecretLast4: string;
  isVendor: boolean;
  isClient: boolean;
  emailDomain?: string | null;
  remoteOrgId?: string | null;
  inviteStatus?: string;
  websiteUrl?: string;
}

/** Org and API key persistence. */
export interface OrgStore {
  create(input: NewOrg): Promise<Org>;
  findByUuid(uuid: string): Promise<Org | null>;
  findById(id: number): Promise<Org | null>;
  findByAppKey(appKey: string): Promise<Org | null>;
  addApiKey(orgId: number, keyHash: string, prefix: string): Promise<ApiKey>;
  /** The org of a live (not revoked) API key, by its keyed hash. */
  findByApiKeyHash(keyHash: string): Promise<{ org: Org; keyId: string } | null>;
  revokeApiKey(keyId: string): Promise<boolean>;
}

/** Builds the org store over `orm`. */
export function createOrgStore(orm: MikroORM): OrgStore {
  return {
    async create(input) {
      const em = orm.em.fork();
      const org = em.create(Org, {
        ...input,
        orgNameKey: input.orgName.trim().toLowerCase(),
        emailDomain: input.emailDomain ?? null,
        remoteOrgId: input.remoteOrgId ?? null,
        inviteStatus: input.inviteStatus ?? 'accepted',
        websiteUrl: input.websiteUrl ?? '',
        createdOn: new Date(),
        modifiedOn: new Date(),
      } as Org);
      await em.persistAndFlush(org);
      return org;
    },
    findByUuid: (uuid) => orm.em.fork().findOne(Org, { uuid }),
    findById: (id) => orm.em.fork().findOne(Org, { id }),
    findByAppKey: (appKey) => orm.em.fork().findOne(Org, { appKey }),
    async addApiKey(orgId, keyHash, prefix) {
      const em = orm.em.fork();
      const key = em.create(ApiKey, { id: randomUUID(), orgId, keyHash, prefix, createdAt: new Date(), revokedAt: null });
      await em.persistAndFlush(key);
      return key;
    },
    async findByApiKeyHash(keyHash) {
      const em = orm.em.fork();
      const key = await em.findOne(ApiKey, { keyHash, revokedAt: null });
      if (!key) return null;
      const org = await em.findOne(Org, { id: key.orgId });
      return org ? { org, keyId: key.id } : null;
    },
    async revokeApiKey(keyId) {
      const n = await orm.em.fork().nativeUpdate(ApiKey, { id: keyId, revokedAt: null }, { revokedAt: new Date() });
      return n > 0;
    },
  };
}
