/**
 * Organizations: creation by the operator (docs/cli.md), API keys, and the org record of
 * docs/api.md "Org details" (and "Credentials").
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { hashApiKey, hashSecret, keyedSecretHash, maskSecret, newSecret } from '../crypto/secrets';
import type { Org } from '../db/entities';
import type { Transactor, Tx } from '../db/tx';
import { AppError } from '../errors';
import { checkAppCredentials } from './app-credentials';
import type { ApiKeyInfo, ClientMatch, NewOrg, OrgStore } from './store';
import { isUuid } from '../domain/ids';

/** The org record, field for field as docs/api.md "Org details" shows it. */
export interface OrgRecord {
  id: number;
  application: { app_name: string; app_key: string; app_secret: string };
  uuid: string;
  org_name: string;
  org_cin: string | null;
  website_url: string;
  logo_url: string;
  email_domain: string | null;
  invite_status: string;
  created_on: string;
  modified_on: string;
  is_client: boolean;
  is_vendor: boolean;
  brand_name: string | null;
  remote_org_id: string | null;
  hrms: string | null;
  invited_by: number;
  created_by: number;
}

export interface OrgServiceDeps {
  orgs: OrgStore;
  apiKeyPepper: Buffer;
  /** URL of the default logo (docs/api.md "Org details": always a URL). */
  defaultLogoUrl: string;
  /** How two orgs are connected: `approved`, `unapproved` (pending or rejected only), null (not). */
  connectedAs: (a: number, b: number) => Promise<'approved' | 'unapproved' | null>;
  /**
   * Keys of the app_secret keyed hash, current first (context.ts `secretPeppers`): new orgs get
   * one, and a wrong secret is refused without scrypt (auth/secret-check.ts). Absent: scrypt only.
   */
  secretPeppers?: KeyObject[];
  /** Tells every API process a key was revoked (their key caches drop it, auth/revocations.ts). */
  onApiKeyRevoked?: (keyId: string) => Promise<void>;
  /**
   * Runs in the transaction that revokes an API key: revokes what the key issued (the SDK tokens
   * and with them their Connect sessions, sdk/connect-store.ts).
   */
  onApiKeyRevoking?: (keyId: string, tx: Tx) => Promise<void>;
  /**
   * Runs in the transaction that replaces an org's app_secret: withdraws what the old secret
   * proved elsewhere (the Connect flow's proof of control, sdk/connect-store.ts).
   */
  onAppSecretRotated?: (orgId: number, tx: Tx) => Promise<void>;
  /** Opens the transaction a secret's replacement and its consequences commit in (db/tx.ts). */
  transactor: Transactor;
}

/**
 * Renders an org as its public record for the org `callerOrgId` (docs/api.md "Credentials"): `app_secret`
 * always masked; `app_key` in clear only for the caller's own org, otherwise masked the same way
 * (asterisks of its length, last 4 characters visible); `remote_org_id` only for the vendor that
 * set it, null for anyone else (docs/api.md "Org details").
 */
export function orgRecord(org: Org, defaultLogoUrl: string, callerOrgId: number): OrgRecord {
  const appKey = org.id === callerOrgId ? org.appKey : maskSecret(org.appKey.slice(-4), org.appKey.length);
  return {
    id: org.id,
    application: { app_name: org.appName, app_key: appKey, app_secret: maskSecret(org.appSecretLast4) },
    uuid: org.uuid,
    org_name: org.orgName,
    org_cin: org.orgCin,
    website_url: org.websiteUrl,
    logo_url: org.logoUrl ?? defaultLogoUrl,
    email_domain: org.emailDomain,
    invite_status: org.inviteStatus,
    created_on: org.createdOn.toISOString(),
    modified_on: org.modifiedOn.toISOString(),
    is_client: org.isClient,
    is_vendor: org.isVendor,
    brand_name: org.brandName,
    remote_org_id: org.remoteOrgVendorId === callerOrgId ? org.remoteOrgId : null,
    hrms: org.hrms,
    invited_by: org.invitedBy,
    created_by: org.createdBy,
  };
}

/**
 * The record as an org connected only by a pending (or rejected) connection sees it (docs/api.md
 * "Org details"): a vendor can create such a connection alone with an SDK token, so it shows the
 * org's public face and withholds what is the org's own: the internal `id`, `invited_by` and
 * `created_by` (0), `email_domain` and `hrms` (null), `modified_on` (the creation time), and
 * the last characters of `app_key` and `app_secret` (asterisks only; the secret's suffix moves on
 * `rotate-secret`). The fields keep their types.
 */
export function unapprovedView(r: OrgRecord): OrgRecord {
  const hidden = '*'.repeat(8);
  return {
    ...r,
    id: 0,
    application: { app_name: r.application.app_name, app_key: hidden, app_secret: hidden },
    email_domain: null,
    modified_on: r.created_on,
    hrms: null,
    invited_by: 0,
    created_by: 0,
  };
}

export type OrgService = ReturnType<typeof createOrgService>;

/** A fresh app_secret and what the store keeps of it (docs/api.md "Credentials": the secret stored only hashed). */
async function newAppSecret(
  pepper: KeyObject | undefined,
): Promise<{ appSecret: string; stored: { appSecretHash: string; appSecretKeyedHash: string | null; appSecretLast4: string } }> {
  const appSecret = newSecret();
  return {
    appSecret,
    stored: {
      appSecretHash: await hashSecret(appSecret),
      appSecretLast4: appSecret.slice(-4),
      appSecretKeyedHash: pepper ? keyedSecretHash(appSecret, pepper) : null,
    },
  };
}

/** A new org's identity and application credentials. */
async function newOrgFields(
  name: string,
  pepper: KeyObject | undefined,
): Promise<{ fields: Pick<NewOrg, 'uuid' | 'orgName' | 'appName' | 'appKey' | 'appSecretHash' | 'appSecretKeyedHash' | 'appSecretLast4'>; appSecret: string }> {
  const { appSecret, stored } = await newAppSecret(pepper);
  return {
    appSecret,
    fields: { uuid: randomUUID(), orgName: name, appName: name, appKey: newSecret('app_').slice(0, 36), ...stored },
  };
}

/** An API key as `hrx apikey list` shows it (never the key or its hash). */
export interface ApiKeyListing {
  id: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

const listing = (k: ApiKeyInfo): ApiKeyListing => ({
  id: k.id,
  prefix: k.prefix,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

/** An absolute http(s) URL of at most 500 characters, without credentials (a link a person may follow). */
function isWebUrl(v: string): boolean {
  if (v.length > 500) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Builds the org service. */
export function createOrgService(deps: OrgServiceDeps) {
  const peppers = deps.secretPeppers ?? [];
  const orgByUuid = async (uuid: string): Promise<Org> => {
    const org = isUuid(uuid) ? await deps.orgs.findByUuid(uuid.toLowerCase()) : null;
    if (!org) throw new AppError('NOT_FOUND');
    return org;
  };
  return {
    /** Creates an org; returns it with its `app_secret` in clear (shown this once). */
    async create(input: { name: string; vendor: boolean; client: boolean; domain?: string }) {
      const name = input.name.trim();
      if (!name) throw AppError.validation([{ field: 'name', message: 'required' }]);
      const { fields, appSecret } = await newOrgFields(name, peppers[0]);
      const org = await deps.orgs.create({
        ...fields,
        isVendor: input.vendor,
        isClient: input.client,
        emailDomain: input.domain?.toLowerCase() ?? null,
      });
      return { org, appSecret };
    },

    /**
     * The org an SDK token request resolves to by `match` (docs/connect.md "Which org a token
     * names"), created on first use as a client org with `invite_status` `pending` named `name`,
     * recording the rule that made it (`created_via`) and holding `emailDomain` (domain rule) or
     * `remoteOrgId` with the asking vendor as its owner (remote rule). Its application secret is
     * never shown: such an org sets up its HRMS through the Connect flow. In `tx` when given.
     */
    async resolveClient(match: ClientMatch, input: { name: string }, tx?: Tx): Promise<{ org: Org; created: boolean }> {
      const existing = await deps.orgs.findClient(match, tx);
      if (existing) return { org: existing, created: false };
      // docs/connect.md "Org resolution": a remote id new to the vendor, with a private domain, joins
      // that domain's org or makes one holding both, so a retry without the id finds the same org.
      if ('remoteOrgId' in match && match.emailDomain !== undefined) {
        const { fields } = await newOrgFields(input.name, peppers[0]);
        const both = {
          createdVia: 'remote_org_id' as const,
          remoteOrgId: match.remoteOrgId,
          remoteOrgVendorId: match.vendorOrgId,
          emailDomain: match.emailDomain,
        };
        const domain = { emailDomain: match.emailDomain };
        return deps.orgs.findOrCreateClient(domain, { ...fields, isVendor: false, isClient: true, inviteStatus: 'pending', ...both }, tx);
      }
      // Hashing the secret takes a while; done outside the lock, and wasted only on a lost race.
      const { fields } = await newOrgFields(input.name, peppers[0]);
      const how: Pick<NewOrg, 'createdVia' | 'emailDomain' | 'remoteOrgId' | 'remoteOrgVendorId'> =
        'remoteOrgId' in match
          ? { createdVia: 'remote_org_id', remoteOrgId: match.remoteOrgId, remoteOrgVendorId: match.vendorOrgId }
          : 'emailDomain' in match
            ? { createdVia: 'email_domain', emailDomain: match.emailDomain }
            : { createdVia: 'name' };
      return deps.orgs.findOrCreateClient(match, { ...fields, isVendor: false, isClient: true, inviteStatus: 'pending', ...how }, tx);
    },

    /**
     * In `tx`: locks API key `keyId` FOR SHARE and tells whether it is still active, so what `tx`
     * issues on the key's authority commits before a revocation or not at all (docs/connect.md
     * "Reference: the SDK token and the Connect endpoints": `hrx apikey revoke` revokes the tokens
     * the key issued, in its own transaction, which waits for this lock).
     */
    holdActiveApiKey: (keyId: string, tx: Tx): Promise<boolean> => deps.orgs.holdActiveApiKey(keyId, tx),

    /**
     * Sets what the Connect page tells the HR admin of vendor org `uuid` (docs/connect.md "The notice (DPDP Act 2023)"): its
     * `purpose` (plain text, at most 500 characters) and `privacyUrl` (an http or https URL);
     * a field left undefined keeps its value, '' clears it. Returns the org's notice as stored.
     * Throws NOT_FOUND (no such org), VALIDATION (`purpose`, `privacy_url`).
     */
    async updateNotice(uuid: string, input: { purpose?: string | undefined; privacyUrl?: string | undefined }) {
      const fields: { purpose?: string | null; privacyUrl?: string | null } = {};
      if (input.purpose !== undefined) {
        const purpose = input.purpose.trim();
        if (purpose.length > 500 || [...purpose].some((ch) => ch < ' ' && ch !== '\t' && ch !== '\n'))
          throw AppError.validation([{ field: 'purpose', message: 'must be plain text of at most 500 characters' }]);
        fields.purpose = purpose || null;
      }
      if (input.privacyUrl !== undefined) {
        const url = input.privacyUrl.trim();
        if (url && !isWebUrl(url)) throw AppError.validation([{ field: 'privacy_url', message: 'must be an http:// or https:// URL' }]);
        fields.privacyUrl = url || null;
      }
      const org = await orgByUuid(uuid);
      if (Object.keys(fields).length) await deps.orgs.updateNotice(org.uuid, fields);
      const after = (await deps.orgs.findByUuid(org.uuid))!;
      return { uuid: after.uuid, org_name: after.orgName, purpose: after.purpose, privacy_url: after.privacyUrl };
    },

    /** Marks a client org's invitation accepted (its HR admin completed the Connect flow, docs/api.md "Vendor connections"). */
    markInviteAccepted: (orgId: number): Promise<void> => deps.orgs.setInviteStatus(orgId, 'accepted'),

    /** The org of `id`, or null. */
    byId: (id: number): Promise<Org | null> => deps.orgs.findById(id),

    /** Issues an API key for the org `uuid`; the key is returned once and stored only hashed. */
    async createApiKey(uuid: string): Promise<string> {
      const org = await deps.orgs.findByUuid(uuid);
      if (!org) throw new AppError('NOT_FOUND');
      const key = newSecret('hrx_');
      await deps.orgs.addApiKey(org.id, hashApiKey(key, deps.apiKeyPepper), key.slice(0, 8));
      return key;
    },

    /** Every API key of org `uuid`, newest first (id, prefix, dates). Throws 404 NOT_FOUND for an unknown org. */
    async listApiKeys(uuid: string): Promise<ApiKeyListing[]> {
      return (await deps.orgs.listApiKeys((await orgByUuid(uuid)).id)).map(listing);
    },

    /**
     * Revokes API key `keyId` and tells every API process, which stop accepting it at once
     * (auth/revocations.ts; their caches expire within 1 s should the message be lost). The SDK
     * tokens the key issued are revoked in the same transaction (`onApiKeyRevoking`), so their
     * Connect sessions end too. Throws 404 NOT_FOUND when there is no such active key.
     */
    async revokeApiKey(keyId: string): Promise<void> {
      if (!isUuid(keyId)) throw new AppError('NOT_FOUND');
      const id = keyId.toLowerCase();
      const revoked = await deps.transactor.transaction(async (tx) => {
        if (!(await deps.orgs.revokeApiKey(id, tx))) return false;
        await deps.onApiKeyRevoking?.(id, tx);
        return true;
      });
      if (!revoked) throw new AppError('NOT_FOUND');
      await deps.onApiKeyRevoked?.(id);
    },

    /**
     * Replaces the org's `app_secret` with a new one, returned in clear this once (docs/cli.md
     * `hrx org rotate-secret`). The old secret is refused from the moment this returns, by every
     * process: application credentials are checked against the store on every request, never
     * cached. In the same transaction, what the old secret proved is withdrawn
     * (`onAppSecretRotated`: Connect sessions proven with it must prove again). The `app_key`
     * stays. Throws NOT_FOUND for an unknown uuid.
     */
    async rotateAppSecret(uuid: string): Promise<{ org: Org; appSecret: string }> {
      const org = await orgByUuid(uuid);
      const { appSecret, stored } = await newAppSecret(peppers[0]);
      await deps.transactor.transaction(async (tx) => {
        await deps.orgs.setAppSecret(org.id, stored, tx);
        await deps.onAppSecretRotated?.(org.id, tx);
      });
      return { org, appSecret };
    },

    /**
     * The org of `appKey` / `appSecret` (any kind), or null: the check behind setup-config, the
     * update webhook and the Connect flow's proof of control (orgs/app-credentials.ts). A wrong
     * secret costs no scrypt. The caller applies the failed-authentication limit first
     * (auth/failure-guard.ts).
     */
    verifyAppCredentials: (appKey: string, appSecret: string): Promise<Org | null> => checkAppCredentials(deps.orgs, appKey, appSecret, peppers),

    /**
     * The principal of a client org's `Authorization: Basic base64(app_key:app_secret)` (the
     * update webhook, docs/api.md "Credentials"), or null: unknown app_key, wrong secret, or a vendor-only org
     * (refused the same way, after the same slow hash).
     */
    async verifyClientBasic(appKey: string, appSecret: string): Promise<Principal | null> {
      const org = await checkAppCredentials(deps.orgs, appKey, appSecret, peppers);
      if (!org || !org.isClient) return null;
      return { orgId: org.id, orgUuid: org.uuid, isVendor: org.isVendor, isClient: true, credentialId: `app:${org.uuid}` };
    },

    /**
     * The org record of `uuid` for the caller `callerOrgId`: only its own org and orgs it shares
     * an active connection with; anything else is 404 `Not found.` (docs/api.md "Credentials").
     * Through a connection not approved, the record's private fields are withheld (`unapprovedView`).
     */
    async detailsFor(callerOrgId: number, uuid: string): Promise<OrgRecord> {
      if (!isUuid(uuid)) throw new AppError('NOT_FOUND');
      const org = await deps.orgs.findByUuid(uuid.toLowerCase());
      if (!org) throw new AppError('NOT_FOUND');
      if (org.id === callerOrgId) return orgRecord(org, deps.defaultLogoUrl, callerOrgId);
      const relation = await deps.connectedAs(callerOrgId, org.id);
      if (!relation) throw new AppError('NOT_FOUND');
      const record = orgRecord(org, deps.defaultLogoUrl, callerOrgId);
      return relation === 'approved' ? record : unapprovedView(record);
    },
  };
}
