/**
 * Keka's paged envelope as the simulator answers every list (employees K:9474-9530, pay groups
 * K:5474-5558, pay cycles K:5364-5448, pay registers K:5801-6063 of Keka's description): `pageNumber`
 * and `pageSize` (default 100, at most 200: clamped, or refused with the `pageSizeOver200`
 * variant), `totalPages`, `totalRecords`, and page links absolute on the host the client asked
 * (`Host`), relative or absent (`nextPage` variant).
 */
import { json, type Reply } from '../../sim/kit';
import type { Variants } from '../../sim/kit';

/** How one list is paged: its path, the simulator's own URL (when `Host` is unusable) and its switches. */
export interface KekaPaging {
  path: string;
  simUrl: string;
  host: string | undefined;
  variants: Variants;
  /** Answers Keka's 400 for a bad query parameter (never returns). */
  bad: (message: string) => never;
}

/** A positive integer query parameter, `dflt` when absent; anything else is Keka's 400. */
export function intParam(q: URLSearchParams, name: string, dflt: number, bad: (message: string) => never): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return dflt;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) bad(`${name} must be a positive integer`);
  return Number(raw);
}

/** The page the query asks for: its number and size (size clamped to 200, or refused by the variant). */
export function pageOf(q: URLSearchParams, p: Pick<KekaPaging, 'variants' | 'bad'>): { pageNumber: number; pageSize: number } {
  const pageNumber = intParam(q, 'pageNumber', 1, p.bad);
  let pageSize = intParam(q, 'pageSize', 100, p.bad);
  if (pageSize > 200) {
    if (p.variants.oneOf('pageSizeOver200', ['clamp', 'error'], 'clamp') === 'error') p.bad('pageSize must be at most 200');
    pageSize = 200;
  }
  return { pageNumber, pageSize };
}

/** The 200 answer holding page `q` of `items`, each rendered by `render` (only the page's items are rendered). */
export function pagedReply<T>(q: URLSearchParams, p: KekaPaging, items: readonly T[], render: (item: T) => unknown): Reply {
  const { pageNumber, pageSize } = pageOf(q, p);
  const totalPages = Math.ceil(items.length / pageSize);
  const data = items.slice((pageNumber - 1) * pageSize, pageNumber * pageSize).map(render);
  const style = p.variants.oneOf('nextPage', ['absolute', 'relative', 'absent'], 'absolute');
  const link = (n: number): string => {
    const u = new URL(`${p.host && /^[\w.:-]+$/.test(p.host) ? `http://${p.host}` : p.simUrl}${p.path}?${q.toString()}`);
    u.searchParams.set('pageNumber', String(n));
    u.searchParams.set('pageSize', String(pageSize));
    return style === 'relative' ? u.pathname + u.search : u.href;
  };
  const refs =
    style === 'absent'
      ? {}
      : {
          firstPage: link(1),
          lastPage: link(Math.max(1, totalPages)),
          nextPage: pageNumber < totalPages ? link(pageNumber + 1) : null,
          previousPage: pageNumber > 1 ? link(pageNumber - 1) : null,
        };
  return json(200, { succeeded: true, message: '', errors: [], data, pageNumber, pageSize, ...refs, totalPages, totalRecords: items.length });
}
