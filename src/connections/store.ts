/**
 * Persistence of vendor ↔ client connections (MikroORM; the vendor listing is one SQL query).
 * Every method takes an optional `Tx` (db/tx.ts), last, to run in a caller's transaction (e.g.
 * a status change with its `connection.<status>` event).
 */
import { randomUUID } from 'node:crypto';
import { LockMode, type MikroORM } from '@mikro-orm/postgresql';
import { Connection, type ConnectionDecider, type ConnectionStatus } from '../db/entities';
import { revokeGroundless } from '../credentials/store';
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
  /**
   * How two orgs are connected, either way round: `approved` (an approved connection), `unapproved`
   * (only connections neither approved nor terminated: pending, rejected), null (none).
   */
  connectedAs(orgA: number, orgB: number, tx?: Tx): Promise<'approved' | 'unapproved' | null>;
}

/** A `connections` row as raw SQL returns it through MikroORM's connection (timestamps as text). */
interface ConnectionRow {
  id: string;
  vendor_org_id: number;
  client_org_id: number;
  status: ConnectionStatus;
  shared_data_points: string[] | null;
  not_shared_data_points: string[];
  not_requested_data_points: string[];
  data_model_flags: Connection['dataModelFlags'];
  sync_frequency: string;
  live_source: boolean;
  consent_required: boolean;
  csm_user: string;
  created_by_user: string;
  phone: string;
  email: string;
  int_type: string;
  is_international: boolean;
  salary_details_flag: boolean;
  status_changed_at: string | Date;
  created_at: string | Date;
  terminated_at: string | Date | null;
  decided_by: ConnectionDecider | null;
  approved_on_config_session: string | null;
}

/** A row of the vendor listing's statement: the total, and a connection of the page (all null when the page is empty). */
type ListRow = ConnectionRow & { total: number; list_org_name: string; list_org_uuid: string; list_hrms_id: string | null; list_last_sync: string | null };

/**
 * The `Connection` of a raw row (every column of the entity, as MikroORM would load it), for the
 * vendor listing's one statement: an unmanaged object, read only.
 */
function connectionOfRow(r: ConnectionRow): Connection {
  const date = (v: string | Date): Date => (v instanceof Date ? v : new Date(v));
  return Object.assign(new Connection(), {
    id: r.id,
    vendorOrgId: Number(r.vendor_org_id),
    clientOrgId: Number(r.client_org_id),
    status: r.status,
    sharedDataPoints: r.shared_data_points,
    notSharedDataPoints: r.not_shared_data_points,
    notRequestedDataPoints: r.not_requested_data_points,
    dataModelFlags: r.data_model_flags,
    syncFrequency: r.sync_frequency,
    liveSource: r.live_source,
    consentRequired: r.consent_required,
    csmUser: r.csm_user,
    createdByUser: r.created_by_user,
    phone: r.phone,
    email: r.email,
    intType: r.int_type,
    isInternational: r.is_international,
    salaryDetailsFlag: r.salary_details_flag,
    statusChangedAt: date(r.status_changed_at),
    createdAt: date(r.created_at),
    terminatedAt: r.terminated_at === null ? null : date(r.terminated_at),
    decidedBy: r.decided_by,
    approvedOnConfigSession: r.approved_on_config_session,
  });
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
      // A connection no longer approved: its credentials are revoked in the same transaction (docs/credentials.md "Revocation").
      if (n > 0 && to !== 'approved') {
        await revokeGroundless(
          orm,
          'connection_terminated',
          `c.client_org_id = (select client_org_id from connections where id = ?) and c.connection_id = ?`,
          [id, id],
          tx,
        );
      }
      return n > 0;
    },
    async listForVendor(vendorOrgId, statuses, offset, limit, tx) {
      // One statement (docs/operations.md "Job schedulers at scale": 10,000 connections of one
      // vendor): the total, and the page cut from the vendor's index alone (its ids, an
      // index-only walk up to the offset) before the page's 20 rows are joined to their
      // connection, org, configuration and last successful sync. The total comes back on every
      // row, and on one row of nulls when the page is empty.
      const rows = await execute<ListRow>(
        orm,
        `select t.total, p.*
           from (select count(*)::int as total from connections where vendor_org_id = ? and status in (?)) t
           left join lateral (
             select c.*, o.org_name as list_org_name, o.uuid as list_org_uuid, h.hrms_id as list_hrms_id,
                    (select max(finished_at) from sync_runs s where s.org_id = c.client_org_id and s.status = 'succeeded') as list_last_sync
               from (select id from connections where vendor_org_id = ? and status in (?)
                      order by created_at desc, id desc offset ? limit ?) page
               join connections c on c.id = page.id
               join orgs o on o.id = c.client_org_id
               left join hrms_configs h on h.org_id = c.client_org_id
           ) p on true
          order by p.created_at desc, p.id desc`,
        [vendorOrgId, statuses, vendorOrgId, statuses, offset, limit],
        tx,
      );
      return {
        total: rows[0]?.total ?? 0,
        rows: rows
          .filter((r) => r.id !== null)
          .map((r) => ({
            connection: connectionOfRow(r),
            clientOrgName: r.list_org_name,
            clientOrgUuid: r.list_org_uuid,
            hrmsId: r.list_hrms_id,
            lastSuccessfulSync: r.list_last_sync ? new Date(r.list_last_sync) : null,
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
    async connectedAs(a, b, tx) {
      const [row] = (await sql(
        `select bool_or(status = 'approved') as approved from connections
          where status <> 'terminated' and ((vendor_org_id = ? and client_org_id = ?) or (vendor_org_id = ? and client_org_id = ?))`,
        [a, b, b, a],
        tx,
      )) as { approved: boolean | null }[];
      const approved = row?.approved ?? null;
      return approved === null ? null : approved ? 'approved' : 'unapproved';
    },
  };
}
