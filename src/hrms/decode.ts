/**
 * Small decoders the product connectors share (docs/hrms/connectors.md: dates become `YYYY-MM-DD` whatever
 * the format, a value that is not a real calendar date stays empty, a value
 * the HRMS does not give stays empty, a value the connector cannot translate is left empty with a
 * warning naming the field, never the value).
 * Every product folder decodes through these (none imports another product's folder: the
 * dependency rule `hrms-product-not-to-other-product`, docs/architecture.md).
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

/** A JSON object as the HRMS sent it. */
export type Obj = Record<string, unknown>;

/** hrx's `gender` words, keyed by the upper-case codes products write (employee and dependents). */
export const GENDER_MAP: Readonly<Record<string, string>> = {
  M: 'Male',
  MALE: 'Male',
  F: 'Female',
  FEMALE: 'Female',
  O: 'Other',
  OTHER: 'Other',
};
/** hrx's `maritalStatus` words, keyed by the upper-case codes products write. */
export const MARITAL_STATUS_MAP: Readonly<Record<string, string>> = {
  SINGLE: 'Single',
  UNMARRIED: 'Single',
  MARRIED: 'Married',
  DIVORCED: 'Divorced',
  WIDOWED: 'Widowed',
  SEPARATED: 'Separated',
};
/** hrx's dependent `relation` words, keyed by the upper-case codes products write. */
export const RELATION_MAP: Readonly<Record<string, string>> = {
  SPOUSE: 'Spouse',
  WIFE: 'Spouse',
  HUSBAND: 'Spouse',
  SON: 'Son',
  DAUGHTER: 'Daughter',
  FATHER: 'Father',
  MOTHER: 'Mother',
  FATHER_IN_LAW: 'Father-in-law',
  MOTHER_IN_LAW: 'Mother-in-law',
};
/** Whether `v` is a JSON object (not an array, not null). */
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `v` when it is a JSON object, else an empty one. */
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});

/** Text that `text` returns as it is: non-blank, no edge whitespace, words joined by one space. */
const NORMAL_TEXT = /^\S+(?: \S+)*$/;

/** Trimmed text with inner whitespace collapsed; numbers become text; blank -> undefined. */
export function text(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return undefined;
  // Most values are already clean (words joined by single spaces): a test allocates nothing,
  // a replace and a trim would copy every one of them (a full sync maps every field).
  if (NORMAL_TEXT.test(v)) return v;
  const t = v.replace(/\s+/g, ' ').trim();
  return t === '' ? undefined : t;
}

/** An enum code through `map` (case and `-`/space-insensitive); unknown codes pass through as text. */
export function enumValue(map: Readonly<Record<string, string>>, v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const key = t.toUpperCase().replace(/[\s-]+/g, '_');
  return Object.hasOwn(map, key) ? map[key] : t;
}

/**
 * `DD/MM/YYYY` (also `D/M/YYYY`, `DD-MM-YYYY`, `DD.MM.YYYY`) or ISO `YYYY-MM-DD` -> `YYYY-MM-DD`;
 * anything else, or an impossible calendar date (31/02/2024), -> undefined.
 */
export function isoDate(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  let m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(t);
  let y: number, mo: number, d: number;
  if (m) [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t))) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else return undefined;
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (y < 1900 || dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return undefined;
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Indian mobile: drops spaces, dashes, `+91`/`91`/`0` prefixes -> 10 digits; other digit runs kept as is. */
export function mobileNumber(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const digits = t.replace(/[\s().-]/g, '').replace(/^\+/, '');
  if (!/^\d+$/.test(digits)) return undefined;
  if (digits.length === 12 && digits.startsWith('91')) return digits.slice(2);
  if (digits.length === 11 && digits.startsWith('0')) return digits.slice(1);
  return digits;
}

/** Money in INR: numbers as is; strings like `"1,23,456.50"` or `"₹ 2500"` parsed; else undefined. */
export function money(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  const t = text(v);
  if (t === undefined) return undefined;
  const cleaned = t.replace(/^(₹|INR|Rs\.?)\s*/i, '').replace(/,/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return undefined;
  return Number(cleaned);
}

/** Normalizes `B+ve`, `b positive`, `AB -`, `O+` to `B+`, `AB-`, `O+`; unknown text passes through. */
export function bloodGroup(v: unknown): string | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const m = /^(AB|A|B|O)\s*(\+|-|\+ ?ve|- ?ve|pos(?:itive)?|neg(?:ative)?)$/i.exec(t);
  if (!m) return t;
  return `${m[1]!.toUpperCase()}${/^(\+|pos)/i.test(m[2]!) ? '+' : '-'}`;
}

/** Removes `undefined` fields and nested objects left empty; arrays are kept (every product's mapping ends with it). */
export function compact<T>(o: T): T {
  if (!isObj(o)) return o;
  // Object.keys and a plain loop, not Object.entries: no [key, value] pair per field (this runs
  // on every object of every employee of a sync).
  const out: Obj = {};
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let v = o[k];
    if (v === undefined) continue;
    if (isObj(v)) {
      v = compact(v);
      if (isEmptyObj(v as Obj)) continue;
    }
    out[k] = v;
  }
  return out as T;
}

/** Whether `o` has no own enumerable key (without building the key array). */
function isEmptyObj(o: Obj): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}
