/**
 * Persistence of vendor ↔ client connections (MikroORM; the vendor listing is one SQL query).
 * Every method takes an optional `Tx` (db/tx.ts), last, to run in a caller's transaction (e.g.
 * a status change with its `connection.<status>` event).
 */
import { randomUUID } from 'node:crypto';
import { LockMode, type MikroORM } from '@mikro-orm/postgresql';
import { Connection, type ConnectionDecider, type ConnectionStatus } from '../db/entities';
import { emOf, execute, transactionOf, type Tx } from '../db/tx';
import { EVERY_DATA_POINT } from '../domain/data-points';
import { isUuid } from '../domain/ids';

/** A row of the vendor listing: the connection plus what the entry shows of its client org. */
export interface VendorConnectionRow {
  connection: Connection;
  clientOrgName: string;
  clientOrgUuid: string;
  hrmsId: string | null;
  lastSuccessfulSync: Date | null;
}

export type NewConnection = Partial<Omit<Connection, 'id'>> & { vendorOrgId: number; clientOrgId: number };

export interface ConnectionStore {
  /** Creates a connection. */
  create(input: NewConnection, tx?: Tx): Promise<Connection>;
  /** The connection `id`; null for an unknown id or a string that is not a UUID. */
  findById(id: string, tx?: Tx): Promise<Connection | null>;
  /** The active (not terminated) connection of a vendor/client pair. */
  findActive(vendorOrgId: number, clientOrgId: number, tx?: Tx): Promise<Connection | null>;
  /** Whether any connection (terminated included) ever joined the pair. */
  existsAny(vendorOrgId: number, clientOrgId: number, tx?: Tx): Promise<boolean>;
  /** Updates sharing lists or settings of a connection. */
  update(id: string, patch: Partial<Pick<Connection, 'sharedDataPoints' | 'notSharedDataPoints' | 'notRequestedDataPoints'>>, tx?: Tx): Promise<void>;
  /**
   * Makes a pending or rejected connection pending with `flags` (a new SDK token request,
   * docs/connect.md "Reference: the SDK token and the Connect endpoints"); the sharing lists are reset. Returns the row, or null when it was not in `from`.
   */
  request(id: string, from: 'pending' | 'rejected', flags: Connection['dataModelFlags'], tx?: Tx): Promise<Connection | null>;
  /**
   * Read-modify-write of one connection under a row lock (`select … for update`): `change` sees
   * the current row and returns the fields to set, or throws to leave it as it is. Returns the
   * updated row (written, in `tx` when given: the lock is held until it ends), or null when
   * there is no such connection.
   */
  updateLocked(id: string, change: (c: Readonly<Connection>) => Partial<Omit<Connection, 'id'>>, tx?: Tx): Promise<Connection | null>;
  /**
   * Sets the status, its timestamp and who decided (`by`, docs/connect.md "After the decision";
   * null: not recorded); returns false when the row was not in `from`.
   */
  transition(id: string, from: ConnectionStatus[], to: ConnectionStatus, tx?: Tx, by?: ConnectionDecider | null): Promise<boolean>;
  /** One page of a vendor's connections, newest first, and the total. */
  listForVendor(
    vendorOrgId: number,
    statuses: ConnectionStatus[],
    offset: number,
    limit: number,
    tx?: Tx,
  ): Promise<{ rows: VendorConnectionRow[]; total: number }>;
  /** `sync_frequency` of the approved connections of a client org. */
  approvedFrequencies(clientOrgId: number, tx?: Tx): Promise<string[]>;
  /** Ids of the client orgs with at least one approved connection (the ones a sync scheduler runs for). */
  approvedClientOrgs(tx?: Tx): Promise<number[]>;
  /** Whether two orgs share an active connection, either way round. */
  areConnected(orgA: number, orgB: number, tx?: Tx): Promise<boolean>;
}

/** Builds the connection store over `orm`. */
export function createConnectionStore(orm: MikroORM): ConnectionStore {
  const sql = (q: string, params: unknown[], tx?: Tx) => execute(orm, q, params, tx);
  return {
    async create(input, tx) {
      const em = emOf(orm, tx);
      const now = new Date();
      const c = em.create(Connection, { ...new Connection(), ...input, id: randomUUID(), createdAt: now, statusChangedAt: now } as Connection);
      await em.persistAndFlush(c);
      return c;
    },
    // Not a UUID: no connection (PostgreSQL would refuse the value with an error quoting the statement).
    findById: async (id, tx) => (isUuid(id) ? emOf(orm, tx).findOne(Connection, { id }) : null),
    findActive: (vendorOrgId, clientOrgId, tx) => emOf(orm, tx).findOne(Connection, { vendorOrgId, clientOrgId, status: { $ne: 'terminated' } }),
    async existsAny(vendorOrgId, clientOrgId, tx) {
      return (await emOf(orm, tx).count(Connection, { vendorOrgId, clientOrgId })) > 0;
    },
    async update(id, patch, tx) {
      await emOf(orm, tx).nativeUpdate(Connection, { id }, patch);
    },
    async request(id, from, flags, tx) {
      const em = emOf(orm, tx);
      const n = await em.nativeUpdate(
        Connection,
        { id, status: from },
        {
          status: 'pending',
          dataModelFlags: flags,
          sharedDataPoints: EVERY_DATA_POINT,
          notSharedDataPoints: [],
          notRequestedDataPoints: [],
          decidedBy: null,
          ...(from === 'pending' ? {} : { statusChangedAt: new Date() }),
        },
      );
      // A fresh fork (in `tx`'s transaction, if any): the row as updated, not as an identity map holds it.
      return n > 0 ? em.fork({ keepTransactionContext: true }).findOne(Connection, { id }) : null;
    },
    async updateLocked(id, change, tx) {
      return transactionOf(orm, tx, async (em) => {
        const c = await em.findOne(Connection, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!c) return null;
        em.assign(c, change(c));
        await em.flush();
        return c;
      });
    },
    async transition(id, from, to, tx, by = null) {
      const now = new Date();
      const n = await emOf(orm, tx).nativeUpdate(
        Connection,
        { id, status: { $in: from } },
        { status: to, statusChangedAt: now, decidedBy: to === 'pending' ? null : by, ...(to === 'terminated' ? { terminatedAt: now } : {}) },
      );
      return n > 0;
    },
    async listForVendor(vendorOrgId, statuses, offset, limit, tx) {
      const [{ total }] = (await sql(
        `select count(*)::int as total from connections where vendor_org_id = ? and status in (?)`,
        [vendorOrgId, statuses],
        tx,
      )) as [{ total: number }];
      // The page is cut from `connections` alone (connections_vendor_idx) before anything is
      // joined: the last-sync subquery then runs for the page's rows, not for every skipped one
      // (docs/operations.md "Job schedulers at scale": 10,000 connections of one vendor).
      const ids = (await sql(
        `select p.id, o.org_name, o.uuid as org_uuid, h.hrms_id,
                (select max(finished_at) from sync_runs s where s.org_id = p.client_org_id and s.status = 'succeeded') as last_sync
           from (select id, client_org_id, created_at from connections where vendor_org_id = ? and status in (?)
                  order by created_at desc, id desc offset ? limit ?) p
           join orgs o on o.id = p.client_org_id
           left join hrms_configs h on h.org_id = p.client_org_id
          order by p.created_at desc, p.id desc`,
        [vendorOrgId, statuses, offset, limit],
        tx,
      )) as { id: string; org_name: string; org_uuid: string; hrms_id: string | null; last_sync: string | null }[];
      const conns = await emOf(orm, tx).find(Connection, { id: { $in: ids.map((r) => r.id) } });
      const byId = new Map(conns.map((c) => [c.id, c]));
      return {
        total,
        rows: ids.map((r) => ({
          connection: byId.get(r.id)!,
          clientOrgName: r.org_name,
          clientOrgUuid: r.org_uuid,
          hrmsId: r.hrms_id,
          lastSuccessfulSync: r.last_sync ? new Date(r.last_sync) : null,
        })),
      };
    },
    async approvedFrequencies(clientOrgId, tx) {
      const rows = await emOf(orm, tx).find(Connection, { clientOrgId, status: 'approved' }, { fields: ['syncFrequency'] });
      return rows.map((r) => r.syncFrequency);
    },
    async approvedClientOrgs(tx) {
      const rows = await execute<{ client_org_id: number }>(orm, `select distinct client_org_id from connections where status = 'approved'`, [], tx);
      return rows.map((r) => Number(r.client_org_id));
    },
    async areConnected(a, b, tx) {
      const [row] = (await sql(
        `select 1 from connections where status <> 'terminated' and ((vendor_org_id = ? and client_org_id = ?) or (vendor_org_id = ? and client_org_id = ?)) limit 1`,
        [a, b, b, a],
        tx,
      )) as unknown[];
      return row !== undefined;
    },
  };
}
