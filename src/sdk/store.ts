/**
 * Persistence of the Connect flow's users and SDK tokens (docs/connect.md "E-mail verification before an organisation is set up"). A user's e-mail and full
 * name are stored only encrypted (docs/at-rest.md): one envelope of both, bound to the
 * user's row (`user:<id>`), and the e-mail's blind index (`user-email`, scoped to the org) for
 * the one lookup by e-mail, "this org's user with this e-mail".
 *
 * Every method takes an optional `Tx` (db/tx.ts), last, to run in a caller's transaction.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import { blindIndexes } from '../crypto/blind-index';
import type { FieldCipher } from '../crypto/field-cipher';
import { SdkToken } from '../db/entities';
import { pgTextArray } from '../db/sql';
import { execute, transactionOf, type Tx } from '../db/tx';
import { isUuid } from '../domain/ids';
import { unavailable } from '../unavailable';

/**
 * The fields of an SDK token that the token's view and a Connect session share, from a row of
 * `sdk_tokens` joined to its client org (`client_org_uuid`).
 */
export function tokenFieldsOf(row: Record<string, unknown>) {
  return {
    jti: row.jti as string,
    connectionId: row.connection_id as string,
    vendorOrgId: row.vendor_org_id as number,
    clientOrgId: row.client_org_id as number,
    clientOrgUuid: row.client_org_uuid as string,
    userId: row.user_id as string,
    expiresAt: new Date(row.expires_at as string),
  };
}

/**
 * How long a token request waits for its vendor's creations lock (ms): a vendor's concurrent
 * requests that create orgs or users take it in turn, each for the last statements of its
 * transaction (docs/limits.md "Organisations and users created by SDK tokens").
 */
export const CREATIONS_LOCK_WAIT_MS = 8000;

/** A person of a client org named by an SDK token request (the HR admin), decrypted. */
export interface SdkUser {
  id: string;
  orgId: number;
  /** Lower-cased. */
  email: string;
  fullName: string;
  createdAt: Date;
}

/** Associated data of a user's profile envelope: bound to its row. */
export const userProfileAad = (userId: string): string => `user:${userId}`;

/** The profile envelope's plaintext (Migration20261123190000 writes the same shape). */
export const userProfileJson = (email: string, fullName: string): string => JSON.stringify({ email, full_name: fullName });

/** An unrevoked SDK token row with what a request made with it needs of its orgs and user. */
export interface SdkTokenView {
  jti: string;
  connectionId: string;
  vendorOrgId: number;
  clientOrgId: number;
  clientOrgUuid: string;
  userId: string;
  expiresAt: Date;
  hrmsConfiguredAt: Date | null;
}

/** A token to record; `fullName`: the request's `fullname`, kept sealed with it (docs/connect.md "Whose name the page shows"). */
export type NewSdkToken = Pick<SdkToken, 'jti' | 'connectionId' | 'vendorOrgId' | 'clientOrgId' | 'userId' | 'issuedAt' | 'expiresAt' | 'issuedByApiKeyId'> & {
  fullName: string;
};

/** Associated data of a token's `fullname` envelope: bound to its `jti`. */
export const tokenFullNameAad = (jti: string): string => `sdk_token_fullname:${jti}`;

/** What a vendor's SDK token requests create (docs/limits.md "Organisations and users created by SDK tokens"). */
export type SdkCreation = 'org' | 'user';

export interface SdkStore {
  /** The user of `orgId` with `email` (lower-cased by the caller), created with `fullName` if missing (`created`). */
  ensureUser(orgId: number, email: string, fullName: string, tx?: Tx): Promise<SdkUser & { created: boolean }>;
  findUser(id: string, tx?: Tx): Promise<SdkUser | null>;
  /**
   * Records an issued token and revokes every earlier token of the same connection (one active
   * Connect session per connection), serialized per connection by an advisory lock. Rows expired
   * for more than a day are deleted on the way.
   */
  issue(token: NewSdkToken, tx?: Tx): Promise<void>;
  /** The unrevoked token `jti` (expired ones included: the caller checks `expiresAt`), or null. */
  findActive(jti: string, tx?: Tx): Promise<SdkTokenView | null>;
  /** The `fullname` the request of token `jti` gave, decrypted; null when none was kept (or no such token). */
  tokenFullName(jti: string, tx?: Tx): Promise<string | null>;
  /** Whether token `jti` is unrevoked and unexpired now (as `tx` sees it). */
  isHonoured(jti: string, tx?: Tx): Promise<boolean>;
  /**
   * Counts `made` against vendor `vendorOrgId`'s creations of the last 24 hours, at most `perDay`
   * of each kind, in `tx` (rolled back with it), serialized per vendor by an advisory lock.
   * Returns 0 when recorded, else the seconds until one more of every kind in `made` fits
   * (nothing recorded). Rows older than a day are deleted on the way. The lock is asked for
   * without waiting in a statement (a request's statements time out in 1.5 s, and a vendor's
   * concurrent token requests queue on it): tried again every 20 ms for up to
   * `CREATIONS_LOCK_WAIT_MS`, past which `SERVICE_UNAVAILABLE` (503 with `Retry-After`) is thrown.
   */
  recordCreations(vendorOrgId: number, made: readonly SdkCreation[], perDay: number, tx: Tx): Promise<number>;
}

type UserRow = { id: string; org_id: number; profile_enc: string; created_at: string | Date };

/**
 * Builds the SDK store over `orm`. `cipher` opens and seals users' profile envelopes;
 * `blindKeys` are the blind index keys, current first (new rows), then retired ones (rows
 * written before a master-key rotation are still found).
 */
export function createSdkStore(orm: MikroORM, cipher: FieldCipher, blindKeys: readonly KeyObject[]): SdkStore {
  const sql = (q: string, params: unknown[], tx: Tx | undefined) => execute(orm, q, params, tx);
  const userOf = (row: UserRow): SdkUser => {
    const p = JSON.parse(cipher.decrypt(row.profile_enc, userProfileAad(row.id))) as { email: string; full_name: string };
    return { id: row.id, orgId: row.org_id, email: p.email, fullName: p.full_name, createdAt: new Date(row.created_at) };
  };
  return {
    async ensureUser(orgId, email, fullName, tx) {
      const [current, ...retired] = blindIndexes(blindKeys, 'user-email', orgId, email);
      // A row indexed under a retired key is found (and keeps its first full name); otherwise
      // the insert's no-op update makes `returning` yield a row a concurrent request created.
      // Either way the first full name is kept, so a later token request cannot rename a user.
      if (retired.length > 0) {
        const [old] = (await sql(
          `select id, org_id, profile_enc, created_at from users where org_id = ? and email_hash = any(?::text[]) limit 1`,
          [orgId, pgTextArray(retired)],
          tx,
        )) as UserRow[];
        if (old) return { ...userOf(old), created: false };
      }
      const id = randomUUID();
      const [row] = (await sql(
        `insert into users (id, org_id, email_hash, profile_enc, created_at) values (?, ?, ?, ?, now())
         on conflict (org_id, email_hash) do update set email_hash = excluded.email_hash
         returning id, org_id, profile_enc, created_at`,
        [id, orgId, current, cipher.encrypt(userProfileJson(email, fullName), userProfileAad(id))],
        tx,
      )) as UserRow[];
      return { ...userOf(row!), created: row!.id === id };
    },
    async findUser(id, tx) {
      if (!isUuid(id)) return null;
      const [row] = (await sql(`select id, org_id, profile_enc, created_at from users where id = ?`, [id], tx)) as UserRow[];
      return row ? userOf(row) : null;
    },
    async issue(token, tx) {
      await transactionOf(orm, tx, async (em) => {
        await em.execute(`select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:sdk_tokens:' || ?))`, [token.connectionId]);
        await em.nativeUpdate(SdkToken, { connectionId: token.connectionId, revokedAt: null }, { revokedAt: token.issuedAt });
        await em.nativeDelete(SdkToken, { connectionId: token.connectionId, expiresAt: { $lt: new Date(token.issuedAt.getTime() - 86_400_000) } });
        const { fullName, ...row } = token;
        await em.insert(SdkToken, { ...row, fullnameEnc: cipher.encrypt(fullName, tokenFullNameAad(row.jti)), revokedAt: null, hrmsConfiguredAt: null });
      });
    },
    async tokenFullName(jti, tx) {
      if (!isUuid(jti)) return null;
      const [row] = (await sql(`select fullname_enc from sdk_tokens where jti = ?`, [jti], tx)) as { fullname_enc: string | null }[];
      return row?.fullname_enc ? cipher.decrypt(row.fullname_enc, tokenFullNameAad(jti)) : null;
    },
    async findActive(jti, tx) {
      if (!isUuid(jti)) return null;
      const [row] = await sql(
        `select t.jti, t.connection_id, t.vendor_org_id, t.client_org_id, o.uuid as client_org_uuid, t.user_id,
                t.expires_at, t.hrms_configured_at
           from sdk_tokens t join orgs o on o.id = t.client_org_id
          where t.jti = ? and t.revoked_at is null`,
        [jti],
        tx,
      );
      if (!row) return null;
      return {
        ...tokenFieldsOf(row),
        hrmsConfiguredAt: row.hrms_configured_at ? new Date(row.hrms_configured_at as string) : null,
      };
    },
    async isHonoured(jti, tx) {
      if (!isUuid(jti)) return false;
      const rows = await sql(`select 1 from sdk_tokens where jti = ? and revoked_at is null and expires_at > now()`, [jti], tx);
      return rows.length > 0;
    },
    async recordCreations(vendorOrgId, made, perDay, tx) {
      if (made.length === 0) return 0;
      const deadline = Date.now() + CREATIONS_LOCK_WAIT_MS;
      for (;;) {
        const [got] = (await sql(`select pg_try_advisory_xact_lock(hashtext(current_schema() || ':hrx:sdk-creations:' || ?)) as ok`, [vendorOrgId], tx)) as {
          ok: boolean;
        }[];
        if (got?.ok) break;
        if (Date.now() >= deadline) throw unavailable();
        await sleep(20);
      }
      await sql(`delete from sdk_creations where vendor_org_id = ? and created_at <= now() - interval '1 day'`, [vendorOrgId], tx);
      let waitSec = 0;
      for (const kind of new Set(made)) {
        const need = made.filter((k) => k === kind).length;
        const times = (await sql(
          `select ceil(extract(epoch from (created_at + interval '1 day' - now())))::int as wait
             from sdk_creations where vendor_org_id = ? and kind = ? order by created_at asc`,
          [vendorOrgId, kind],
          tx,
        )) as { wait: number }[];
        // Room for `need` more once the (count - perDay + need) oldest have left the window.
        const over = times.length + need - perDay;
        if (over > 0) waitSec = Math.max(waitSec, Math.max(1, times[over - 1]?.wait ?? 1));
      }
      if (waitSec > 0) return waitSec;
      for (const kind of made) await sql(`insert into sdk_creations (vendor_org_id, kind, created_at) values (?, ?, now())`, [vendorOrgId, kind], tx);
      return 0;
    },
  };
}
