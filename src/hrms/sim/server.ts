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
 * - `GET /api/v1/payroll/months?months=K&page=N&per_page=M` (K 1..36, default 12; pages of M
 *   employees as the employee list pages them) -> `{pay_months:[{employee_code, tax_regime, month,
 *   year, ...components, net_pay, paid_on}], meta:{page, per_page, total, total_pages}}`, each
 *   employee's K newest months newest first (`./payroll`).
 *   API calls need `Authorization: Bearer <token>` (RFC 6750) or `X-Api-Key: <clientSecret>`;
 *   otherwise 401 `{"error":"invalid_token"}`.
 * - `GET|POST /__sim/control` (unauthenticated, test-only) -> see `ControlRequest`.
 *
 * `omitFields` leaves fields out of every employee answered (an HRMS that stopped sending them);
 * `lenientCodes` makes the one-employee lookup read the number in a code (`EMP000007` is `EMP00007`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { employeeCode, employeeIndex, generateEmployee } from './data';
import { checkSettings, ControlRequest, type SimControl, type SimOptions, type SimSettings, type SimStats } from './control';
import { listenSim } from './listen';
import { HttpError, readBody, safeEqual, send } from './reply';
import { MAX_PAY_MONTHS, payHistory } from './payroll';

export type { ControlRequest, SimControl, SimOptions, SimSettings, SimStats } from './control';

const MAX_PER_PAGE = 500;
const DEFAULT_PER_PAGE = 100;

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
  const zero = (): SimStats => ({
    tokenRequests: 0,
    pageRequests: 0,
    employeeRequests: 0,
    payrollRequests: 0,
    payMonthsServed: 0,
    served429: 0,
    served5xx: 0,
    served401: 0,
  });
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

  const intParam = (url: URL, name: string, dflt: number): number => {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') return dflt;
    if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
      throw new HttpError(400, { error: 'invalid_request', error_description: `${name} must be a positive integer` });
    return Number(raw);
  };

  /** The served employee indexes of one page, and the page's meta (the employee list's paging). */
  function pageOf(url: URL): { indexes: number[]; meta: { page: number; per_page: number; total: number; total_pages: number } } {
    const page = intParam(url, 'page', 1);
    const perPage = Math.min(MAX_PER_PAGE, intParam(url, 'per_page', DEFAULT_PER_PAGE));
    const sortedDropped = [...dropped].filter((d) => d <= count).sort((a, b) => a - b);
    const total = count - sortedDropped.length;
    // The (offset+1)-th served index: start at offset+1 and step over every dropped index at or below it.
    let i = (page - 1) * perPage + 1;
    for (const d of sortedDropped) {
      if (d <= i) i++;
      else break;
    }
    const indexes: number[] = [];
    for (; i <= count && indexes.length < perPage; i++) if (!dropped.has(i)) indexes.push(i);
    return { indexes, meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) } };
  }

  function listRoute(url: URL, res: ServerResponse): void {
    const { indexes, meta } = pageOf(url);
    send(res, 200, { employees: indexes.map(served), meta });
  }

  function payrollRoute(url: URL, res: ServerResponse): void {
    const months = intParam(url, 'months', 12);
    if (months > MAX_PAY_MONTHS) throw new HttpError(400, { error: 'invalid_request', error_description: `months must be at most ${MAX_PAY_MONTHS}` });
    const { indexes, meta } = pageOf(url);
    const held = Math.min(months, opts.payHistoryMonths ?? MAX_PAY_MONTHS);
    const payMonths = held > 0 ? indexes.flatMap((i) => payHistory(opts.seed, i, held)) : [];
    stats.payMonthsServed += payMonths.length;
    send(res, 200, { pay_months: payMonths, meta });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/__sim/control') return controlRoute(req, res);
    const detail = /^\/api\/v1\/employees\/([^/]+)$/.exec(path);
    const kind =
      path === '/oauth/token' ? 'token' : path === '/api/v1/employees' ? 'list' : path === '/api/v1/payroll/months' ? 'payroll' : detail ? 'detail' : undefined;
    if (kind === undefined) throw new HttpError(404, { error: 'not_found' });
    if (req.method !== (kind === 'token' ? 'POST' : 'GET')) throw new HttpError(405, { error: 'method_not_allowed' });
    if (kind === 'token') stats.tokenRequests++;
    else if (kind === 'list') stats.pageRequests++;
    else if (kind === 'payroll') stats.payrollRequests++;
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
    if (kind === 'payroll') return payrollRoute(url, res);
    let code: string;
    try {
      code = decodeURIComponent(detail![1]!);
    } catch {
      throw new HttpError(404, { error: 'not_found' });
    }
    const i = employeeIndex(code);
    if (i === undefined || !isServed(i) || (!opts.lenientCodes && employeeCode(i) !== code)) throw new HttpError(404, { error: 'not_found' });
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
