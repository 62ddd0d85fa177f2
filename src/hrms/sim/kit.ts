/**
 * What the product simulators share (`sim/<hrms_id>/`, `DialectSim`): an HTTP server with
 * latency and fault switches, request counters with the largest count in any window of the
 * product's limit, issued tokens that expire by time, by call count or on revocation, the
 * served employees with changes and removals, switches (`variants`) read with their types
 * checked, and the ground-truth helpers every `expected()` uses (computed from the canonical
 * employee of `data.ts`, never through a connector's decoders).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HrmsApiConfig, HrmsCredentials } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { employeeCode, employeeIndex, generateEmployee, type NativeEmployee } from './data';
import type { DialectFaults, DialectSim, DialectSimOptions, DialectSimStats } from './dialect';
import { listenSim, requestCounter, type SimListener } from './listen';

/** A response a route throws or returns: status, body text, headers. */
export class SimReply extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/** A JSON reply. */
export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): SimReply {
  return new SimReply(status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers });
}

const MAX_BODY = 64 * 1024;

/** The request body as text (at most 64 KiB, else 413). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw jsonReply(413, { error: 'invalid_request' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The form fields of a token request: the urlencoded body, then the query string (Zoho takes both). */
export async function formParams(req: IncomingMessage, url: URL): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const body = await readBody(req);
  const form = new URLSearchParams(type === 'application/x-www-form-urlencoded' ? body : '');
  for (const [k, v] of url.searchParams) if (!form.has(k)) form.set(k, v);
  return form;
}

/** Constant-time string comparison (credentials). */
export function safeEqual(a: string | null | undefined, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Tokens a simulator issued: expiry time, use count, revocation. */
export class TokenStore {
  private readonly tokens = new Map<string, { expiresAt: number; uses: number }>();
  /** Tokens stop working after this many data calls each (0: never); the `tokenExpiresAfterCalls` fault. */
  expiresAfterCalls = 0;

  /** A new random token valid for `ttlMs`. */
  issue(ttlMs: number): string {
    const now = Date.now();
    if (this.tokens.size > 10_000) for (const [t, v] of this.tokens) if (v.expiresAt <= now) this.tokens.delete(t);
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, { expiresAt: now + ttlMs, uses: 0 });
    return token;
  }

  /** Whether `token` is valid for one more data call (counting the call). */
  use(token: string | undefined): boolean {
    const t = token === undefined ? undefined : this.tokens.get(token);
    if (!t || t.expiresAt <= Date.now()) return false;
    t.uses++;
    return this.expiresAfterCalls <= 0 || t.uses <= this.expiresAfterCalls;
  }

  revokeAll(): void {
    this.tokens.clear();
  }
}

/**
 * How a simulator's `remove` shows a removal: the employee is deleted (no longer listed: the
 * default, `DialectSim.remove`), or exits (listed with its exit status and date: a change).
 */
export type RemoveMode = 'exit' | 'delete';

/** Last-modified time of an employee nobody changed: a fixed past instant, one minute apart by index. */
const BASE_MODIFIED_MS = Date.UTC(2025, 10, 30);

/** The date in India (UTC+05:30) of `ms`, as `DD/MM/YYYY` (the canonical employee's format). */
export function indiaDate(ms: number): string {
  const d = new Date(ms + 330 * 60_000);
  return `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
}

/**
 * The employees a simulator serves: `1..count` minus deletions, each the canonical employee of
 * `(seed, i)` with its changes (`change`: a new designation and mobile number) and exit
 * (`remove` as `exit`: terminated today) applied, and its last-modified time.
 */
/** Throws `RangeError` unless `count` is a non-negative safe integer (a simulator's employee count). */
export function checkCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError('employees must be a non-negative integer');
}

/** Indices 1..count not in `deleted`, ascending. */
export function servedIndices(count: number, deleted: ReadonlySet<number>): number[] {
  return Array.from({ length: count }, (_, k) => k + 1).filter((i) => !deleted.has(i));
}

export class EmployeeBook {
  private readonly deleted = new Set<number>();
  private readonly versions = new Map<number, number>();
  private readonly exits = new Map<number, number>();
  private readonly modified = new Map<number, number>();
  private servedCache: number[] | undefined;
  /** Whether each generated employee is still working: listings filter on it without regenerating. */
  private readonly workingCache = new Map<number, boolean>();

  constructor(
    readonly seed: string | number,
    private readonly count: number,
  ) {
    checkCount(count);
  }

  /** Served indices, ascending. */
  served(): readonly number[] {
    this.servedCache ??= servedIndices(this.count, this.deleted);
    return this.servedCache;
  }

  /** The served index of an employee code, or `undefined`. */
  indexOf(code: string): number | undefined {
    const i = employeeIndex(code);
    return i !== undefined && i <= this.count && !this.deleted.has(i) && employeeCode(i) === code ? i : undefined;
  }

  /** Employee `i` as the product holds it now. */
  employee(i: number): NativeEmployee {
    const e = generateEmployee(this.seed, i);
    const v = this.versions.get(i);
    if (v !== undefined) {
      e.designation = `Principal Consultant (revision ${v})`;
      e.mobile = `9${String((i * 7919 + v * 104_729) % 1_000_000_000).padStart(9, '0')}`;
    }
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
    return this.modified.get(i) ?? BASE_MODIFIED_MS - i * 60_000;
  }

  private served_(code: string): number {
    const i = this.indexOf(code);
    if (i === undefined) throw new RangeError(`no served employee ${code}`);
    return i;
  }

  /** A new designation and mobile number, modified now. */
  change(code: string): void {
    const i = this.served_(code);
    this.versions.set(i, (this.versions.get(i) ?? 0) + 1);
    this.modified.set(i, Date.now());
  }

  /** `exit`: terminated today, modified now; `delete`: no longer served. */
  remove(code: string, mode: RemoveMode): void {
    const i = this.served_(code);
    if (mode === 'delete') {
      this.deleted.add(i);
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

/** The setup-config pieces a simulator hands out. */
export type SimSetup = ReturnType<DialectSim['setup']>;

/**
 * A running product simulator: the HTTP server, faults, counters and employees. A product adds
 * its routes (`route`), its setup pieces and its ground truth.
 */
export abstract class DialectSimBase implements DialectSim {
  abstract readonly hrmsId: string;
  url = '';
  protected readonly book: EmployeeBook;
  protected readonly tokens = new TokenStore();
  protected readonly variants: Variants;
  protected readonly throttle: boolean;
  protected readonly removeMode: RemoveMode;
  protected faults: Omit<Required<DialectFaults>, 'throttleLockoutMs'> & Pick<DialectFaults, 'throttleLockoutMs'> = {
    latencyMs: 0,
    rateThrottle: 0,
    rate5xx: 0,
    tokenExpiresAfterCalls: 0,
  };
  protected counters = { requests: 0, tokenRequests: 0, throttled: 0, authFailures: 0 };
  /** Data requests within the product's limit window (what the shared budget must keep at or under the limit). */
  protected readonly window: ReturnType<typeof requestCounter>;
  private listener: SimListener | undefined;
  private readonly aborter = new AbortController();

  constructor(
    opts: DialectSimOptions,
    readonly limit: { requests: number; windowMs: number },
  ) {
    this.book = new EmployeeBook(opts.seed, opts.employees);
    this.variants = new Variants(opts.variants);
    this.throttle = opts.throttle ?? true;
    this.removeMode = this.variants.oneOf('removeAs', ['delete', 'exit'], 'delete');
    this.window = requestCounter(limit.windowMs);
  }

  abstract setup(): SimSetup;
  abstract wrongSetup(): SimSetup;
  abstract expected(): PartialEmployeeRecord[];
  /** Answers one request (throw or return a `SimReply`). */
  protected abstract route(req: IncomingMessage, url: URL): Promise<SimReply>;

  /** The setup pieces for `credentials` with the token host as `api_configs` entry `token`. */
  protected setupWith(credentials: Omit<HrmsCredentials, 'hrms_host'>): SimSetup {
    const apiConfigs: HrmsApiConfig[] = [{ api_id: 'token', access_credentials: { hrms_host: this.url, grant_type: credentials.grant_type } }];
    return { hrms_id: this.hrmsId, access_credentials: { hrms_host: this.url, ...credentials }, api_configs: apiConfigs };
  }

  employeeIds(): string[] {
    return this.book.served().map(employeeCode);
  }
  change(employeeId: string): void {
    this.book.change(employeeId);
  }
  remove(employeeId: string): void {
    this.book.remove(employeeId, this.removeMode);
  }
  revokeTokens(): void {
    this.tokens.revokeAll();
  }

  setFaults(faults: DialectFaults): void {
    const next = { ...this.faults, ...Object.fromEntries(Object.entries(faults).filter(([, v]) => v !== undefined)) };
    const rate = (n: number): boolean => Number.isFinite(n) && n >= 0 && n <= 1;
    if (!rate(next.rateThrottle) || !rate(next.rate5xx) || next.latencyMs < 0 || next.tokenExpiresAfterCalls < 0 || (next.throttleLockoutMs ?? 0) < 0) {
      throw new RangeError('faults out of range (rates 0..1, latency and call counts >= 0)');
    }
    this.faults = next;
    this.due = { throttle: 0, fiveXx: 0 };
    this.tokens.expiresAfterCalls = next.tokenExpiresAfterCalls;
  }

  stats(): DialectSimStats {
    return { ...this.counters, maxInWindow: this.window.max(), limit: { ...this.limit } };
  }

  resetStats(): void {
    this.counters = { requests: 0, tokenRequests: 0, throttled: 0, authFailures: 0 };
    this.window.reset();
  }

  /** Counts one data request in the window; returns the count within the window. */
  protected countData(): number {
    return this.window.hit();
  }

  /** Fault accumulators: each data call adds its rate; a fault is due when one reaches 1. */
  private due = { throttle: 0, fiveXx: 0 };
  private failures = 0;

  /** The status of an injected server failure: 503 and 500 in turn. */
  protected failureStatus(): number {
    return this.failures++ % 2 === 0 ? 503 : 500;
  }

  /**
   * The fault for this data call (after the latency): the throttling signal, a 5xx, or none.
   * Faults are spread evenly, not drawn at random: exactly `rateThrottle` of the data calls are
   * throttled and `rate5xx` fail (rounded down), so a test of a few pages always meets them and
   * a run is repeatable.
   */
  protected async roll(): Promise<'throttle' | '5xx' | undefined> {
    if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs, undefined, { signal: this.aborter.signal });
    this.due.throttle += this.faults.rateThrottle;
    this.due.fiveXx += this.faults.rate5xx;
    if (this.due.throttle >= 1 - 1e-9) {
      this.due.throttle -= 1;
      return 'throttle';
    }
    if (this.due.fiveXx >= 1 - 1e-9) {
      this.due.fiveXx -= 1;
      return '5xx';
    }
    return undefined;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.counters.requests++;
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    // Fire-and-forget: the chain catches every rejection and answers (or destroys) the response itself.
    void this.route(req, url)
      .catch((err: unknown) => err)
      .then((out) => {
        if (this.aborter.signal.aborted) {
          res.destroy();
          return;
        }
        const reply = out instanceof SimReply ? out : jsonReply(500, { error: 'server_error' });
        if (res.headersSent || res.destroyed) return;
        res.writeHead(reply.status, { 'content-length': Buffer.byteLength(reply.body), ...reply.headers });
        res.end(reply.body);
      });
  }

  /** Starts listening on `host` (default 127.0.0.1) and `port` (default 0: a free port). */
  async listen(host?: string, port?: number): Promise<this> {
    this.listener = await listenSim((req, res) => this.handle(req, res), {
      ...(host ? { host } : {}),
      ...(port !== undefined ? { port } : {}),
      beforeClose: () => this.aborter.abort(),
    });
    this.url = this.listener.url;
    return this;
  }

  close(): Promise<void> {
    this.aborter.abort();
    return this.listener?.close() ?? Promise.resolve();
  }
}

// ---------------------------------------------------------------- ground truth helpers

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

/** A mobile number as hrx stores it: its last ten digits (the canonical ones carry +91, 0 or spaces). */
export const tenDigits = (v: string | null | undefined): string | undefined => (v ? v.replace(/\D/g, '').slice(-10) : undefined);

/** The canonical blood group (`B+`, `B+ve`, `B Positive`) as `B+`, or `undefined`. */
export function bloodOf(v: string | null | undefined): string | undefined {
  const m = v ? /^(AB|A|B|O)\s*(\+|-|Positive|Negative)/.exec(v) : null;
  return m ? `${m[1]}${m[2] === '+' || m[2] === 'Positive' ? '+' : '-'}` : undefined;
}

/** Whether the canonical employee is still working (`status` `Active` in hrx). */
export const isWorking = (e: NativeEmployee): boolean => e.employment_status === 'ACTIVE' || e.employment_status === 'NOTICE_PERIOD';

/** Every 53rd employee has no usable date of birth in the product (blank, or a zero date): an awkward case. */
export const hasNoBirthDate = (i: number): boolean => i % 53 === 0;

/** `undefined` for blank text. */
export const orNone = (v: string | null | undefined): string | undefined => (v ? v : undefined);

/** hrx's words for the canonical marital code. */
export const MARITAL_WORD: Readonly<Record<string, string>> = { SINGLE: 'Single', MARRIED: 'Married', DIVORCED: 'Divorced', WIDOWED: 'Widowed' };
