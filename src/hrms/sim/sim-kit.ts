/**
 * Small pieces the Darwinbox and BambooHR simulators share: request bodies, Basic credentials,
 * JSON answers, deterministic fault ticking, and the canonical-value helpers their ground truth
 * (`expected()`) is computed with, independently of the connectors' decoders.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { generateEmployee, type NativeEmployee } from './data';
import type { DialectFaults, DialectSimOptions } from './dialect';
import { requestCounter } from './listen';

/** Reads a request body of at most `max` bytes as text (`null` past it). */
export async function readBody(req: IncomingMessage, max = 64 * 1024): Promise<string | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return null;
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The `user:password` of a Basic `Authorization` header, or null. */
export function basicCredentials(req: IncomingMessage): { user: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  return at < 0 ? null : { user: decoded.slice(0, at), password: decoded.slice(at + 1) };
}

/** Constant-time string equality (the simulators check secrets as a real product would). */
export function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Sends `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * A deterministic fault switch: with fraction `rate`, call `n` (1-based) fires when
 * ceil(n·rate) grows, so the first call fires for any rate > 0 and about `rate` of all calls fire
 * (a sync of two requests still meets the fault, unlike a coin toss).
 */
export function faultTicker() {
  let rate = 0;
  let n = 0;
  return {
    set(r: number): void {
      rate = Math.min(1, Math.max(0, r));
      n = 0;
    },
    fire(): boolean {
      if (rate <= 0) return false;
      n += 1;
      return Math.ceil(n * rate) > Math.ceil((n - 1) * rate);
    },
  };
}

/** A canonical `DD/MM/YYYY` date (sim/data.ts) as `YYYY-MM-DD`; null or blank -> undefined. */
export function canonicalIso(dmy: string | null | undefined): string | undefined {
  if (!dmy) return undefined;
  const [d, m, y] = dmy.split('/');
  return `${y}-${m}-${d}`;
}

/** A canonical mobile number (`+91 98765 43210`, `098765…`) as its 10 digits. */
export function canonicalMobile(v: string | null | undefined): string | undefined {
  const digits = (v ?? '').replace(/\D/g, '');
  return digits === '' ? undefined : digits.slice(-10);
}

/** A canonical address line: `line1, line2` (line2 may be blank). */
export const addressLine = (a: { line1: string; line2: string }): string => [a.line1, a.line2].filter(Boolean).join(', ');

/** The canonical gender code as hrx's word. */
export const GENDER_WORD: Readonly<Record<string, string>> = { M: 'Male', F: 'Female', O: 'Other' };
/** The canonical employment type as hrx's word. */
export const TYPE_WORD: Readonly<Record<string, string>> = { FULL_TIME: 'Full Time', PART_TIME: 'Part Time', CONTRACT: 'Contract', INTERN: 'Intern' };

/** Waits `ms` (0: not at all), resolving early when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * What the Darwinbox and BambooHR simulators share around their own routes: request counting
 * against the product's limit (switch `limitPerMinute`), the throttling answer (`throttleStatus`
 * 429 or 503, `Retry-After: retryAfterSec`), the fault switches, changed employees (a new
 * designation and mobile number, with the instant of the change) and the listener options.
 */
export function simCore(options: DialectSimOptions, defaultLimit: number) {
  const v = options.variants ?? {};
  const limit = { requests: Number(v.limitPerMinute ?? defaultLimit), windowMs: 60_000 };
  const throttleStatus = Number(v.throttleStatus ?? 429) === 503 ? 503 : 429;
  const retryAfterSec = Number(v.retryAfterSec ?? 1);
  const counter = requestCounter(limit.windowMs);
  const throttled = faultTicker(),
    failing = faultTicker();
  const aborter = new AbortController();
  const changes = new Map<number, { n: number; at: number }>();
  let latencyMs = 0;
  let counts = { requests: 0, throttled: 0, authFailures: 0 };
  let recent: number[] = [];
  return {
    limit,
    /** Counts one request received. */
    hit(): void {
      counts.requests += 1;
      counter.hit();
      const now = Date.now();
      recent = recent.filter((t) => now - t < limit.windowMs);
      recent.push(now);
    },
    /** Waits the latency, then answers the throttling signal or a 500 when due; true when it answered. */
    async fault(res: ServerResponse, throttleBody: unknown, errorBody: unknown): Promise<boolean> {
      await pause(latencyMs, aborter.signal);
      if ((options.throttle !== false && recent.length > limit.requests) || throttled.fire()) {
        counts.throttled += 1;
        sendJson(res, throttleStatus, throttleBody, retryAfterSec > 0 ? { 'retry-after': String(retryAfterSec) } : {});
        return true;
      }
      if (!failing.fire()) return false;
      sendJson(res, 500, errorBody);
      return true;
    },
    authFailed(): void {
      counts.authFailures += 1;
    },
    /** Canonical employee `i` with its changes applied. */
    native(i: number): NativeEmployee {
      const e = generateEmployee(options.seed, i);
      const c = changes.get(i);
      return c
        ? {
            ...e,
            designation: `Principal Consultant ${c.n}`,
            mobile: `9${String(i * 7919 + c.n)
              .padStart(9, '0')
              .slice(-9)}`,
          }
        : e;
    },
    change(i: number): void {
      changes.set(i, { n: (changes.get(i)?.n ?? 0) + 1, at: Date.now() });
    },
    /** When employee `i` last changed (ms), or `base` when never. */
    changedAt: (i: number, base: number): number => changes.get(i)?.at ?? base,
    setFaults(f: DialectFaults): void {
      if (f.latencyMs !== undefined) latencyMs = f.latencyMs;
      if (f.rateThrottle !== undefined) throttled.set(f.rateThrottle);
      if (f.rate5xx !== undefined) failing.set(f.rate5xx);
    },
    stats: () => ({ ...counts, tokenRequests: 0, maxInWindow: counter.max(), limit }),
    resetStats(): void {
      counts = { requests: 0, throttled: 0, authFailures: 0 };
      counter.reset();
    },
    listenOptions: () => ({
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.host ? { host: options.host } : {}),
      beforeClose: () => aborter.abort(),
    }),
  };
}
