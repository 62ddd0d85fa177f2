/**
 * Connector for `hrms_id` `reference`: the reference HRMS simulator's API (`src/hrms/sim/server.ts`).
 * HTTP through got (one attempt per call, `throwHttpErrors: false`, explicit status handling);
 * retries through p-retry with exponential backoff that honours `Retry-After` (RFC 9110 §10.2.3).
 * Auth: OAuth2 client credentials (RFC 6749 §4.4, client authenticated with HTTP Basic per §2.3.1),
 * token cached until shortly before `expires_in` and refreshed once on a 401; or an `X-Api-Key`.
 * Error messages name the operation and the HTTP status only: never credentials, tokens, hosts
 * or employee values.
 */
import pRetry, { AbortError } from 'p-retry';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  HrmsError, type ConnectorFactory, type ConnectorOptions, type EmployeePage, type HrmsConnector, type HrmsCredentials,
} from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { HostNotAllowedError, isHostNotAllowed } from '../../outbound/host-policy';
import { DEFAULT_MAX_RESPONSE_BYTES, isResponseTooLarge, requestBounded } from '../../outbound/bounded-response';
import { mapEmployee } from './mapping';

/** Defaults of `ConnectorOptions` (connector.ts documents each). */
export const REFERENCE_DEFAULTS = {
  timeoutMs: 10_000, retries: 5, minRetryDelayMs: 250, maxRetryDelayMs: 30_000, pageSize: 200,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
} as const;

/** A token response is a few hundred bytes: past 1 MiB it is refused (within decisions §11's 64 MiB). */
const TOKEN_MAX_RESPONSE_BYTES = 1024 * 1024;

/** OAuth2 error codes of RFC 6749 §5.2: safe to quote in messages (they carry no secrets). */
const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope']);
const RETRYABLE = new Set(['rate_limited', 'unavailable']);

const TokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer'),
  expires_in: z.number().positive().optional(),
});
/** One HRMS answer: status, headers and the (decompressed, size-capped) body as text. */
interface HrmsResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const PageResponse = z.object({
  employees: z.array(z.unknown()),
  meta: z.object({
    page: z.number().optional(), per_page: z.number().int().positive().optional(),
    total: z.number().int().nonnegative().optional(), total_pages: z.number().int().nonnegative().optional(),
  }).optional(),
});

/**
 * Milliseconds to wait from a `Retry-After` value: delay-seconds or an HTTP-date
 * (RFC 9110 §10.2.3); `undefined` when absent or unparseable. Dates in the past give 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The `HrmsError` for a non-2xx status of operation `what` (e.g. `employee page 3`). */
export function statusError(status: number, what: string, retryAfter?: string | string[]): HrmsError {
  if (status === 401 || status === 403) return new HrmsError('auth', `HRMS rejected the credentials on ${what} (HTTP ${status})`, status);
  if (status === 404) return new HrmsError('not_found', `HRMS has no resource for ${what} (HTTP 404)`, status);
  if (status === 429) return new HrmsError('rate_limited', `HRMS rate-limited ${what} (HTTP 429)`, status, parseRetryAfter(retryAfter));
  if (status >= 500 || status === 408) return new HrmsError('unavailable', `HRMS failed ${what} (HTTP ${status})`, status, parseRetryAfter(retryAfter));
  return new HrmsError('bad_response', `HRMS answered ${what} with unexpected HTTP ${status}`, status);
}

function parseJson(res: HrmsResponse, what: string): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    throw new HrmsError('bad_response', `HRMS sent malformed JSON for ${what}`, res.statusCode);
  }
}

function oauthError(res: HrmsResponse): string {
  try {
    const err = (JSON.parse(res.body) as { error?: unknown }).error;
    return typeof err === 'string' && OAUTH_ERRORS.has(err) ? ` ${err}` : '';
  } catch {
    return '';
  }
}

/** RFC 6749 §2.3.1: client id and secret are form-urlencoded before Basic encoding. */
function basicAuth(id: string, secret: string): string {
  const enc = (s: string): string => new URLSearchParams({ x: s }).toString().slice(2);
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

class ReferenceConnector implements HrmsConnector {
  private readonly opts: Required<Omit<ConnectorOptions, 'onRetry' | 'hostPolicy' | 'signal'>> & Pick<ConnectorOptions, 'onRetry' | 'hostPolicy' | 'signal'>;
  private token: { value: string; expiresAt: number } | undefined;
  private tokenInFlight: Promise<string> | undefined;

  constructor(private readonly creds: HrmsCredentials, options: ConnectorOptions) {
    const pick = <K extends keyof typeof REFERENCE_DEFAULTS>(k: K): number => {
      const v = options[k];
      return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : REFERENCE_DEFAULTS[k];
    };
    this.opts = {
      timeoutMs: pick('timeoutMs'), retries: Math.floor(pick('retries')), minRetryDelayMs: pick('minRetryDelayMs'),
      maxRetryDelayMs: pick('maxRetryDelayMs'), pageSize: Math.max(1, Math.floor(pick('pageSize'))), onRetry: options.onRetry,
      hostPolicy: options.hostPolicy, signal: options.signal, maxResponseBytes: Math.max(1, Math.floor(pick('maxResponseBytes'))),
    };
  }

  /**
   * Resolves `path` under `hrms_host`, keeping any path prefix of the host URL. A host that is not
   * an http(s) URL, or that the host policy refuses up front (an IP literal), is `host_not_allowed`.
   */
  private url(path: string): URL {
    let base: URL;
    try {
      base = new URL(this.creds.hrms_host.endsWith('/') ? this.creds.hrms_host : `${this.creds.hrms_host}/`);
    } catch {
      throw new HrmsError('host_not_allowed', 'HRMS host is not a valid URL');
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new HrmsError('host_not_allowed', 'HRMS host must be an http(s) URL');
    try {
      this.opts.hostPolicy?.checkUrl(base);
    } catch (err) {
      if (err instanceof HostNotAllowedError) throw new HrmsError('host_not_allowed', 'HRMS host not allowed');
      throw err;
    }
    return new URL(path, base);
  }

  /**
   * One HTTP exchange; transport failures (refused, reset, timeout) become `unavailable`, a name
   * the host policy refuses at connection time `host_not_allowed`, a body past
   * `maxResponseBytes` after decompression `bad_response` (decisions §11; never retried). The
   * body is streamed and counted (src/outbound/bounded-response.ts), never buffered past the cap.
   */
  private async http(url: URL, what: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; form?: Record<string, string>; maxBytes?: number } = {}): Promise<HrmsResponse> {
    const policy = this.opts.hostPolicy;
    const maxBytes = Math.min(init.maxBytes ?? Infinity, this.opts.maxResponseBytes);
    try {
      const res = await requestBounded(url, {
        ...(policy ? { dnsLookup: policy.lookup, agent: { http: policy.agent.http, https: policy.agent.https } } : {}),
        method: init.method ?? 'GET',
        headers: { accept: 'application/json', 'user-agent': 'hrx-reference-connector', ...init.headers },
        ...(init.form ? { form: init.form } : {}),
        timeout: { request: this.opts.timeoutMs },
        retry: { limit: 0 },
        followRedirect: false,
        ...(this.opts.signal ? { signal: this.opts.signal } : {}),
      }, maxBytes);
      return { statusCode: res.statusCode, headers: res.headers, body: res.body.toString('utf8') };
    } catch (err) {
      if (isHostNotAllowed(err)) throw new HrmsError('host_not_allowed', `HRMS host not allowed on ${what}`);
      if (isResponseTooLarge(err)) {
        throw new HrmsError('bad_response', `HRMS response to ${what} exceeds ${maxBytes} bytes`);
      }
      const code = (err as { code?: unknown }).code;
      const tag = typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : 'network error';
      throw new HrmsError('unavailable', `HRMS unreachable on ${what} (${tag})`);
    }
  }

  private checkGrant(): 'client_credentials' | 'api_key' {
    const { grant_type: grant, client_id: id, client_secret: secret, api_key: key } = this.creds;
    if (grant === 'client_credentials') {
      if (!id || !secret) throw new HrmsError('auth', 'client_credentials needs client_id and client_secret');
      return grant;
    }
    if (grant === 'api_key') {
      if (!key) throw new HrmsError('auth', 'api_key grant needs an api_key');
      return grant;
    }
    throw new HrmsError('auth', 'unsupported grant_type for the reference HRMS');
  }

  /** Token request of RFC 6749 §4.4.2; caches the token until 10% (at most 60 s) before expiry. */
  private async requestToken(): Promise<string> {
    const what = 'token request';
    const res = await this.http(this.url('oauth/token'), what, {
      method: 'POST',
      headers: { authorization: basicAuth(this.creds.client_id ?? '', this.creds.client_secret ?? '') },
      form: { grant_type: 'client_credentials' },
      maxBytes: TOKEN_MAX_RESPONSE_BYTES,
    });
    if (res.statusCode === 400 || res.statusCode === 401 || res.statusCode === 403) {
      throw new HrmsError('auth', `HRMS rejected the client credentials (HTTP ${res.statusCode}${oauthError(res)})`, res.statusCode);
    }
    if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
    const parsed = TokenResponse.safeParse(parseJson(res, what));
    if (!parsed.success) throw new HrmsError('bad_response', 'HRMS token response lacks a bearer access_token', res.statusCode);
    const ttlMs = (parsed.data.expires_in ?? 3600) * 1000;
    this.token = { value: parsed.data.access_token, expiresAt: Date.now() + ttlMs - Math.min(60_000, ttlMs * 0.1) };
    return parsed.data.access_token;
  }

  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.expiresAt) return this.token.value;
    this.tokenInFlight ??= this.requestToken().finally(() => { this.tokenInFlight = undefined; });
    return this.tokenInFlight;
  }

  /** Authenticated GET; with client credentials a 401 drops the token and is retried once with a new one. */
  private async apiGet(path: string, what: string): Promise<HrmsResponse> {
    if (this.checkGrant() === 'api_key') return this.http(this.url(path), what, { headers: { 'x-api-key': this.creds.api_key! } });
    const token = await this.accessToken();
    const res = await this.http(this.url(path), what, { headers: { authorization: `Bearer ${token}` } });
    if (res.statusCode !== 401) return res;
    if (this.token?.value === token) this.token = undefined;
    const fresh = await this.accessToken();
    return this.http(this.url(path), what, { headers: { authorization: `Bearer ${fresh}` } });
  }

  /**
   * Runs `attempt` with p-retry. Only `rate_limited` and `unavailable` are retried; everything
   * else is wrapped in `AbortError` so p-retry stops at once. p-retry's own timers are zeroed
   * and the wait happens in `onFailedAttempt`: `Retry-After` when sent (capped at
   * maxRetryDelayMs), else min(maxRetryDelayMs, minRetryDelayMs * 2^(n-1) * random[1,2)).
   */
  private withRetry<T>(attempt: () => Promise<T>): Promise<T> {
    const { retries, minRetryDelayMs: min, maxRetryDelayMs: max, onRetry } = this.opts;
    return pRetry(async () => {
      try {
        return await attempt();
      } catch (err) {
        if (err instanceof HrmsError && RETRYABLE.has(err.kind)) throw err;
        throw new AbortError(err instanceof Error ? err : new Error(String(err)));
      }
    }, {
      retries, factor: 1, minTimeout: 0, maxTimeout: 0, randomize: false,
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
      onFailedAttempt: async (error) => {
        if (error.retriesLeft <= 0) return;
        // p-retry hands back the thrown error itself (with the attempt counts added): only a
        // retryable HrmsError gets here, the rest were turned into AbortError above.
        const e = error instanceof HrmsError ? error : undefined;
        const delayMs = e?.retryAfterMs !== undefined
          ? Math.min(e.retryAfterMs, max)
          : Math.min(max, Math.round(min * 2 ** (error.attemptNumber - 1) * (1 + Math.random())));
        try {
          onRetry?.({ attempt: error.attemptNumber, delayMs, reason: `${e?.kind ?? error.name}${e?.status ? ` (HTTP ${e.status})` : ''}` });
        } catch { /* a failing logger must not stop retries */ }
        if (delayMs > 0) await sleep(delayMs, undefined, { signal: this.opts.signal });
      },
    });
  }

  /** One attempt, no retries (decisions §5: "token or one call"): a token request, or one 1-item page with an API key. */
  async verifyCredentials(): Promise<void> {
    if (this.checkGrant() === 'client_credentials') {
      this.token = undefined;
      await this.accessToken();
      return;
    }
    const res = await this.apiGet('api/v1/employees?page=1&per_page=1', 'credential check');
    if (res.statusCode !== 200) throw statusError(res.statusCode, 'credential check', res.headers['retry-after']);
  }

  /** Pages 1..total_pages, each fetched (and retried) only when the consumer asks for it. */
  async *listEmployees(): AsyncGenerator<EmployeePage> {
    let previousFirst: string | undefined;
    for (let page = 1; ; page++) {
      const what = `employee page ${page}`;
      const data = await this.withRetry(async () => {
        const res = await this.apiGet(`api/v1/employees?page=${page}&per_page=${this.opts.pageSize}`, what);
        if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
        const parsed = PageResponse.safeParse(parseJson(res, what));
        if (!parsed.success) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`, res.statusCode);
        return parsed.data;
      });
      const employees = data.employees.map((e) => mapEmployee(e));
      const first = employees[0]?.employeeId;
      if (page > 1 && employees.length > 0 && first === previousFirst) {
        throw new HrmsError('bad_response', `HRMS repeated the previous page at ${what}`);
      }
      previousFirst = first;
      if (employees.length === 0 && page > 1) return;
      yield { page, total: data.meta?.total, employees };
      const totalPages = data.meta?.total_pages;
      const done = totalPages !== undefined ? page >= totalPages : employees.length < (data.meta?.per_page ?? this.opts.pageSize);
      if (done || employees.length === 0) return;
    }
  }

  /**
   * `GET /api/v1/employees/{id}` with retries; 404 gives `null`, and so does, without any call,
   * an id that cannot name one employee: blank, holding NUL, or made only of dots (`.` and `..`
   * are dot-segments that URL resolution would turn into the collection or its parent).
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (id === '' || /^\.+$/.test(id) || id.includes('\u0000')) return null;
    const what = 'employee lookup';
    const native = await this.withRetry(async () => {
      const res = await this.apiGet(`api/v1/employees/${encodeURIComponent(id)}`, what);
      if (res.statusCode === 404) return null;
      if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
      return parseJson(res, what);
    });
    return native === null ? null : mapEmployee(native);
  }
}

/**
 * Builds the connector for `hrms_id` `reference`. Never throws itself: bad credentials shapes
 * (unknown grant_type, missing secret) surface as `HrmsError('auth')`, an invalid or refused
 * host as `HrmsError('host_not_allowed')`, on first use.
 */
export const createReferenceConnector: ConnectorFactory = (credentials, options = {}) => new ReferenceConnector(credentials, options);
