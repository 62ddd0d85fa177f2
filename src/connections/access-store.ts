/**
 * The database question behind every vendor read: which approved connection does vendor V have
 * with client org C (by the client's UUID)? One (unnamed) statement on `pg` (the read path's
 * pool; bench/: the hottest path), answered through `access-cache.ts`. The employees service
 * gets it as a function (`EmployeeServiceDeps.connectionAccess`) and knows no connection SQL.
 */
import type pg from 'pg';
import { queryableOf, type Tx } from '../db/tx';
import { EVERY_DATA_POINT } from '../domain/data-points';
import type { ConnectionAccess } from './access-cache';

const ACCESS_SQL = `select co.id as client_org_id, c.id as connection_id, c.shared_data_points, c.consent_required, c.live_source
    from orgs co join connections c on c.client_org_id = co.id and c.vendor_org_id = $1 and c.status = 'approved'
   where co.uuid = $2 limit 1`;

/** Loads what a vendor's read needs of its approved connection with a client org (in `tx` when given). */
export type ConnectionAccessLoader = (vendorOrgId: number, clientOrgUuid: string, tx?: Tx) => Promise<ConnectionAccess | null>;

/**
 * The loader over `pool`: the approved connection of `vendorOrgId` with client org
 * `clientOrgUuid` (a UUID, lower case), or null. Throws the database error.
 */
export function createConnectionAccessLoader(pool: pg.Pool): ConnectionAccessLoader {
  return async (vendorOrgId, clientOrgUuid, tx) => {
    const res = await (await queryableOf(pool, tx)).query({ text: ACCESS_SQL, values: [vendorOrgId, clientOrgUuid] });
    const r = res.rows[0] as Record<string, unknown> | undefined;
    if (!r) return null;
    return {
      clientOrgId: r.client_org_id as number,
      connectionId: r.connection_id as string,
      sharedDataPoints: (r.shared_data_points as string[] | null) ?? EVERY_DATA_POINT,
      consentRequired: r.consent_required as boolean,
      liveSource: r.live_source as boolean,
    };
  };
}

const TERMINATED_SQL = `select bool_and(c.status = 'terminated') as terminated
    from orgs co join connections c on c.client_org_id = co.id and c.vendor_org_id = $1
   where co.uuid = $2`;

/**
 * Whether every connection of `vendorOrgId` with client org `clientOrgUuid` (a UUID, lower case)
 * is terminated, and there is at least one: the read's own answer after termination (docs/api.md
 * "Errors"). Asked only once the approved-connection lookup found none, so the read path's hot
 * statement stays one. Throws the database error.
 */
export function createTerminatedCheck(pool: pg.Pool): (vendorOrgId: number, clientOrgUuid: string) => Promise<boolean> {
  return async (vendorOrgId, clientOrgUuid) => {
    const res = await pool.query({ text: TERMINATED_SQL, values: [vendorOrgId, clientOrgUuid] });
    return (res.rows[0] as { terminated: boolean | null } | undefined)?.terminated === true;
  };
}
