/**
 * The reference HRMS simulator (docs/behaviour.md "Sync", `hrx hrms-sim`): a small HTTP server on `node:http`
 * serving deterministic employees (see `./data`) behind an OAuth2 client-credentials token
 * endpoint (RFC 6749 §4.4), with switches for latency, 429s and 5xx so connectors and syncs can
 * be tested against an unreliable HRMS. Endpoints:
 *
 * - `POST /oauth/token` — form body `grant_type=client_credentials`, client credentials in HTTP
 *   Basic (RFC 6749 §2.3.1) or in the body. 200 `{access_token, token_type:"Bearer", expires_in}`;
 *   401 `{"error":"invalid_client"}`; 400 `{"error":"unsupported_grant_type"|"invalid_request"}`.
 * - `GET /api/v1/employees?page=N&per_page=M` (1-based page, per_page default 100, max 500) ->
 *   `{employees:[...], meta:{page, per_page, total, total_pages}}`, ordered by employee code.
 * - `GET /api/v1/employees/{code}` -> one employee, or 404 `{"error":"not_found"}`.
 *   API calls need `Authorization: Bearer <token>` (RFC 6750) or `X-Api-Key: <clientSecret>`;
 *   otherwise 401 `{"error":"invalid_token"}`.
 * - `GET|POST /__sim/control` (unauthenticated, test-only) -> see `ControlRequest`.
 *
 * `omitFields` leaves fields out of every employee answered (an HRMS that stopped sending them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { employeeCode, employeeIndex, generateEmployee } from './data';
import { listenSim } from './listen';

/** Options of the simulator. Rates are fractions 0..1 of API and token calls. */
export interface SimOptions {
  /** Number of employees (`EMP00001` .. `EMPnnnnn`). */
  employees: number;
  /** Seed of the data: the same seed gives byte-identical employees. */
  seed: string | number;
  /** OAuth2 client id and secret accepted by `/oauth/token`; the secret is also the `X-Api-Key`. */
  clientId: string;
  clientSecret: string;
  /** Delay added to every token and API response, ms (default 0). */
  latencyMs?: number;
  /** Fraction of calls answered 429 with `Retry-After: retryAfterSec` (default 0). */
  rate429?: number;
  /** Fraction of calls answered 500 or 503 (default 0). */
  rate5xx?: number;
  /** Lifetime of issued tokens, seconds (default 3600). */
  tokenTtlSec?: number;
  /** Value of the `Retry-After` header on 429s, seconds (default 1). */
  retryAfterSec?: number;
  /**
   * Top-level fields of the simulator's own employee JSON left out of every answer (default none),
   * e.g. `['date_of_birth']`: an HRMS that stopped sending a field (hrx's `dob` then has no value).
   */
  omitFields?: string[];
}

/** The switches that can change while the simulator runs. */
export interface SimSettings {
  latencyMs: number;
  rate429: number;
  rate5xx: number;
  retryAfterSec: number;
  tokenTtlSec: number;
  /** See {@link SimOptions.omitFields}. */
  omitFields: string[];
}

/** Counters of what the simulator has served since start (or `resetStats`). */
export interface SimStats {
  /** Every `POST /oauth/token`, whatever its outcome. */
  tokenRequests: number;
  /** Every `GET /api/v1/employees` (list pages), whatever its outcome. */
  pageRequests: number;
  /** Every `GET /api/v1/employees/{code}`. */
  employeeRequests: number;
  /** 429 responses injected by `rate429`. */
  served429: number;
  /** 500/503 responses injected by `rate5xx`. */
  served5xx: number;
  /** 401 responses (bad client credentials or bad token). */
  served401: number;
}

/** In-process control of a running simulator; the same operations exist at `/__sim/control`. */
export interface SimControl {
  /** Changes switches; throws `RangeError` on values out of range. Returns the new settings. */
  set(settings: Partial<SimSettings>): SimSettings;
  settings(): SimSettings;
  /** Removes an employee from list and detail responses; false when the code is not served. */
  drop(code: string): boolean;
  /** Brings back a dropped employee; false when it was not dropped. */
  restore(code: string): boolean;
  /** Serves employees `1..n` from now on (dropped codes stay dropped). */
  setEmployeeCount(n: number): void;
  employeeCount(): number;
  /** Forgets every issued token, so the next API call gets 401 `invalid_token`. */
  revokeTokens(): void;
  stats(): SimStats;
  resetStats(): void;
}

/** Body of `POST /__sim/control`; every field optional. The answer is `ControlSnapshot`. */
const ControlRequest = z.strictObject({
  latencyMs: z.number().min(0).optional(),
  rate429: z.number().min(0).max(1).optional(),
  rate5xx: z.number().min(0).max(1).optional(),
  retryAfterSec: z.number().int().min(0).optional(),
  tokenTtlSec: z.number().int().min(1).optional(),
  omitFields: z.array(z.string().min(1).max(64)).max(100).optional(),
  employees: z.number().int().min(0).optional(),
  drop: z.union([z.string(), z.array(z.string())]).optional(),
  restore: z.union([z.string(), z.array(z.string())]).optional(),
  revokeTokens: z.boolean().optional(),
  resetStats: z.boolean().optional(),
});
/** Wire shape of `/__sim/control` requests. */
export type ControlRequest = z.infer<typeof ControlRequest>;

const MAX_BODY = 64 * 1024;
const MAX_PER_PAGE = 500;
const DEFAULT_PER_PAGE = 100;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.error));
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, { error: 'invalid_request', error_description: 'body too large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function checkSettings(s: SimSettings): void {
  const ok = (n: number, lo: number, hi: number): boolean => Number.isFinite(n) && n >= lo && n <= hi;
  if (
    !ok(s.latencyMs, 0, 600_000) ||
    !ok(s.rate429, 0, 1) ||
    !ok(s.rate5xx, 0, 1) ||
    s.rate429 + s.rate5xx > 1 ||
    !ok(s.retryAfterSec, 0, 86_400) ||
    !ok(s.tokenTtlSec, 1, 31_536_000) ||
    !Array.isArray(s.omitFields) ||
    !s.omitFields.every((f) => typeof f === 'string')
  ) {
    throw new RangeError('simulator settings out of range (rates 0..1 summing to at most 1, latencyMs >= 0)');
  }
}

/**
 * Builds the simulator's request handler and its control without opening a socket, e.g. to
 * mount it in another server or a CLI. `close()` aborts pending latency waits.
 */
export function createSimHandler(opts: SimOptions): {
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  control: SimControl;
  close(this: void): void;
} {
  let settings: SimSettings = {
    latencyMs: opts.latencyMs ?? 0,
    rate429: opts.rate429 ?? 0,
    rate5xx: opts.rate5xx ?? 0,
    retryAfterSec: opts.retryAfterSec ?? 1,
    tokenTtlSec: opts.tokenTtlSec ?? 3600,
    omitFields: [...(opts.omitFields ?? [])],
  };
  checkSettings(settings);
  if (!Number.isSafeInteger(opts.employees) || opts.employees < 0) throw new RangeError('employees must be a non-negative integer');
  let count = opts.employees;
  const dropped = new Set<number>();
  const tokens = new Map<string, number>();
  const zero = (): SimStats => ({ tokenRequests: 0, pageRequests: 0, employeeRequests: 0, served429: 0, served5xx: 0, served401: 0 });
  let stats = zero();
  const aborter = new AbortController();

  const codes = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const isServed = (i: number): boolean => i <= count && !dropped.has(i);
  /** Employee `i` as answered: without the fields `omitFields` names. */
  const served = (i: number): Record<string, unknown> => {
    const e: Record<string, unknown> = { ...generateEmployee(opts.seed, i) };
    for (const f of settings.omitFields) delete e[f];
    return e;
  };
  const control: SimControl = {
    set(partial) {
      const next = { ...settings, ...Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) };
      checkSettings(next);
      settings = next;
      return { ...settings };
    },
    settings: () => ({ ...settings }),
    drop(code) {
      const i = employeeIndex(code);
      if (i === undefined || !isServed(i)) return false;
      dropped.add(i);
      return true;
    },
    restore(code) {
      const i = employeeIndex(code);
      return i !== undefined && dropped.delete(i);
    },
    setEmployeeCount(n) {
      if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('employee count must be a non-negative integer');
      count = n;
    },
    employeeCount: () => count,
    revokeTokens: () => tokens.clear(),
    stats: () => ({ ...stats }),
    resetStats: () => {
      stats = zero();
    },
  };

  const snapshot = () => ({
    settings: control.settings(),
    stats: control.stats(),
    employees: count,
    dropped: [...dropped].sort((a, b) => a - b).map(employeeCode),
  });

  async function controlRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET') return send(res, 200, snapshot());
    if (req.method !== 'POST') throw new HttpError(405, { error: 'method_not_allowed' });
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req)) || '{}');
    } catch {
      throw new HttpError(400, { error: 'invalid_request', error_description: 'malformed JSON' });
    }
    const parsed = ControlRequest.safeParse(body);
    if (!parsed.success) throw new HttpError(400, { error: 'invalid_request', error_description: parsed.error.issues[0]?.message ?? 'invalid' });
    const c = parsed.data;
    try {
      control.set({
        latencyMs: c.latencyMs,
        rate429: c.rate429,
        rate5xx: c.rate5xx,
        retryAfterSec: c.retryAfterSec,
        tokenTtlSec: c.tokenTtlSec,
        omitFields: c.omitFields,
      });
    } catch (err) {
      throw new HttpError(400, { error: 'invalid_request', error_description: (err as Error).message });
    }
    if (c.employees !== undefined) control.setEmployeeCount(c.employees);
    const result = { dropped: codes(c.drop).map((x) => control.drop(x)), restored: codes(c.restore).map((x) => control.restore(x)) };
    if (c.revokeTokens) control.revokeTokens();
    if (c.resetStats) control.resetStats();
    send(res, 200, { ...snapshot(), result });
  }

  /** RFC 6749 §4.4.2 token request, client authenticated per §2.3.1. */
  async function tokenRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw new HttpError(400, { error: 'invalid_request', error_description: 'form body required' });
    const form = new URLSearchParams(await readBody(req));
    const auth = req.headers.authorization ?? '';
    let id = form.get('client_id'),
      secret = form.get('client_secret');
    const basic = /^Basic\s+(\S+)$/i.exec(auth);
    if (basic) {
      if (secret !== null) throw new HttpError(400, { error: 'invalid_request', error_description: 'more than one client authentication method' });
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const dec = (s: string): string | null => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch {
          return null;
        }
      };
      id = colon < 0 ? null : dec(decoded.slice(0, colon));
      secret = colon < 0 ? null : dec(decoded.slice(colon + 1));
    }
    if (id === null || secret === null || !safeEqual(id, opts.clientId) || !safeEqual(secret, opts.clientSecret)) {
      stats.served401++;
      throw new HttpError(401, { error: 'invalid_client' }, basic ? { 'WWW-Authenticate': 'Basic realm="hrms-sim"' } : {});
    }
    if (form.get('grant_type') !== 'client_credentials') throw new HttpError(400, { error: 'unsupported_grant_type' });
    const now = Date.now();
    if (tokens.size > 10_000) for (const [t, exp] of tokens) if (exp <= now) tokens.delete(t);
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, now + settings.tokenTtlSec * 1000);
    send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: settings.tokenTtlSec }, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  }

  function authorize(req: IncomingMessage): void {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (bearer) {
      const exp = tokens.get(bearer[1]!);
      if (exp !== undefined && exp > Date.now()) return;
    } else {
      const key = req.headers['x-api-key'];
      if (typeof key === 'string' && safeEqual(key, opts.clientSecret)) return;
    }
    stats.served401++;
    throw new HttpError(401, { error: 'invalid_token' }, { 'WWW-Authenticate': 'Bearer realm="hrms-sim", error="invalid_token"' });
  }

  function listRoute(url: URL, res: ServerResponse): void {
    const intParam = (name: string, dflt: number): number => {
      const raw = url.searchParams.get(name);
      if (raw === null || raw === '') return dflt;
      if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
        throw new HttpError(400, { error: 'invalid_request', error_description: `${name} must be a positive integer` });
      return Number(raw);
    };
    const page = intParam('page', 1);
    const perPage = Math.min(MAX_PER_PAGE, intParam('per_page', DEFAULT_PER_PAGE));
    const sortedDropped = [...dropped].filter((d) => d <= count).sort((a, b) => a - b);
    const total = count - sortedDropped.length;
    // The (offset+1)-th served index: start at offset+1 and step over every dropped index at or below it.
    let i = (page - 1) * perPage + 1;
    for (const d of sortedDropped) {
      if (d <= i) i++;
      else break;
    }
    const employees = [];
    for (; i <= count && employees.length < perPage; i++) if (!dropped.has(i)) employees.push(served(i));
    send(res, 200, { employees, meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) } });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/__sim/control') return controlRoute(req, res);
    const detail = /^\/api\/v1\/employees\/([^/]+)$/.exec(path);
    const kind = path === '/oauth/token' ? 'token' : path === '/api/v1/employees' ? 'list' : detail ? 'detail' : undefined;
    if (kind === undefined) throw new HttpError(404, { error: 'not_found' });
    if (req.method !== (kind === 'token' ? 'POST' : 'GET')) throw new HttpError(405, { error: 'method_not_allowed' });
    if (kind === 'token') stats.tokenRequests++;
    else if (kind === 'list') stats.pageRequests++;
    else stats.employeeRequests++;

    if (settings.latencyMs > 0) await sleep(settings.latencyMs, undefined, { signal: aborter.signal });
    const roll = Math.random();
    if (roll < settings.rate429) {
      stats.served429++;
      throw new HttpError(429, { error: 'rate_limited' }, { 'Retry-After': String(settings.retryAfterSec) });
    }
    if (roll < settings.rate429 + settings.rate5xx) {
      stats.served5xx++;
      throw new HttpError(roll < settings.rate429 + settings.rate5xx / 2 ? 500 : 503, { error: 'server_error' });
    }
    if (kind === 'token') return tokenRoute(req, res);
    authorize(req);
    if (kind === 'list') return listRoute(url, res);
    let code: string;
    try {
      code = decodeURIComponent(detail![1]!);
    } catch {
      throw new HttpError(404, { error: 'not_found' });
    }
    const i = employeeIndex(code);
    if (i === undefined || !isServed(i) || employeeCode(i) !== code) throw new HttpError(404, { error: 'not_found' });
    send(res, 200, served(i));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    route(req, res).catch((err: unknown) => {
      if (aborter.signal.aborted) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) send(res, err.status, err.body, err.headers);
      else send(res, 500, { error: 'server_error' });
    });
  }

  return { handle, control, close: () => aborter.abort() };
}

/**
 * Starts the simulator on `host` (default 127.0.0.1) and `port` (default 0 = a free port).
 * Resolves once listening with its base URL; `close()` stops it and drops open connections.
 */
export async function startHrmsSimulator(opts: SimOptions & { port?: number; host?: string }): Promise<{
  url: string;
  port: number;
  close(): Promise<void>;
  control: SimControl;
}> {
  const sim = createSimHandler(opts);
  const listener = await listenSim(sim.handle, {
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host ? { host: opts.host } : {}),
    beforeClose: sim.close,
  });
  return { ...listener, control: sim.control };
}
