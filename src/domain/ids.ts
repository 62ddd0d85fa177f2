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
