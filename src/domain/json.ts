/**
 * JSON values as TypeScript types: what the record walkers (`record.ts`, `data-points.ts`) walk.
 * A record type written as a type alias of JSON-valued fields is assignable to `Json` as is.
 */

/** Any JSON value (RFC 8259 §3). */
export type Json = null | string | number | boolean | Json[] | JsonObject;

/** A JSON object: text keys to JSON values. */
export type JsonObject = { [k: string]: Json };

/** True when `v` is a JSON object (not an array, not null). */
export function isJsonObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
