/**
 * Small decoders the product connectors share (docs/hrms/connectors.md: dates become `YYYY-MM-DD` whatever
 * the format, a value that is not a real calendar date stays empty, a value
 * the HRMS does not give stays empty, a value the connector cannot translate is left empty with a
 * warning naming the field, never the value). Text, enumeration, mobile and blood-group decoders
 * live with the reference mapping (`reference/mapping.ts`) and are reused from there.
 */
import type { ConnectorOptions } from './connector';

/**
 * `YYYY-MM-DD` for a calendar date, or `undefined` when it does not exist (31 February) or lies
 * before 1900: products use `0000-00-00` and .NET's `0001-01-01` for "no date".
 */
export function calendarDate(y: number, m: number, d: number): string | undefined {
  if (!Number.isInteger(y) || !Number.isInteger(m) || !Number.isInteger(d)) return undefined;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (y < 1900 || y > 9999 || dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** English month abbreviations as Zoho and others write them (`05-Jun-2020`), lower-cased → month number. */
export const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/** Reports one field through `ConnectorOptions.onWarning`: `reason` (never a value: a currency code at most) replaces the warner's own for this call. */
export type FieldWarner = (field: string, reason?: string) => void;

/**
 * A warner that calls `onWarning` at most once per field and reason (a page of 200 employees with the same
 * unknown code is one warning, not 200). A throwing callback is ignored: a logger must not break
 * the mapping.
 */
export function warnOnce(onWarning: ConnectorOptions['onWarning'], reason = 'value the connector cannot translate'): FieldWarner {
  const seen = new Set<string>();
  return (field, why) => {
    const key = `${field}\n${why ?? ''}`;
    if (!onWarning || seen.has(key)) return;
    seen.add(key);
    try {
      onWarning({ field, reason: why ?? reason });
    } catch {
      /* ignored */
    }
  };
}

/** The first non-empty string of `values` after trimming, or `undefined`. */
export function firstText(...values: unknown[]): string | undefined {
  for (const v of values) {
    if (typeof v === 'string' && v.trim() !== '') return v.replace(/\s+/g, ' ').trim();
  }
  return undefined;
}

/**
 * A date as the HRMS wrote it → `YYYY-MM-DD`, or `undefined` when blank, zero or not a date
 * (greytHR, Personio):
 * - ISO `2024-03-01`, and an ISO date-time `2024-03-01T00:00:00+05:30` / `...Z`: the calendar date
 *   as written, not converted to UTC (Personio writes midnight in the company's time zone, which
 *   in UTC is the day before);
 * - day first: `01-03-2024`, `01/03/2024`, `01.03.2024`;
 * - with a month name: `01 Mar 2024`, `01-Mar-2024`, `1 March 2024`.
 */
export function dayOf(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(t);
  if (m) return calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$/.exec(t);
  if (m) return calendarDate(Number(m[3]), Number(m[2]), Number(m[1]));
  m = /^(\d{1,2})[-\s]([A-Za-z]{3,9})[-\s,]+(\d{4})$/.exec(t);
  const month = m ? MONTHS[m[2]!.slice(0, 3).toLowerCase()] : undefined;
  return m && month ? calendarDate(Number(m[3]), month, Number(m[1])) : undefined;
}
