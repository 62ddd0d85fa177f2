/**
 * Paging of list endpoints (docs/api.md "Vendor connections"): `page` 1-based (default 1), `page_size` default 20 and
 * at most 100 (docs/api.md "Conventions": over 100 is a validation failure), a page past the end `404 Invalid page.`
 * except page 1 of an empty list, and `pageInfo` `{totalPages, totalItems, items, next,
 * previous}` beside `data` (docs/api.md "Vendor connections").
 */
import { z } from 'zod';
import { AppError } from './errors';

/** Largest `page_size` (docs/api.md "Vendor connections", docs/limits.md). */
export const MAX_PAGE_SIZE = 100;

/** The query fields of a paged list, to spread into a route's query schema. */
export const pageQueryFields = {
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(20),
};

/** `pageInfo` as the route tables document it (the OpenAPI document's `extra` of paged routes). */
export const pageInfoSchema = z.strictObject({
  totalPages: z.number().int(),
  totalItems: z.number().int(),
  items: z.number().int().meta({ description: 'Entries in this page.' }),
  next: z.boolean(),
  previous: z.boolean(),
});

/** A page request: `page` 1-based, `pageSize` 1..100. */
export interface PageRequest {
  page: number;
  pageSize: number;
}

/** `pageInfo` of a paged answer (docs/api.md "Vendor connections"). */
export interface PageInfo {
  totalPages: number;
  totalItems: number;
  items: number;
  next: boolean;
  previous: boolean;
}

/** The row offset of `p` (for SQL `offset`). */
export const offsetOf = (p: PageRequest): number => (p.page - 1) * p.pageSize;

/**
 * The `pageInfo` of page `p` holding `items` rows out of `total`. Throws 404 INVALID_PAGE for a
 * page past the end, except page 1 (an empty list is page 1 with `totalItems: 0`, docs/api.md "Vendor connections").
 */
export function pageInfoOf(p: PageRequest, total: number, items: number): PageInfo {
  const totalPages = Math.ceil(total / p.pageSize);
  if (p.page > 1 && p.page > totalPages) throw new AppError('INVALID_PAGE');
  return { totalPages, totalItems: total, items, next: p.page < totalPages, previous: p.page > 1 };
}
