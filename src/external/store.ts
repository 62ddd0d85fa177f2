/**
 * Persistence of the V2 flow (docs/api.md "Credentials", docs/v2.md "Service keys"): service keys (created and rotated under a
 * PostgreSQL advisory lock, so concurrent processes never create two current keys), vendor
 * public keys, vendor Basic credentials, and the one connection lookup the endpoint needs. Every
 * method takes an optional `Tx` (db/tx.ts), last, to run in a caller's transaction.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { revokeGroundless } from '../credentials/store';
import { BasicCredential, ServiceKey, VendorKey } from '../db/entities';
import { emOf, execute, transactionOf, type Tx } from '../db/tx';

/**
 * The kinds of service key, one current key of each (docs/v2.md "Service keys", docs/credentials.md
 * "Keys and metadata"): `enc` RSA-OAEP-256, `sig` RS256, and `sig` ES256 for credentials.
 */
export const SERVICE_KEY_SLOTS = [
  { use: 'enc', alg: 'RSA-OAEP-256' },
  { use: 'sig', alg: 'RS256' },
  { use: 'sig', alg: 'ES256' },
] as const;

/** One kind of service key: its `use` and `alg`. */
export type ServiceKeySlot = (typeof SERVICE_KEY_SLOTS)[number];

/** A service key to insert (the private JWK already encrypted). */
export interface NewServiceKey {
  kid: string;
  use: 'enc' | 'sig';
  alg: ServiceKeySlot['alg'];
  privateJwkEnc: string;
  publicJwk: Record<string, unknown>;
}

/** Raised when a vendor registers a `kid` it already used (revoked keys included). */
export class KidConflictError extends Error {
  constructor() {
    super('a key with this kid is already registered for this org');
    this.name = 'KidConflictError';
  }
}

/** An active Basic credential with the org it belongs to. */
export interface BasicCredentialHit {
  credentialId: string;
  passwordHash: string;
  /** Keyed hash of the password; null on credentials made before Migration20261123020000. */
  passwordKeyedHash: string | null;
  orgId: number;
  orgUuid: string;
  isVendor: boolean;
  isClient: boolean;
}

export interface ExternalStore {
  /** Service keys that are current or still in grace (`expires_at > now()`), current first, newest first. */
  usableServiceKeys(tx?: Tx): Promise<ServiceKey[]>;
  /**
   * Under the advisory lock: asks `make` for keys of the kinds that have no current key and
   * inserts them. Returns how many were inserted (0 when another process got there first).
   */
  createMissingServiceKeys(make: (missing: ServiceKeySlot[]) => Promise<NewServiceKey[]>, tx?: Tx): Promise<number>;
  /**
   * Under the advisory lock: retires every current key (`retired_at = now()`, `expires_at =
   * now() + graceMs`) and inserts `keys` as the new current ones. Returns the retired kids.
   */
  rotateServiceKeys(keys: NewServiceKey[], graceMs: number, tx?: Tx): Promise<string[]>;
  /** Registers a vendor public key; throws KidConflictError when the org already has `kid`. */
  addVendorKey(input: { orgId: number; kid: string; publicJwk: Record<string, unknown>; bits: number }, tx?: Tx): Promise<VendorKey>;
  /** Every key of the org (revoked included), newest first. */
  listVendorKeys(orgId: number, tx?: Tx): Promise<VendorKey[]>;
  /** The org's non-revoked keys, most recently registered first. */
  activeVendorKeys(orgId: number, tx?: Tx): Promise<VendorKey[]>;
  /** Revokes a key; false when the org has no such active key. */
  revokeVendorKey(orgId: number, kid: string, tx?: Tx): Promise<boolean>;
  addBasicCredential(input: { orgId: number; username: string; passwordHash: string; passwordKeyedHash?: string | null }, tx?: Tx): Promise<BasicCredential>;
  /** Stores the keyed hash of a credential's password where it has none yet. */
  setBasicKeyedHash(credentialId: string, keyedHash: string, tx?: Tx): Promise<void>;
  /** The active credential of `username` with its org; null when unknown or revoked. */
  findBasicCredential(username: string, tx?: Tx): Promise<BasicCredentialHit | null>;
  /** Revokes a credential; false when the org has no such active credential. */
  revokeBasicCredential(orgId: number, username: string, tx?: Tx): Promise<boolean>;
  /**
   * The client org uuid of `connectionId` when it is a connection of `vendorOrgId`, whatever its
   * status (a connection's two orgs never change; whether it is approved is asked elsewhere).
   */
  connectionClient(vendorOrgId: number, connectionId: string, tx?: Tx): Promise<string | null>;
}

const LOCK_SQL = `select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:service_keys'))`;

/** Builds the V2 store over `orm`. */
export function createExternalStore(orm: MikroORM): ExternalStore {
  const insertKeys = (em: Tx, keys: NewServiceKey[]) => {
    const now = new Date();
    for (const k of keys) em.create(ServiceKey, { ...k, createdAt: now, retiredAt: null, expiresAt: null });
  };
  return {
    async usableServiceKeys(tx) {
      return emOf(orm, tx).find(
        ServiceKey,
        { $or: [{ retiredAt: null }, { expiresAt: { $gt: new Date() } }] },
        { orderBy: { retiredAt: 'desc nulls first', createdAt: 'desc' } },
      );
    },
    async createMissingServiceKeys(make, tx) {
      return transactionOf(orm, tx, async (em) => {
        await em.execute(LOCK_SQL);
        const current = await em.find(ServiceKey, { retiredAt: null });
        const missing = SERVICE_KEY_SLOTS.filter((slot) => !current.some((k) => k.use === slot.use && k.alg === slot.alg));
        if (missing.length === 0) return 0;
        const keys = await make([...missing]);
        insertKeys(em, keys);
        return keys.length;
      });
    },
    async rotateServiceKeys(keys, graceMs, tx) {
      return transactionOf(orm, tx, async (em) => {
        await em.execute(LOCK_SQL);
        const current = await em.find(ServiceKey, { retiredAt: null });
        const now = new Date();
        await em.nativeUpdate(ServiceKey, { retiredAt: null }, { retiredAt: now, expiresAt: new Date(now.getTime() + graceMs) });
        insertKeys(em, keys);
        return current.map((k) => k.kid);
      });
    },
    async addVendorKey(input, tx) {
      const em = emOf(orm, tx);
      const key = em.create(VendorKey, { id: randomUUID(), ...input, createdAt: new Date(), revokedAt: null });
      try {
        await em.persistAndFlush(key);
      } catch (err) {
        if ((err as { code?: string }).code === '23505' || /unique/i.test((err as Error).message)) throw new KidConflictError();
        throw err;
      }
      return key;
    },
    listVendorKeys: (orgId, tx) => emOf(orm, tx).find(VendorKey, { orgId }, { orderBy: { createdAt: 'desc', id: 'desc' } }),
    activeVendorKeys: (orgId, tx) => emOf(orm, tx).find(VendorKey, { orgId, revokedAt: null }, { orderBy: { createdAt: 'desc', id: 'desc' } }),
    async revokeVendorKey(orgId, kid, tx) {
      return transactionOf(orm, tx, async (t) => {
        if ((await emOf(orm, t).nativeUpdate(VendorKey, { orgId, kid, revokedAt: null }, { revokedAt: new Date() })) === 0) return false;
        // The credentials bound to the key (`cnf`): revoked with it (docs/credentials.md "Revocation").
        await revokeGroundless(orm, 'key_revoked', `c.vendor_org_id = ? and c.vendor_kid = ?`, [orgId, kid], t);
        return true;
      });
    },
    async addBasicCredential(input, tx) {
      const em = emOf(orm, tx);
      const cred = em.create(BasicCredential, {
        id: randomUUID(),
        ...input,
        passwordKeyedHash: input.passwordKeyedHash ?? null,
        createdAt: new Date(),
        revokedAt: null,
      });
      await em.persistAndFlush(cred);
      return cred;
    },
    async findBasicCredential(username, tx) {
      const [row] = await execute<{
        id: string;
        password_hash: string;
        password_keyed_hash: string | null;
        org_id: number;
        org_uuid: string;
        is_vendor: boolean;
        is_client: boolean;
      }>(
        orm,
        `select b.id, b.password_hash, b.password_keyed_hash, o.id as org_id, o.uuid as org_uuid, o.is_vendor, o.is_client
           from basic_credentials b join orgs o on o.id = b.org_id
          where b.username = ? and b.revoked_at is null`,
        [username],
        tx,
      );
      if (!row) return null;
      return {
        credentialId: row.id,
        passwordHash: row.password_hash,
        passwordKeyedHash: row.password_keyed_hash,
        orgId: row.org_id,
        orgUuid: row.org_uuid,
        isVendor: row.is_vendor,
        isClient: row.is_client,
      };
    },
    async setBasicKeyedHash(credentialId, keyedHash, tx) {
      await emOf(orm, tx).nativeUpdate(BasicCredential, { id: credentialId, passwordKeyedHash: null }, { passwordKeyedHash: keyedHash });
    },
    async revokeBasicCredential(orgId, username, tx) {
      return (await emOf(orm, tx).nativeUpdate(BasicCredential, { orgId, username, revokedAt: null }, { revokedAt: new Date() })) > 0;
    },
    async connectionClient(vendorOrgId, connectionId, tx) {
      const [row] = await execute<{ uuid: string }>(
        orm,
        `select o.uuid from connections c join orgs o on o.id = c.client_org_id
          where c.id = ? and c.vendor_org_id = ?`,
        [connectionId, vendorOrgId],
        tx,
      );
      return row?.uuid ?? null;
    },
  };
}
