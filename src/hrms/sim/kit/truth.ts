/**
 * The helpers every simulator's ground truth (`DialectSim.expected`) and renderer use, computed
 * from the canonical employee of `data.ts` (`DD/MM/YYYY` dates, enumeration codes), never through
 * a connector's decoders.
 */
import type { NativeEmployee } from '../data';

/** `DD/MM/YYYY` (canonical) → `{y, m, d}`, or `undefined`. */
export function dmy(v: string | null | undefined): { y: number; m: number; d: number } | undefined {
  const m = v ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v) : null;
  return m ? { y: Number(m[3]), m: Number(m[2]), d: Number(m[1]) } : undefined;
}

/** `DD/MM/YYYY` → `YYYY-MM-DD` (what hrx stores), or `undefined`. */
export function isoOf(v: string | null | undefined): string | undefined {
  const p = dmy(v);
  return p && `${p.y}-${String(p.m).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}

/** The canonical employee's full name (first, middle, last). */
export const fullNameOf = (e: NativeEmployee): string => [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' ');

/** A mobile number as hrx stores it: its last ten digits (the canonical ones carry +91, 0 or spaces); none without digits. */
export function tenDigits(v: string | null | undefined): string | undefined {
  const digits = (v ?? '').replace(/\D/g, '');
  return digits === '' ? undefined : digits.slice(-10);
}

/** The canonical blood group (`B+`, `B+ve`, `B Positive`) as `B+`, or `undefined`. */
export function bloodOf(v: string | null | undefined): string | undefined {
  const m = v ? /^(AB|A|B|O)\s*(\+|-|Positive|Negative)/.exec(v) : null;
  return m ? `${m[1]}${m[2] === '+' || m[2] === 'Positive' ? '+' : '-'}` : undefined;
}

/** Whether the canonical employee is still working (`status` `Active` in hrx). */
export const isWorking = (e: NativeEmployee): boolean => e.employment_status === 'ACTIVE' || e.employment_status === 'NOTICE_PERIOD';

/** Whether the canonical employee has left (resigned or terminated; notice period still works). */
export const hasLeft = (e: NativeEmployee): boolean => e.employment_status === 'RESIGNED' || e.employment_status === 'TERMINATED';

/** Every 53rd employee has no usable date of birth in the product (blank, or a zero date): an awkward case. */
export const hasNoBirthDate = (i: number): boolean => i % 53 === 0;

/** `undefined` for blank text. */
export const orNone = (v: string | null | undefined): string | undefined => (v ? v : undefined);

/** A canonical address line: `line1, line2` (line2 may be blank). */
export const addressLine = (a: { line1: string; line2: string }): string => [a.line1, a.line2].filter(Boolean).join(', ');

/** hrx's words for the canonical marital code. */
export const MARITAL_WORD: Readonly<Record<string, string>> = { SINGLE: 'Single', MARRIED: 'Married', DIVORCED: 'Divorced', WIDOWED: 'Widowed' };
/** The canonical gender code as hrx's word. */
export const GENDER_WORD: Readonly<Record<string, string>> = { M: 'Male', F: 'Female', O: 'Other' };
/** The canonical employment type as hrx's word. */
export const TYPE_WORD: Readonly<Record<string, string>> = { FULL_TIME: 'Full Time', PART_TIME: 'Part Time', CONTRACT: 'Contract', INTERN: 'Intern' };
