/**
 * Persistence of organizations and their API keys (MikroORM). Every method takes an optional
 * `Tx` (db/tx.ts), last, to run in a caller's transaction.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiKey, Org, type OrgCreatedVia } from '../db/entities';
import { emOf, transactionOf, type Tx } from '../db/tx';
import { isUuid } from '../domain/ids';

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
  /** The vendor whose token used `remoteOrgId` first (null without one). */
  remoteOrgVendorId?: number | null;
  /** Default `operator`. */
  createdVia?: OrgCreatedVia;
  inviteStatus?: string;
  websiteUrl?: string;
}

/**
 * How the SDK token finds a client org (docs/connect.md "Org resolution"): by
 * `remote_org_id` as the vendor `vendorOrgId` used it (another vendor's same id is another org),
 * by private e-mail domain (client orgs), or by `org_name_key` among the orgs the name rule made
 * and those `vendorOrgId` made by a remote id (client orgs without an `email_domain`, never the
 * operator's); the oldest when several match. A remote id's `emailDomain` (the token's private
 * domain) is the domain rule's fallback when the vendor's id names no org yet.
 */
export type ClientMatch =
  | { remoteOrgId: string; vendorOrgId: number; emailDomain?: string | undefined }
  | { emailDomain: string }
  | { orgNameKey: string; vendorOrgId?: number | undefined };

/** Org and API key persistence. */
export interface OrgStore {
  create(input: NewOrg, tx?: Tx): Promise<Org>;
  /** The org of `uuid`; null for an unknown uuid or a string that is not a UUID. */
  findByUuid(uuid: string, tx?: Tx): Promise<Org | null>;
  findById(id: number, tx?: Tx): Promise<Org | null>;
  findByAppKey(appKey: string, tx?: Tx): Promise<Org | null>;
  /**
   * Stores the keyed hash of an org's app_secret where it has none yet (orgs made before
   * Migration20261123020000) and its slow hash is still `slowHash` (the secret checked): a
   * secret replaced meanwhile (`setAppSecret`) never gets the old one's keyed hash.
   */
  setAppSecretKeyedHash(orgId: number, keyedHash: string, slowHash: string, tx?: Tx): Promise<void>;
  /** Replaces an org's app_secret (its hashes and last four characters) and sets `modified_on`. */
  setAppSecret(orgId: number, secret: { appSecretHash: string; appSecretKeyedHash: string | null; appSecretLast4: string }, tx?: Tx): Promise<void>;
  /** The org matching `match` (see {@link ClientMatch}), or null. */
  findClient(match: ClientMatch, tx?: Tx): Promise<Org | null>;
  /**
   * The org matching `match`, else `input` created, under a transaction-scoped advisory lock on
   * the match, so concurrent requests for one domain, name or remote id make one org.
   */
  findOrCreateClient(match: ClientMatch, input: NewOrg, tx?: Tx): Promise<{ org: Org; created: boolean }>;
  /** Sets the vendor notice fields given (null clears one) and `modified_on`; false when no org has `uuid`. */
  updateNotice(uuid: string, fields: { purpose?: string | null; privacyUrl?: string | null }, tx?: Tx): Promise<boolean>;
  /** Sets `invite_status` (and `modified_on`) when it differs. */
  setInviteStatus(orgId: number, status: string, tx?: Tx): Promise<void>;
  addApiKey(orgId: number, keyHash: string, prefix: string, tx?: Tx): Promise<ApiKey>;
  /** The org of an active (not revoked) API key, by its keyed hash. */
  findByApiKeyHash(keyHash: string, tx?: Tx): Promise<{ org: Org; keyId: string } | null>;
  /** Revokes an active key; false when there is no such active key. */
  revokeApiKey(keyId: string, tx?: Tx): Promise<boolean>;
  /**
   * Locks key `keyId`'s row FOR SHARE in `tx` (a revocation waits for `tx`, and `tx` waits for a
   * revocation in flight) and tells whether the key is still active.
   */
  holdActiveApiKey(keyId: string, tx: Tx): Promise<boolean>;
  /** Every API key of the org (revoked ones too), newest first: never the hash. */
  listApiKeys(orgId: number, tx?: Tx): Promise<ApiKeyInfo[]>;
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
  if ('remoteOrgId' in match) return { remoteOrgId: match.remoteOrgId, remoteOrgVendorId: match.vendorOrgId };
  if ('emailDomain' in match) return { emailDomain: match.emailDomain, isClient: true };
  // docs/connect.md "Org resolution": a retry without the remote id finds the org the same vendor made with it.
  const mine = match.vendorOrgId === undefined ? [] : [{ createdVia: 'remote_org_id' as const, remoteOrgVendorId: match.vendorOrgId }];
  return { orgNameKey: match.orgNameKey, isClient: true, emailDomain: null, $or: [{ createdVia: 'name' as const }, ...mine] };
}

const matchKey = (m: ClientMatch): string =>
  'remoteOrgId' in m ? `remote:${m.vendorOrgId}:${m.remoteOrgId}` : 'emailDomain' in m ? `domain:${m.emailDomain}` : `name:${m.orgNameKey}`;

/** Builds the org store over `orm`. */
export function createOrgStore(orm: MikroORM): OrgStore {
  const newOrg = (em: Tx, input: NewOrg): Org =>
    em.create(Org, {
      ...input,
      orgNameKey: input.orgName.trim().toLowerCase(),
      emailDomain: input.emailDomain ?? null,
      remoteOrgId: input.remoteOrgId ?? null,
      remoteOrgVendorId: input.remoteOrgVendorId ?? null,
      createdVia: input.createdVia ?? 'operator',
      inviteStatus: input.inviteStatus ?? 'accepted',
      websiteUrl: input.websiteUrl ?? '',
      appSecretKeyedHash: input.appSecretKeyedHash ?? null,
      createdOn: new Date(),
      modifiedOn: new Date(),
    } as Org);
  return {
    async create(input, tx) {
      const em = emOf(orm, tx);
      const org = newOrg(em, input);
      await em.persistAndFlush(org);
      return org;
    },
    findClient: (match, tx) => emOf(orm, tx).findOne(Org, whereOf(match), { orderBy: { id: 'asc' } }),
    async findOrCreateClient(match, input, tx) {
      return transactionOf(orm, tx, async (em) => {
        await em.execute(`select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:org:' || ?))`, [matchKey(match)]);
        const found = await em.findOne(Org, whereOf(match), { orderBy: { id: 'asc' } });
        if (found) return { org: found, created: false };
        return { org: newOrg(em, input), created: true };
      });
    },
    async updateNotice(uuid, fields, tx) {
      return (await emOf(orm, tx).nativeUpdate(Org, { uuid }, { ...fields, modifiedOn: new Date() })) > 0;
    },
    async setInviteStatus(orgId, status, tx) {
      await emOf(orm, tx).nativeUpdate(Org, { id: orgId, inviteStatus: { $ne: status } }, { inviteStatus: status, modifiedOn: new Date() });
    },
    // Not a UUID: no org (PostgreSQL would refuse the value with an error quoting the statement).
    findByUuid: async (uuid, tx) => (isUuid(uuid) ? emOf(orm, tx).findOne(Org, { uuid }) : null),
    findById: (id, tx) => emOf(orm, tx).findOne(Org, { id }),
    findByAppKey: (appKey, tx) => emOf(orm, tx).findOne(Org, { appKey }),
    async setAppSecretKeyedHash(orgId, keyedHash, slowHash, tx) {
      await emOf(orm, tx).nativeUpdate(Org, { id: orgId, appSecretKeyedHash: null, appSecretHash: slowHash }, { appSecretKeyedHash: keyedHash });
    },
    async setAppSecret(orgId, secret, tx) {
      await emOf(orm, tx).nativeUpdate(Org, { id: orgId }, { ...secret, modifiedOn: new Date() });
    },
    async addApiKey(orgId, keyHash, prefix, tx) {
      const em = emOf(orm, tx);
      const key = em.create(ApiKey, { id: randomUUID(), orgId, keyHash, prefix, createdAt: new Date(), revokedAt: null });
      await em.persistAndFlush(key);
      return key;
    },
    async findByApiKeyHash(keyHash, tx) {
      const em = emOf(orm, tx);
      const key = await em.findOne(ApiKey, { keyHash, revokedAt: null });
      if (!key) return null;
      const org = await em.findOne(Org, { id: key.orgId });
      return org ? { org, keyId: key.id } : null;
    },
    async revokeApiKey(keyId, tx) {
      const n = await emOf(orm, tx).nativeUpdate(ApiKey, { id: keyId, revokedAt: null }, { revokedAt: new Date() });
      return n > 0;
    },
    async holdActiveApiKey(keyId, tx) {
      if (!isUuid(keyId)) return false;
      const rows = await tx.execute<{ revoked_at: string | null }[]>(`select revoked_at from api_keys where id = ? for share`, [keyId]);
      return rows.length === 1 && rows[0]!.revoked_at === null;
    },
    async listApiKeys(orgId, tx) {
      const keys = await emOf(orm, tx).find(ApiKey, { orgId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
      return keys.map((k) => ({ id: k.id, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt }));
    },
  };
}
