/**
 * Persistence of the Connect flow's users and SDK tokens (decisions §8).
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SdkToken, User } from '../db/entities';
import { isUuid } from '../domain/ids';

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

export type NewSdkToken = Pick<SdkToken, 'jti' | 'connectionId' | 'vendorOrgId' | 'clientOrgId' | 'userId' | 'issuedAt' | 'expiresAt'>;

export interface SdkStore {
  /** The user of `orgId` with `email` (lower-cased by the caller), created with `fullName` if missing. */
  ensureUser(orgId: number, email: string, fullName: string): Promise<User>;
  findUser(id: string): Promise<User | null>;
  /**
   * Records an issued token and revokes every earlier token of the same connection (one active
   * Connect session per connection), serialized per connection by an advisory lock. Rows expired
   * for more than a day are deleted on the way.
   */
  issue(token: NewSdkToken): Promise<void>;
  /** The unrevoked token `jti` (expired ones included: the caller checks `expiresAt`), or null. */
  findActive(jti: string): Promise<SdkTokenView | null>;
}


/** Builds the SDK store over `orm`. */
export function createSdkStore(orm: MikroORM): SdkStore {
  const sql = (q: string, params: unknown[] = []) => orm.em.getConnection().execute(q, params);
  return {
    async ensureUser(orgId, email, fullName) {
      // The no-op update makes `returning` yield the existing row; the first full name is kept,
      // so a later token request cannot rename a user.
      const [row] = (await sql(
        `insert into users (id, org_id, email, full_name, created_at) values (?, ?, ?, ?, now())
         on conflict (org_id, email) do update set email = excluded.email
         returning id, org_id, email, full_name, created_at`,
        [randomUUID(), orgId, email, fullName],
      )) as { id: string; org_id: number; email: string; full_name: string; created_at: Date }[];
      const u = new User();
      Object.assign(u, { id: row!.id, orgId: row!.org_id, email: row!.email, fullName: row!.full_name, createdAt: new Date(row!.created_at) });
      return u;
    },
    findUser: (id) => orm.em.fork().findOne(User, { id }),
    async issue(token) {
      await orm.em.fork().transactional(async (em) => {
        await em.execute(`select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:sdk_tokens:' || ?))`, [token.connectionId]);
        await em.nativeUpdate(SdkToken, { connectionId: token.connectionId, revokedAt: null }, { revokedAt: token.issuedAt });
        await em.nativeDelete(SdkToken, { connectionId: token.connectionId, expiresAt: { $lt: new Date(token.issuedAt.getTime() - 86_400_000) } });
        await em.insert(SdkToken, { ...token, revokedAt: null, hrmsConfiguredAt: null });
      });
    },
    async findActive(jti) {
      if (!isUuid(jti)) return null;
      const [row] = (await sql(
        `select t.jti, t.connection_id, t.vendor_org_id, t.client_org_id, o.uuid as client_org_uuid, t.user_id,
                t.expires_at, t.hrms_configured_at
           from sdk_tokens t join orgs o on o.id = t.client_org_id
          where t.jti = ? and t.revoked_at is null`,
        [jti],
      )) as Record<string, unknown>[];
      if (!row) return null;
      return {
        jti: row.jti as string, connectionId: row.connection_id as string, vendorOrgId: row.vendor_org_id as number,
        clientOrgId: row.client_org_id as number, clientOrgUuid: row.client_org_uuid as string, userId: row.user_id as string,
        expiresAt: new Date(row.expires_at as string), hrmsConfiguredAt: row.hrms_configured_at ? new Date(row.hrms_configured_at as string) : null,
      };
    },
  };
}
