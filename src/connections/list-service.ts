/**
 * The operator's list of connections (`hrx connection list`, docs/cli.md "hrx connection
 * list"), paged as the API's lists are (src/paging.ts): every vendor's, or one vendor's or one
 * client org's, by status (absent: all but terminated).
 */
import type { ConnectionStatus } from '../db/entities';
import { AppError } from '../errors';
import type { OrgStore } from '../orgs/store';
import { offsetOf, pageInfoOf, type PageInfo, type PageRequest } from '../paging';
import type { ConnectionListItem, ConnectionListStore } from './list-store';

/** A page of connections: `pageInfo` as the API's lists have it, and the connections. */
export interface ConnectionListPage {
  pageInfo: PageInfo;
  connections: ConnectionListItem[];
}

/** What to list: org uuids, and one status (absent: pending, approved and rejected). */
export interface ConnectionListQuery {
  vendorUuid?: string | undefined;
  clientUuid?: string | undefined;
  status?: ConnectionStatus | undefined;
}

/** Builds the connection listing over its store and the org store (orgs are named by uuid). */
export function createConnectionListing(deps: { list: ConnectionListStore; orgs: Pick<OrgStore, 'findByUuid'> }) {
  /** The id of the org `uuid`; throws NOT_FOUND for none (the CLI names the uuid). */
  const orgId = async (uuid: string | undefined): Promise<number | undefined> => {
    if (uuid === undefined) return undefined;
    const org = await deps.orgs.findByUuid(uuid.toLowerCase());
    if (!org) throw new AppError('NOT_FOUND');
    return org.id;
  };
  return {
    /** One page of the connections matching `q`, newest first. Throws NOT_FOUND (unknown org), 404 INVALID_PAGE past the end (but page 1). */
    async list(q: ConnectionListQuery, page: PageRequest): Promise<ConnectionListPage> {
      const statuses: ConnectionStatus[] = q.status ? [q.status] : ['pending', 'approved', 'rejected'];
      const filter = { vendorOrgId: await orgId(q.vendorUuid), clientOrgId: await orgId(q.clientUuid), statuses };
      const { rows, total } = await deps.list.list(filter, offsetOf(page), page.pageSize);
      return { pageInfo: pageInfoOf(page, total, rows.length), connections: rows };
    },
  };
}

export type ConnectionListing = ReturnType<typeof createConnectionListing>;
