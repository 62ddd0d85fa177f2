/**
 * The operator's list of orgs (`hrx org list`, docs/cli.md "hrx org list"), paged as the API's
 * lists are (src/paging.ts).
 */
import { offsetOf, pageInfoOf, type PageInfo, type PageRequest } from '../paging';
import type { OrgListFilter, OrgListItem, OrgListStore } from './list-store';

/** A page of orgs: `pageInfo` as the API's lists have it, and the orgs. */
export interface OrgListPage {
  pageInfo: PageInfo;
  orgs: OrgListItem[];
}

/** Builds the org listing over its store. */
export function createOrgListing(store: OrgListStore) {
  return {
    /** One page of the orgs matching `filter`, oldest first. Throws 404 INVALID_PAGE past the end (but page 1). */
    async list(filter: OrgListFilter, page: PageRequest): Promise<OrgListPage> {
      const { rows, total } = await store.list(filter, offsetOf(page), page.pageSize);
      return { pageInfo: pageInfoOf(page, total, rows.length), orgs: rows };
    },
  };
}

export type OrgListing = ReturnType<typeof createOrgListing>;
