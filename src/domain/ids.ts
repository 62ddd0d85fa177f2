/**
 * The one UUID check hrx uses before an identifier reaches a `uuid` column or a comparison.
 *
 * @param s any string (a path segment, a claim, a request id)
 * @returns true when `s` is the canonical 8-4-4-4-12 hexadecimal form, in either case
 *   (RFC 9562 §4: "input is case insensitive"). Any version and variant are accepted; callers
 *   that store or compare the value lower-case it themselves.
 */
export function isUuid(s: string): boolean {
  return UUID_FORM.test(s);
}

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one canonical form of an employee id (the HRMS's `employeeId`): the id with the white space
 * around it removed, where white space is Unicode's (ECMAScript `String.prototype.trim`: tab,
 * line breaks, space, no-break space U+00A0, U+FEFF and every other space separator). So
 * `EMP1 `, `\tEMP1`, `EMP1\u00a0` and `EMP1` are one employee for the tombstone, the stored
 * lookup and the HRMS call alike; white space inside an id is kept. Every place an employee id
 * enters hrx (request bodies, path segments, JWS claims, HRMS pages) goes through this function.
 * Source: docs/erasure-and-retention.md "One form of an employee id".
 *
 * @param id any string
 * @returns `id` without leading and trailing white space (may be empty)
 */
export function canonicalEmployeeId(id: string): string {
  return id.trim();
}
