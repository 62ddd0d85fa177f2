/**
 * A connection's data points (docs/connect.md "Reference: the SDK token and the Connect
 * endpoints"; docs/api.md "Vendor connections"): what it requested (its `data_model_flags`), split
 * by flag, what it shares once approved, and the three lists the vendor listing shows. Pure
 * functions of a connection row, used by the connection service, the Connect flow and freshness.
 */
import { ALL_DATA_POINTS, EVERY_DATA_POINT } from '../domain/data-points';
import type { Connection } from '../db/entities';

/** Data points a connection requested, from its `data_model_flags` (docs/connect.md "Reference: the SDK token and the Connect endpoints"). */
export function requestedDataPoints(flags: Connection['dataModelFlags']): string[] {
  if (!flags) return [...ALL_DATA_POINTS];
  const named = new Set<string>();
  for (const group of Object.values(flags)) {
    for (const [field, flag] of Object.entries(group)) if (flag !== 0) named.add(field);
  }
  return ALL_DATA_POINTS.filter((p) => named.has(p));
}

/**
 * Requested data points split by flag (docs/connect.md "Reference: the SDK token and the Connect endpoints"), each in record order: `required` (flag
 * -1) and `optional` (flag 1). No flags: every data point optional.
 */
export function requestSplit(flags: Connection['dataModelFlags']): { required: string[]; optional: string[] } {
  if (!flags) return { required: [], optional: [...ALL_DATA_POINTS] };
  const flagOf = new Map<string, number>();
  for (const group of Object.values(flags)) for (const [field, flag] of Object.entries(group)) flagOf.set(field, flag);
  return {
    required: ALL_DATA_POINTS.filter((p) => flagOf.get(p) === -1),
    optional: ALL_DATA_POINTS.filter((p) => flagOf.get(p) === 1),
  };
}

/**
 * The three data point lists of a connection as the vendor listing shows them (docs/api.md "Vendor connections"):
 * approved: shared / opted out / not asked for; otherwise `[]`, every requested point, the rest.
 */
export function dataPointLists(c: Connection): { shared: string[]; notShared: string[]; notRequested: string[] } {
  if (c.status === 'approved') {
    return {
      shared: sharedDataPoints(c),
      notShared: c.notSharedDataPoints,
      notRequested: c.sharedDataPoints === EVERY_DATA_POINT ? [] : c.notRequestedDataPoints,
    };
  }
  const requested = requestedDataPoints(c.dataModelFlags);
  const req = new Set(requested);
  return { shared: [], notShared: requested, notRequested: ALL_DATA_POINTS.filter((p) => !req.has(p)) };
}

/** The data points a connection shares now (`[]` unless approved). */
export function sharedDataPoints(c: Connection): string[] {
  if (c.status !== 'approved') return [];
  return c.sharedDataPoints === EVERY_DATA_POINT ? [...ALL_DATA_POINTS] : c.sharedDataPoints;
}
