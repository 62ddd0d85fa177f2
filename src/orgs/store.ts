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
  /** Keyed hash of the secret (crypto/secrets `keyedSecretHash`). */
  appSecretKeyedHash?: string | null;
  appSecretLast4: string;
  isVendor: boolean;
  isClient: boolean;
  emailDomain?: string | null;
  remoteOrgId?: string | null;
  inviteStatus?: string;
  websiteUrl?: string;
}

/**
 * How the SDK token finds a client org (decisions §8): by `remote_org_id` (any org holding it),
 * by private e-mail domain or by `org_name_key` (client orgs only; the oldest when several match).
 */
export type ClientMatch = { remoteOrgId: string } | { emailDomain: string } | { orgNameKey: string };

/** Org and API key persistence. */
export interface OrgStore {
  create(input: NewOrg): Promise<Org>;
  findByUuid(uuid: string): Promise<Org | null>;
  findById(id: number): Promise<Org | null>;
  findByAppKey(appKey: string): Promise<Org | null>;
  /** Stores the keyed hash of an org's app_secret where it has none yet (orgs made before Migration20261123020000). */
  setAppSecretKeyedHash(orgId: number, keyedHash: string): Promise<void>;
  /** The org matching `match` (see {@link ClientMatch}), or null. */
  findClient(match: ClientMatch): Promise<Org | null>;
  /**
   * The org matching `match`, else `input` created, under a transaction-scoped advisory lock on
   * the match, so concurrent requests for one domain, name or remote id make one org.
   */
  findOrCreateClient(match: ClientMatch, input: NewOrg): Promise<{ org: Org; created: boolean }>;
  /** Sets `invite_status` (and `modified_on`) when it differs. */
  setInviteStatus(orgId: number, status: string): Promise<void>;
  addApiKey(orgId: number, keyHash: string, prefix: string): Promise<ApiKey>;
  /** The org of an active (not revoked) API key, by its keyed hash. */
  findByApiKeyHash(keyHash: string): Promise<{ org: Org; keyId: string } | null>;
  /** Revokes an active key; false when there is no such active key. */
  revokeApiKey(keyId: string): Promise<boolean>;
  /** Every API key of the org (revoked ones too), newest first: never the hash. */
  listApiKeys(orgId: number): Promise<ApiKeyInfo[]>;
}

/** What a listing shows of an API key: never the key, never its hash. */
export interface ApiKeyInfo {
  id: string;
  /** The first 8 characters of the key (`hrx_` and 4 more), to tell keys apart. */
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

function whereOf(match: ClientMatch) {
  if ('remoteOrgId' in match) return { remoteOrgId: match.remoteOrgId };
  if ('emailDomain' in match) return { emailDomain: match.emailDomain, isClient: true };
  return { orgNameKey: match.orgNameKey, isClient: true };
}

const matchKey = (m: ClientMatch): string =>
  'remoteOrgId' in m ? `remote:${m.remoteOrgId}` : 'emailDomain' in m ? `domain:${m.emailDomain}` : `name:${m.orgNameKey}`;

/** Builds the org store over `orm`. */
export function createOrgStore(orm: MikroORM): OrgStore {
  const newOrg = (em: ReturnType<MikroORM['em']['fork']>, input: NewOrg): Org =>
    em.create(Org, {
        ...input,
        orgNameKey: input.orgName.trim().toLowerCase(),
        emailDomain: input.emailDomain ?? null,
        remoteOrgId: input.remoteOrgId ?? null,
        inviteStatus: input.inviteStatus ?? 'accepted',
        websiteUrl: input.websiteUrl ?? '',
        appSecretKeyedHash: input.appSecretKeyedHash ?? null,
        createdOn: new Date(),
        modifiedOn: new Date(),
      } as Org);
  return {
    async create(input) {
      const em = orm.em.fork();
      const org = newOrg(em, input);
      await em.persistAndFlush(org);
      return org;
    },
    findClient: (match) => orm.em.fork().findOne(Org, whereOf(match), { orderBy: { id: 'asc' } }),
    async findOrCreateClient(match, input) {
      return orm.em.fork().transactional(async (em) => {
        await em.execute(`select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:org:' || ?))`, [matchKey(match)]);
        const found = await em.findOne(Org, whereOf(match), { orderBy: { id: 'asc' } });
        if (found) return { org: found, created: false };
        return { org: newOrg(em, input), created: true };
      });
    },
    async setInviteStatus(orgId, status) {
      await orm.em.fork().nativeUpdate(Org, { id: orgId, inviteStatus: { $ne: status } }, { inviteStatus: status, modifiedOn: new Date() });
    },
    findByUuid: (uuid) => orm.em.fork().findOne(Org, { uuid }),
    findById: (id) => orm.em.fork().findOne(Org, { id }),
    findByAppKey: (appKey) => orm.em.fork().findOne(Org, { appKey }),
    async setAppSecretKeyedHash(orgId, keyedHash) {
      await orm.em.fork().nativeUpdate(Org, { id: orgId, appSecretKeyedHash: null }, { appSecretKeyedHash: keyedHash });
    },
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
    async listApiKeys(orgId) {
      const keys = await orm.em.fork().find(ApiKey, { orgId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
      return keys.map((k) => ({ id: k.id, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt }));
    },
  };
}
