/**
 * What the greytHR and Personio simulators share (`sim/greythr/`, `sim/personio/`): switches read
 * with their types checked, issued tokens (expiring by time, by call count or on revocation), the
 * served employees with changes and deletions, fault rolls, request-body reading, and the helpers
 * every ground truth (`DialectSim.expected`) uses, computed from the canonical employee of
 * `data.ts`, never through a connector's decoders.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DialectFaults } from './dialect';
import { employeeCode, employeeIndex, generateEmployee, type NativeEmployee } from './data';

/** A reply a route returns or throws: status, body text, headers. */
export class Reply extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/** A JSON reply. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  new Reply(status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers });

/** Sends `reply` on `res` unless the response is gone. */
export function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, { 'content-length': Buffer.byteLength(reply.body), ...reply.headers });
  res.end(reply.body);
}

/**
 * Answers `res` with what `route` settles to: its {@link Reply}, else `fallback` (the route threw
 * something else); once the simulator is closing (`signal` aborted) the socket is destroyed
 * instead. Fire-and-forget by design: the chain catches every rejection itself.
 */
export function answerWith(res: ServerResponse, route: Promise<unknown>, signal: AbortSignal, fallback: Reply): void {
  void route
    .catch((err: unknown) => err)
    .then((out) => {
      if (signal.aborted) {
        res.destroy();
        return;
      }
      send(res, out instanceof Reply ? out : fallback);
    });
}

/** The request body as text, at most 64 KiB (else 413). */
export async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw json(413, { error: 'body too large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Constant-time comparison of a presented credential with the expected one. */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given),
    b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `user:password` of an HTTP Basic `Authorization` header (RFC 7617), or `undefined`. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Typed reading of `DialectSimOptions.variants` (the one reader every simulator uses). */
export { Variants as Switches } from './kit';
import { checkCount, servedIndices } from './kit';

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

/** Last-modified time of an employee nobody changed: a fixed past instant, one minute apart by index. */
const UNCHANGED_AT = Date.UTC(2025, 10, 30);

/**
 * The employees a simulator serves: `1..count` minus deletions, each the canonical employee of
 * `(seed, i)` with its changes applied (`change`: a new designation and mobile number), and when
 * each was last modified.
 */
export class Staff {
  private readonly deleted = new Set<number>();
  private readonly revisions = new Map<number, number>();
  private readonly modified = new Map<number, number>();
  private servedCache: number[] | undefined;

  constructor(
    readonly seed: string | number,
    readonly count: number,
  ) {
    checkCount(count);
  }

  /** Served indices, ascending. */
  served(): readonly number[] {
    this.servedCache ??= servedIndices(this.count, this.deleted);
    return this.servedCache;
  }

  isServed(i: number): boolean {
    return Number.isInteger(i) && i >= 1 && i <= this.count && !this.deleted.has(i);
  }

  /** Employee `i` as the product holds it now. */
  employee(i: number): NativeEmployee {
    const e = generateEmployee(this.seed, i);
    const rev = this.revisions.get(i);
    if (rev !== undefined) {
      e.designation = `Principal Consultant (revision ${rev})`;
      e.mobile = `9${String((i * 7919 + rev * 104_729) % 1_000_000_000).padStart(9, '0')}`;
    }
    return e;
  }

  /** When employee `i` was last added or modified, epoch ms. */
  modifiedAt(i: number): number {
    return this.modified.get(i) ?? UNCHANGED_AT - i * 60_000;
  }

  private index(code: string): number {
    const i = employeeIndex(code);
    if (i === undefined || !this.isServed(i) || employeeCode(i) !== code) throw new RangeError(`no served employee ${code}`);
    return i;
  }

  /** A new designation and mobile number for the employee of `code`, modified now. */
  change(code: string): void {
    const i = this.index(code);
    this.revisions.set(i, (this.revisions.get(i) ?? 0) + 1);
    this.modified.set(i, Date.now());
  }

  /** Deletes the employee of `code`: no longer listed anywhere. */
  delete(code: string): void {
    this.deleted.add(this.index(code));
    this.servedCache = undefined;
  }
}

/** The fault switches with their defaults, checked. */
export type Faults = Required<DialectFaults>;

/** `faults` over `current`, checked (rates 0..1, counts and latency >= 0). */
export function mergeFaults(current: Faults, faults: DialectFaults): Faults {
  const next = { ...current, ...Object.fromEntries(Object.entries(faults).filter(([, v]) => v !== undefined)) };
  const rate = (n: number): boolean => Number.isFinite(n) && n >= 0 && n <= 1;
  if (
    !rate(next.rateThrottle) ||
    !rate(next.rate5xx) ||
    next.rateThrottle + next.rate5xx > 1 ||
    !(next.latencyMs >= 0) ||
    !(next.tokenExpiresAfterCalls >= 0) ||
    !(next.throttleLockoutMs >= 0)
  ) {
    throw new RangeError('faults out of range (rates 0..1 summing to at most 1, latency and counts >= 0)');
  }
  return next;
}

/** No faults. */
export const NO_FAULTS: Faults = { latencyMs: 0, rateThrottle: 0, rate5xx: 0, tokenExpiresAfterCalls: 0, throttleLockoutMs: 0 };

/** Fault accumulators per fault setting: each data call adds its rate; a fault is due at 1. */
const dueFaults = new WeakMap<Faults, { throttle: number; fiveXx: number }>();

/**
 * Waits the latency fault, then gives this data call's fault: the throttling signal, a 5xx, or
 * none. Faults are spread evenly, not drawn at random (as `DialectSimBase.roll` in kit.ts):
 * exactly `rateThrottle` of the calls are throttled and `rate5xx` fail, counted from the moment
 * the setting `f` was made, so a test of a few pages always meets them and a run is repeatable.
 */
export async function rollFaults(f: Faults, signal: AbortSignal): Promise<'throttle' | '5xx' | undefined> {
  if (f.latencyMs > 0) await sleep(f.latencyMs, undefined, { signal });
  let due = dueFaults.get(f);
  if (!due) dueFaults.set(f, (due = { throttle: 0, fiveXx: 0 }));
  due.throttle += f.rateThrottle;
  due.fiveXx += f.rate5xx;
  if (due.throttle >= 1 - 1e-9) {
    due.throttle -= 1;
    return 'throttle';
  }
  if (due.fiveXx >= 1 - 1e-9) {
    due.fiveXx -= 1;
    return '5xx';
  }
  return undefined;
}

// ---------------------------------------------------------------- ground-truth helpers

/** `DD/MM/YYYY` (the canonical format) → `[y, m, d]`, or `undefined`. */
export function dmyParts(v: string | null | undefined): [number, number, number] | undefined {
  const m = v ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v) : null;
  return m ? [Number(m[3]), Number(m[2]), Number(m[1])] : undefined;
}

/** Whether the canonical employee has left (resigned or terminated; notice period still works). */
export const hasLeft = (e: NativeEmployee): boolean => e.employment_status === 'RESIGNED' || e.employment_status === 'TERMINATED';
