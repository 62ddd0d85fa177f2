/**
 * Vendor connections: listing (docs/api.md "Vendor connections"; docs/api.md "Terminate connection"), creation and
 * approval by the operator, and termination under the sync lock (docs/api.md "Terminate connection").
 */
import { ALL_DATA_POINTS, EVERY_DATA_POINT, isDataPoint } from '../domain/data-points';
import { NOT_AVAILABLE } from '../domain/record';
import type { Connection, ConnectionDecider, ConnectionStatus } from '../db/entities';
import type { TransactionOptions, Transactor, Tx } from '../db/tx';
import { AppError } from '../errors';
import type { Staged } from '../events/types';
import type { OrgStore } from '../orgs/store';
import type { SyncLock } from '../sync/lock';
import { displayDate } from './display-date';
import { dataPointLists, requestedDataPoints, requestSplit } from './requested-points';
import type { ConnectionStore, VendorConnectionRow } from './store';

/** `sync_frequency` values (docs/api.md "Vendor connections"). */
export const SYNC_FREQUENCIES = ['hourly', 'every_6_hours', 'every_12_hours', 'daily', 'weekly'] as const;
export type SyncFrequency = (typeof SYNC_FREQUENCIES)[number];

/** One entry of the vendor listing, field for field as docs/api.md "Vendor connections" shows it. */
export interface VendorConnectionEntry {
  org_name: string;
  org_id: string;
  shared_data_points: string[];
  not_shared_data_points: string[];
  not_requested_data_points: string[];
  last_successful_sync: string;
  sync_frequency: string;
  hrms_code: string;
  csm_user: string;
  created_by_user: string;
  phone: string;
  application_status_timestamp: string;
  int_type: string;
  email: string;
  is_international: boolean;
  salary_details_flag: boolean;
  application_connection_status: string;
  /** The connection's id (added to the interface's fields): what V2's `connection_id` names. */
  connection_id: string;
}

export interface PageInfo {
  totalPages: number;
  totalItems: number;
  items: number;
  next: boolean;
  previous: boolean;
}

export interface ConnectionServiceDeps {
  connections: ConnectionStore;
  orgs: OrgStore;
  /** Opens the transaction a change commits in together with its `connection.<status>` event. */
  transactor: Transactor;
  lock: SyncLock;
  displayTimeZone: string;
  /** Called after a change that can alter a client org's sync schedule. */
  onScheduleChange: (clientOrgId: number) => Promise<void>;
  /** Called after any change of a connection's state or sharing, before the change is answered. */
  onAccessChange: () => Promise<void>;
  /**
   * Queues a full sync of the client org now (docs/behaviour.md "Sync"): called when a connection became
   * approved while no other connection of its client org was, so the first approval never waits
   * for the scheduler's first period.
   */
  syncNow: (clientOrgId: number) => Promise<void>;
  /**
   * Events to the vendor (docs/events.md "Delivery"): `connection.<status>` staged for the transaction of a
   * status change; its `dispatch()` queues the deliveries once committed (events/service).
   */
  events: { connectionChanged(status: 'approved' | 'rejected' | 'terminated', c: Connection): Staged };
}

const sameRequest = (a: Connection['dataModelFlags'], b: Connection['dataModelFlags']): boolean =>
  JSON.stringify(requestSplit(a)) === JSON.stringify(requestSplit(b));

/**
 * A decision of the Connect flow: approve with the optional points opted in, or reject.
 * `configSession`: the Connect session that entered the org's configuration the approval rests
 * on (docs/connect.md "Reference: the SDK token and the Connect endpoints", squat-then-replace), recorded so setup-config replacing it revokes the approval.
 */
export type ConnectDecision = ({ to: 'approved'; optedIn: readonly string[]; configSession?: string | null } | { to: 'rejected' }) & {
  /**
   * Whether the credential that decides is still honoured, asked under the connection's row lock
   * in the decision's transaction: a token re-request changes the request and revokes the earlier
   * tokens in one transaction holding that row (docs/connect.md "The session"), so a session
   * authenticated before it commits cannot decide after it. False throws AUTH_INVALID.
   */
  stillHonoured?: (tx: Tx) => Promise<boolean>;
};

const STATUS_LABEL: Record<ConnectionStatus, string> = {
  approved: 'Active',
  pending: 'Inactive',
  rejected: 'Inactive',
  terminated: 'Terminated',
};

/** A vendor's entry of `row`: before approval no HRMS and no last sync (docs/api.md "Vendor connections"). */
function entryOf(row: VendorConnectionRow, tz: string): VendorConnectionEntry {
  const c = row.connection;
  const { shared, notShared, notRequested } = dataPointLists(c);
  const approved = c.status === 'approved';
  return {
    org_name: row.clientOrgName,
    org_id: row.clientOrgUuid,
    shared_data_points: shared,
    not_shared_data_points: notShared,
    not_requested_data_points: notRequested,
    last_successful_sync: displayDate(approved ? row.lastSuccessfulSync : null, tz),
    sync_frequency: c.syncFrequency,
    hrms_code: (approved ? row.hrmsId : null) ?? NOT_AVAILABLE,
    csm_user: c.csmUser,
    created_by_user: c.createdByUser,
    phone: c.phone,
    application_status_timestamp: displayDate(c.statusChangedAt, tz),
    int_type: c.intType,
    // The field is typed "string (e-mail)": an empty one is shown as unknown (docs/api.md "Vendor connections").
    email: c.email || NOT_AVAILABLE,
    is_international: c.isInternational,
    salary_details_flag: shared.some((p) => p.startsWith('ctc_') || p.startsWith('monthly_')),
    application_connection_status: STATUS_LABEL[c.status],
    connection_id: c.id,
  };
}

/** Options of operator-created connections (docs/cli.md). */
export interface CreateConnectionInput {
  vendorUuid: string;
  clientUuid: string;
  status?: 'pending' | 'approved' | 'rejected';
  shared?: string[];
  syncFrequency?: SyncFrequency;
  liveSource?: boolean;
  consentRequired?: boolean;
}

export type ConnectionService = ReturnType<typeof createConnectionService>;

/** A change and its event run once: no retry after a deadlock (the change is answered with the error). */
const ONCE: TransactionOptions = { maxRuns: 1 };

/** Builds the connection service. */
export function createConnectionService(deps: ConnectionServiceDeps) {
  const { connections, orgs, lock } = deps;

  /**
   * Moves connection `id` from a status of `from` to `to` and writes `event` in the same
   * transaction, only when the status changed. Returns whether it changed.
   */
  const transition = (id: string, from: ConnectionStatus[], to: ConnectionStatus, by: ConnectionDecider, event?: Staged): Promise<boolean> =>
    deps.transactor.transaction(async (tx) => {
      const changed = await connections.transition(id, from, to, tx, by);
      if (changed && event) await event.write(tx);
      return changed;
    }, ONCE);

  /**
   * After a connection of `clientOrgId` became approved: its schedule changes, and when it is the
   * org's only approved connection (its first approval, docs/behaviour.md "Sync") a sync is queued at once.
   */
  async function approved(clientOrgId: number): Promise<void> {
    await deps.onScheduleChange(clientOrgId);
    if ((await connections.approvedFrequencies(clientOrgId)).length === 1) await deps.syncNow(clientOrgId);
  }

  return {
    /**
     * A page of the vendor's connections (docs/api.md "Vendor connections"): `status` filters (absent: all but
     * terminated); `page` 1-based; a page past the end throws 404 `Invalid page.` (except page 1).
     */
    async listForVendor(vendorOrgId: number, q: { status?: 'pending' | 'approved' | 'rejected'; page: number; pageSize: number }) {
      const statuses: ConnectionStatus[] = q.status ? [q.status] : ['pending', 'approved', 'rejected'];
      const { rows, total } = await connections.listForVendor(vendorOrgId, statuses, (q.page - 1) * q.pageSize, q.pageSize);
      const totalPages = Math.ceil(total / q.pageSize);
      if (q.page > 1 && q.page > totalPages) throw new AppError('INVALID_PAGE');
      const pageInfo: PageInfo = {
        totalPages,
        totalItems: total,
        items: rows.length,
        next: q.page < totalPages,
        previous: q.page > 1,
      };
      return { pageInfo, data: rows.map((r) => entryOf(r, deps.displayTimeZone)) };
    },

    /**
     * Terminates the vendor's active connection with `clientOrgUuid` (docs/api.md "Terminate connection"
     * connection"). Throws 404 CLIENT_ORG_NOT_FOUND (unknown org, or no connection of this vendor,
     * so other vendors' connections look absent), 409 when already terminated, 423 while a sync
     * of the client org runs. The sync lock is held for the state change itself.
     */
    async terminate(vendorOrgId: number, clientOrgUuid: string, requestId: string): Promise<Connection> {
      const client = await orgs.findByUuid(clientOrgUuid);
      if (!client) throw new AppError('CLIENT_ORG_NOT_FOUND');
      const active = await connections.findActive(vendorOrgId, client.id);
      if (!active) {
        if (await connections.existsAny(vendorOrgId, client.id)) throw new AppError('CONNECTION_ALREADY_TERMINATED');
        throw new AppError('CLIENT_ORG_NOT_FOUND');
      }
      const held = await lock.acquire(client.id, `terminate:${requestId}`);
      if (!held) throw new AppError('SYNC_IN_PROGRESS');
      const event = deps.events.connectionChanged('terminated', active);
      try {
        const done = await transition(active.id, ['pending', 'approved', 'rejected'], 'terminated', 'vendor', event);
        if (!done) throw new AppError('CONNECTION_ALREADY_TERMINATED');
      } finally {
        await held.release();
      }
      await event.dispatch();
      await deps.onAccessChange();
      await deps.onScheduleChange(client.id);
      return (await connections.findById(active.id))!;
    },

    /** Creates a connection as the operator (docs/cli.md). Throws VALIDATION on bad input. */
    async create(input: CreateConnectionInput): Promise<Connection> {
      const vendor = await orgs.findByUuid(input.vendorUuid);
      const client = await orgs.findByUuid(input.clientUuid);
      if (!vendor?.isVendor) throw AppError.validation([{ field: 'vendor', message: 'no vendor org with this uuid' }]);
      if (!client?.isClient) throw AppError.validation([{ field: 'client', message: 'no client org with this uuid' }]);
      if (await connections.findActive(vendor.id, client.id)) {
        throw AppError.validation([{ field: 'client', message: 'an active connection with this client exists' }]);
      }
      const bad = (input.shared ?? []).find((p) => !isDataPoint(p));
      if (bad) throw AppError.validation([{ field: 'shared', message: `unknown data point ${bad}` }]);
      const shared = input.shared ?? EVERY_DATA_POINT;
      const sharedSet = new Set(shared ?? []);
      let event: Staged | undefined;
      const c = await deps.transactor.transaction(async (tx) => {
        const created = await connections.create(
          {
            vendorOrgId: vendor.id,
            clientOrgId: client.id,
            status: input.status ?? 'approved',
            decidedBy: (input.status ?? 'approved') === 'pending' ? null : 'operator',
            sharedDataPoints: shared,
            notSharedDataPoints: [],
            notRequestedDataPoints: shared === EVERY_DATA_POINT ? [] : ALL_DATA_POINTS.filter((p) => !sharedSet.has(p)),
            syncFrequency: input.syncFrequency ?? 'daily',
            liveSource: input.liveSource ?? false,
            consentRequired: input.consentRequired ?? true,
          },
          tx,
        );
        if (created.status !== 'pending') {
          event = deps.events.connectionChanged(created.status === 'approved' ? 'approved' : 'rejected', created);
          await event.write(tx);
        }
        return created;
      }, ONCE);
      await event?.dispatch();
      await deps.onAccessChange();
      if (c.status === 'approved') await approved(client.id);
      else await deps.onScheduleChange(client.id);
      return c;
    },

    /**
     * Makes sure a connection requesting `flags` exists between the pair (docs/connect.md "Reference: the SDK token and the Connect endpoints", SDK
     * token): none active → a new `pending` one; `pending` or `rejected` → `pending` with these
     * flags (the vendor asks again); `approved` → returned untouched. Serialized per pair by a
     * transaction-scoped advisory lock. Given `tx`, the change commits with the caller's
     * transaction (the SDK token issue revokes the pair's earlier tokens in it, docs/connect.md
     * "The session"), and the caller calls {@link accessChanged} once it committed.
     */
    async ensureRequested(vendorOrgId: number, clientOrgId: number, flags: Connection['dataModelFlags'], tx?: Tx): Promise<Connection> {
      const run = async (t: Tx): Promise<Connection> => {
        await t.execute(`select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:connection-pair:' || ?))`, [`${vendorOrgId}:${clientOrgId}`]);
        for (let attempt = 0; attempt < 3; attempt++) {
          const active = await connections.findActive(vendorOrgId, clientOrgId, t);
          if (active?.status === 'approved') return active;
          // An update that finds the status changed meanwhile (an approval committed) looks again.
          const c = active
            ? await connections.request(active.id, active.status as 'pending' | 'rejected', flags, t)
            : await connections.create({ vendorOrgId, clientOrgId, status: 'pending', dataModelFlags: flags }, t);
          if (c) return c;
        }
        throw new Error('connection changed concurrently too often');
      };
      if (tx) return run(tx);
      const c = await deps.transactor.transaction(run, ONCE);
      await deps.onAccessChange();
      return c;
    },

    /** Tells every API process that connections changed (after a `tx` given to {@link ensureRequested} committed). */
    accessChanged: (): Promise<void> => deps.onAccessChange(),

    /**
     * Applies the HR admin's decision of the Connect flow (docs/connect.md "Reference: the SDK token and the Connect endpoints") to a `pending`
     * connection whose request is still `expectedFlags`, under a row lock. Approval shares the
     * required points and `optedIn`, lists the other optional points as not shared and the rest
     * as not requested. Throws NOT_FOUND, CONNECTION_ALREADY_TERMINATED (409), CONNECTION_DECIDED
     * (409, approved or rejected already), AUTH_INVALID (the request changed: a newer token).
     */
    async decideInConnect(connectionId: string, expectedFlags: Connection['dataModelFlags'], decision: ConnectDecision): Promise<Connection> {
      // The connection.approved / .rejected event (docs/events.md) commits with the decision.
      let event: ReturnType<typeof deps.events.connectionChanged> | undefined;
      let clientOrgId = 0;
      const c = await deps.transactor.transaction(async (tx) => {
        const updated = await connections.updateLocked(
          connectionId,
          (cur) => {
            clientOrgId = cur.clientOrgId;
            if (cur.status === 'terminated') throw new AppError('CONNECTION_ALREADY_TERMINATED');
            if (cur.status !== 'pending') throw new AppError('CONNECTION_DECIDED', { params: { status: cur.status } });
            if (!sameRequest(cur.dataModelFlags, expectedFlags)) throw new AppError('AUTH_INVALID');
            event = deps.events.connectionChanged(decision.to, cur);
            const now = new Date();
            if (decision.to === 'rejected') return { status: 'rejected', statusChangedAt: now, decidedBy: 'admin' };
            const { required, optional } = requestSplit(cur.dataModelFlags);
            const share = new Set([...required, ...optional.filter((p) => decision.optedIn.includes(p))]);
            const requested = new Set([...required, ...optional]);
            return {
              status: 'approved',
              statusChangedAt: now,
              decidedBy: 'admin',
              approvedOnConfigSession: decision.configSession ?? null,
              sharedDataPoints: ALL_DATA_POINTS.filter((p) => share.has(p)),
              notSharedDataPoints: optional.filter((p) => !share.has(p)),
              notRequestedDataPoints: ALL_DATA_POINTS.filter((p) => !requested.has(p)),
            };
          },
          tx,
        );
        if (!updated) return null;
        if (decision.stillHonoured && !(await decision.stillHonoured(tx))) throw new AppError('AUTH_INVALID');
        if (decision.to === 'approved' && decision.configSession) {
          // The configuration the approval rests on must still be the org's: setup-config
          // replacing it holds its row FOR UPDATE, so either it waits for this commit (and then
          // sends this approval back to pending) or this sees its replacement (squat-then-replace).
          const [row] = await tx.execute<{ connect_session_id: string | null }[]>(`select connect_session_id from hrms_configs where org_id = ? for share`, [
            clientOrgId,
          ]);
          if (row?.connect_session_id !== decision.configSession) throw new AppError('PROOF_FAILED');
        }
        await event!.write(tx);
        return updated;
      }, ONCE);
      if (!c) throw new AppError('NOT_FOUND');
      await event?.dispatch();
      await deps.onAccessChange();
      if (c.status === 'approved') await approved(c.clientOrgId);
      else await deps.onScheduleChange(c.clientOrgId);
      return c;
    },

    /** The connection `id`, or null. */
    get: (id: string): Promise<Connection | null> => connections.findById(id),

    /** Approves or rejects a pending (or rejected/approved) connection; throws NOT_FOUND. */
    async decide(connectionId: string, to: 'approved' | 'rejected'): Promise<Connection> {
      const c = await connections.findById(connectionId);
      if (!c || c.status === 'terminated') throw new AppError('NOT_FOUND');
      const event = c.status === to ? undefined : deps.events.connectionChanged(to, c);
      // The shared points, the status and its event commit together.
      await deps.transactor.transaction(async (tx) => {
        if (to === 'approved' && c.status !== 'approved' && c.dataModelFlags) {
          // Operator approval shares what was requested, required and optional alike.
          const requested = requestedDataPoints(c.dataModelFlags);
          const req = new Set(requested);
          await connections.update(
            c.id,
            { sharedDataPoints: requested, notSharedDataPoints: [], notRequestedDataPoints: ALL_DATA_POINTS.filter((p) => !req.has(p)) },
            tx,
          );
        }
        if ((await connections.transition(c.id, [c.status], to, tx, 'operator')) && event) await event.write(tx);
      }, ONCE);
      await event?.dispatch();
      await deps.onAccessChange();
      if (to === 'approved' && c.status !== 'approved') await approved(c.clientOrgId);
      else await deps.onScheduleChange(c.clientOrgId);
      return (await connections.findById(c.id))!;
    },
  };
}
