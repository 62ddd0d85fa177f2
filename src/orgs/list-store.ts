/**
 * The operator's list of orgs (`hrx org list`, docs/cli.md): one page, oldest first, with the
 * total. A plain SQL read; it shows no secret (no app_secret hash, no API key).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, type Tx } from '../db/tx';

/** One org as the operator's list shows it. */
export interface OrgListItem {
  id: number;
  uuid: string;
  org_name: string;
  is_vendor: boolean;
  is_client: boolean;
  /** The client's e-mail domain; null when it has none. */
  email_domain: string | null;
  invite_status: string;
  /** ISO 8601 UTC. */
  created_on: string;
}

/** Which orgs to list: vendors, clients, or both (absent). */
export interface OrgListFilter {
  kind?: 'vendor' | 'client' | undefined;
}

export interface OrgListStore {
  /** One page (`offset`, `limit`) of the orgs matching `filter`, oldest first, and their total. */
  list(filter: OrgListFilter, offset: number, limit: number, tx?: Tx): Promise<{ rows: OrgListItem[]; total: number }>;
}

/** Builds the org list store over `orm`. */
export function createOrgListStore(orm: MikroORM): OrgListStore {
  return {
    async list(filter, offset, limit, tx) {
      const where = filter.kind === 'vendor' ? 'where is_vendor' : filter.kind === 'client' ? 'where is_client' : '';
      const [count] = await execute<{ total: number }>(orm, `select count(*)::int as total from orgs ${where}`, [], tx);
      const rows = await execute<Omit<OrgListItem, 'created_on'> & { created_on: Date }>(
        orm,
        `select id, uuid, org_name, is_vendor, is_client, email_domain, invite_status, created_on
           from orgs ${where} order by id offset ? limit ?`,
        [offset, limit],
        tx,
      );
      return { total: count?.total ?? 0, rows: rows.map((r) => ({ ...r, created_on: new Date(r.created_on).toISOString() })) };
    },
  };
}
