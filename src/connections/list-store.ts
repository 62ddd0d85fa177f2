/**
 * The operator's list of connections (`hrx connection list`, docs/cli.md): one page, newest
 * first, with the total, filtered by vendor, client and status. Terminated connections are
 * listed only when asked for by status.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ConnectionStatus } from '../db/entities';
import { execute, type Tx } from '../db/tx';

/** One connection as the operator's list shows it. */
export interface ConnectionListItem {
  /** The connection's id: what `hrx connection approve|reject` and V2's `connection_id` take. */
  id: string;
  status: ConnectionStatus;
  vendor_org: string;
  vendor_name: string;
  client_org: string;
  client_name: string;
  sync_frequency: string;
  live_source: boolean;
  consent_required: boolean;
  /** ISO 8601 UTC. */
  created_at: string;
  /** ISO 8601 UTC: when the status last changed. */
  status_changed_at: string;
}

/** Which connections to list; org ids, not uuids (the service resolves them). */
export interface ConnectionListFilter {
  vendorOrgId?: number | undefined;
  clientOrgId?: number | undefined;
  statuses: readonly ConnectionStatus[];
}

export interface ConnectionListStore {
  /** One page (`offset`, `limit`) of the connections matching `filter`, newest first, and their total. */
  list(filter: ConnectionListFilter, offset: number, limit: number, tx?: Tx): Promise<{ rows: ConnectionListItem[]; total: number }>;
}

/** Builds the connection list store over `orm`. */
export function createConnectionListStore(orm: MikroORM): ConnectionListStore {
  return {
    async list(filter, offset, limit, tx) {
      const conds = ['c.status in (?)'];
      const params: unknown[] = [filter.statuses];
      for (const [column, id] of [
        ['c.vendor_org_id', filter.vendorOrgId],
        ['c.client_org_id', filter.clientOrgId],
      ] as const) {
        if (id === undefined) continue;
        conds.push(`${column} = ?`);
        params.push(id);
      }
      const where = `where ${conds.join(' and ')}`;
      const [count] = await execute<{ total: number }>(orm, `select count(*)::int as total from connections c ${where}`, params, tx);
      const rows = await execute<Omit<ConnectionListItem, 'created_at' | 'status_changed_at'> & { created_at: Date; status_changed_at: Date }>(
        orm,
        `select c.id, c.status, v.uuid as vendor_org, v.org_name as vendor_name, k.uuid as client_org, k.org_name as client_name,
                c.sync_frequency, c.live_source, c.consent_required, c.created_at, c.status_changed_at
           from connections c join orgs v on v.id = c.vendor_org_id join orgs k on k.id = c.client_org_id
           ${where} order by c.created_at desc, c.id desc offset ? limit ?`,
        [...params, offset, limit],
        tx,
      );
      return {
        total: count?.total ?? 0,
        rows: rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString(), status_changed_at: new Date(r.status_changed_at).toISOString() })),
      };
    },
  };
}
