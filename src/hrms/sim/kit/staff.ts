/**
 * The state every product simulator keeps: the tokens it issued and the employees it serves
 * (the canonical employees of `data.ts` with changes, exits and deletions applied).
 */
import { randomBytes } from 'node:crypto';
import { employeeCode, employeeIndex, generateEmployee, type NativeEmployee } from '../data';
import { isWorking } from './truth';

/** Tokens a simulator issued: each valid until its time runs out, its call budget is spent, or all are revoked. */
export class Tokens {
  private readonly issued = new Map<string, { expiresAt: number; uses: number }>();
  /** Data calls each token serves before it stops working (0: no limit): the `tokenExpiresAfterCalls` fault. */
  callsPerToken = 0;

  /** A new random token with `prefix`, valid for `ttlMs`. */
  issue(ttlMs: number, prefix = ''): string {
    const now = Date.now();
    if (this.issued.size > 10_000) for (const [t, v] of this.issued) if (v.expiresAt <= now) this.issued.delete(t);
    const token = `${prefix}${randomBytes(24).toString('base64url')}`;
    this.issued.set(token, { expiresAt: now + ttlMs, uses: 0 });
    return token;
  }

  /** Whether `token` may serve one more data call (that call counted). */
  use(token: string | undefined): boolean {
    const t = token === undefined ? undefined : this.issued.get(token);
    if (!t || t.expiresAt <= Date.now()) return false;
    t.uses += 1;
    return this.callsPerToken <= 0 || t.uses <= this.callsPerToken;
  }

  /** Forgets one token (a rotated one). */
  drop(token: string): void {
    this.issued.delete(token);
  }

  revokeAll(): void {
    this.issued.clear();
  }
}

/**
 * How a removal shows: the employee is deleted (no longer listed: the default of
 * `DialectSim.remove`), or exits (listed with its exit status and date: a change).
 */
export type RemoveMode = 'exit' | 'delete';

/** What `change` does to employee `i` at its `n`-th change: a new designation and mobile number. */
export type Revision = (e: NativeEmployee, i: number, n: number) => void;

/** `Principal Consultant (revision n)` (Keka, Zoho People, greytHR, Personio). */
export const REVISION_NAMED: Revision = (e, i, n) => {
  e.designation = `Principal Consultant (revision ${n})`;
  e.mobile = `9${String((i * 7919 + n * 104_729) % 1_000_000_000).padStart(9, '0')}`;
};

/** `Principal Consultant n` (Darwinbox, BambooHR). */
export const REVISION_NUMBERED: Revision = (e, i, n) => {
  e.designation = `Principal Consultant ${n}`;
  e.mobile = `9${String(i * 7919 + n)
    .padStart(9, '0')
    .slice(-9)}`;
};

/** Last-modified time of an employee nobody changed, by default: a fixed past instant, one minute apart by index. */
const UNCHANGED_AT = Date.UTC(2025, 10, 30);

/** The date in India (UTC+05:30) of `ms`, as `DD/MM/YYYY` (the canonical employee's format). */
export function indiaDate(ms: number): string {
  const d = new Date(ms + 330 * 60_000);
  return `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
}

/**
 * The employees a simulator serves: `1..count` minus deletions, each the canonical employee of
 * `(seed, i)` with its changes (`revision`) and exit (terminated on the day of `remove` as
 * `exit`) applied, and when each was last modified (`unchangedAt(i)` until it changes).
 * Throws `RangeError` unless `count` is a non-negative safe integer.
 */
export class Staff {
  private readonly deleted = new Map<number, number>();
  private readonly revisions = new Map<number, number>();
  private readonly exits = new Map<number, number>();
  private readonly modified = new Map<number, number>();
  private servedCache: number[] | undefined;
  /** Whether each employee is still working: listings filter on it without regenerating. */
  private readonly workingCache = new Map<number, boolean>();
  private readonly revision: Revision;
  private readonly unchangedAt: (i: number) => number;

  constructor(
    readonly seed: string | number,
    readonly count: number,
    opts: { revision?: Revision; unchangedAt?: (i: number) => number } = {},
  ) {
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError('employees must be a non-negative integer');
    this.revision = opts.revision ?? REVISION_NAMED;
    this.unchangedAt = opts.unchangedAt ?? ((i) => UNCHANGED_AT - i * 60_000);
  }

  /** Served indices, ascending. */
  served(): readonly number[] {
    this.servedCache ??= Array.from({ length: this.count }, (_, k) => k + 1).filter((i) => !this.deleted.has(i));
    return this.servedCache;
  }

  isServed(i: number): boolean {
    return Number.isInteger(i) && i >= 1 && i <= this.count && !this.deleted.has(i);
  }

  /** The served index of an employee code, or `undefined`. */
  indexOf(code: string): number | undefined {
    const i = employeeIndex(code);
    return i !== undefined && this.isServed(i) && employeeCode(i) === code ? i : undefined;
  }

  /** Employee `i` as the product holds it now. */
  employee(i: number): NativeEmployee {
    const e = generateEmployee(this.seed, i);
    const n = this.revisions.get(i);
    if (n !== undefined) this.revision(e, i, n);
    const exit = this.exits.get(i);
    if (exit !== undefined) {
      e.employment_status = 'TERMINATED';
      e.exit_date = indiaDate(exit);
    }
    return e;
  }

  /** Whether employee `i` is still working (`isWorking` of its current state), cached. */
  working(i: number): boolean {
    let w = this.workingCache.get(i);
    if (w === undefined) this.workingCache.set(i, (w = isWorking(this.employee(i))));
    return w;
  }

  /** When employee `i` was last added or modified, epoch ms. */
  modifiedAt(i: number): number {
    return this.modified.get(i) ?? this.unchangedAt(i);
  }

  /** When employee `i` was deleted (epoch ms), or `undefined`. */
  deletedAt(i: number): number | undefined {
    return this.deleted.get(i);
  }

  private index(code: string): number {
    const i = this.indexOf(code);
    if (i === undefined) throw new RangeError(`no served employee ${code}`);
    return i;
  }

  /** A new designation and mobile number for the employee of `code`, modified now; `RangeError` when not served. */
  change(code: string): void {
    const i = this.index(code);
    this.revisions.set(i, (this.revisions.get(i) ?? 0) + 1);
    this.modified.set(i, Date.now());
  }

  /** `delete`: no longer served; `exit`: terminated today, modified now. `RangeError` when not served. */
  remove(code: string, mode: RemoveMode = 'delete'): void {
    const i = this.index(code);
    if (mode === 'delete') {
      this.deleted.set(i, Date.now());
      this.servedCache = undefined;
    } else {
      this.exits.set(i, Date.now());
      this.modified.set(i, Date.now());
      this.workingCache.delete(i);
    }
  }
}

/** Reads typed switches from `DialectSimOptions.variants`; an unknown value or type is a `RangeError`. */
export class Variants {
  constructor(private readonly values: Record<string, string | number | boolean> = {}) {}

  bool(name: string, dflt: boolean): boolean {
    const v = this.values[name];
    if (v === undefined) return dflt;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    throw new RangeError(`variant ${name} must be true or false`);
  }

  num(name: string, dflt: number, min = 0): number {
    const v = this.values[name];
    if (v === undefined) return dflt;
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isFinite(n) || n < min) throw new RangeError(`variant ${name} must be a number >= ${min}`);
    return n;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], dflt: T): T {
    const v = this.values[name];
    if (v === undefined) return dflt;
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    throw new RangeError(`variant ${name} must be one of ${allowed.join(', ')}`);
  }

  text(name: string): string | undefined {
    const v = this.values[name];
    return v === undefined ? undefined : String(v);
  }
}
