/**
 * The HTTP side every connector shares (contract v2, docs/limits.md, docs/behaviour.md "HRMS hosts"): URLs under the
 * configured host checked by the host policy, one got exchange per call with a size-capped body,
 * the tenant's shared request budget taken before each request, and p-retry with exponential
 * backoff that honours `Retry-After` (RFC 9110 §10.2.3). A connector adds only its product's
 * auth handshake, paging, envelope and mapping.
 *
 * Error messages name the operation and the HTTP status only: never credentials, tokens, hosts
 * or employee values.
 */
import got, { type OptionsInit } from 'got';
import pRetry, { AbortError } from 'p-retry';
import { setTimeout as sleep } from 'node:timers/promises';
import { HrmsError, type ConnectorOptions } from './connector';
import { certificateRefusal, type ClientCertificate } from './tls-client';
import { HostNotAllowedError, isHostNotAllowed } from '../outbound/host-policy';
import { DEFAULT_MAX_RESPONSE_BYTES, isResponseTooLarge, requestBounded } from '../outbound/bounded-response';

/**
 * Default cap of a streamed answer (`requestStream`): 1 GiB, about a million employees of a
 * Darwinbox dataset. A stream is never held whole, so its cap guards only against an answer
 * that never ends, not memory.
 */
export const DEFAULT_MAX_STREAMED_BYTES = 1024 * 1024 * 1024;

/** Defaults of `ConnectorOptions` (connector.ts documents each). */
export const CONNECTOR_DEFAULTS = {
  timeoutMs: 10_000,
  retries: 5,
  minRetryDelayMs: 250,
  maxRetryDelayMs: 30_000,
  pageSize: 200,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  maxStreamedBytes: DEFAULT_MAX_STREAMED_BYTES,
} as const;

/** A token response is a few hundred bytes: past 1 MiB it is refused (within docs/limits.md's 64 MiB). */
export const TOKEN_MAX_RESPONSE_BYTES = 1024 * 1024;

const RETRYABLE = new Set(['rate_limited', 'unavailable']);

/** One HRMS answer: status, headers and the (decompressed, size-capped) body as text. */
export interface HrmsResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request: method, headers, and a form (urlencoded) or JSON body. */
export interface HrmsRequestInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
  /** A lower body cap than the connector's, e.g. `TOKEN_MAX_RESPONSE_BYTES`. */
  maxBytes?: number;
  /** Skip the request budget (a product whose token calls have a budget of their own). */
  unbudgeted?: boolean;
}

/**
 * A streamed answer (`HrmsHttpClient.requestStream`): status and headers at once, the body read
 * chunk by chunk as the consumer asks, so a whole-dataset answer (Darwinbox) is never held whole.
 */
export interface HrmsStreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /**
   * The (decompressed) body chunks, once. Past the byte cap: `HrmsError('bad_response')`; no
   * chunk within `timeoutMs` of asking, or a broken connection: `HrmsError('unavailable')`.
   * Ending the iteration early (break, throw) releases the connection.
   */
  body: AsyncIterable<Buffer>;
  /** Stops reading and releases the connection (idempotent). */
  close(): void;
}

/** `ConnectorOptions` with every default applied. */
export type ResolvedConnectorOptions = Required<Omit<ConnectorOptions, OptionalOption>> & Pick<ConnectorOptions, OptionalOption>;
/** The options without a default (absent means "none"). */
type OptionalOption = 'onRetry' | 'onActivity' | 'hostPolicy' | 'signal' | 'budget' | 'onWarning' | 'enumLabels';

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

/** The body of `res` as JSON; `bad_response` when it is not JSON (never quoting it). */
export function parseJson(res: HrmsResponse, what: string): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    throw new HrmsError('bad_response', `HRMS sent malformed JSON for ${what}`, res.statusCode);
  }
}

/**
 * HTTP Basic credentials (RFC 7617). With `formEncoded` (OAuth2 client authentication,
 * RFC 6749 §2.3.1) id and secret are form-urlencoded first.
 */
export function basicAuth(id: string, secret: string, formEncoded = false): string {
  const enc = (s: string): string => (formEncoded ? new URLSearchParams({ x: s }).toString().slice(2) : s);
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

/** Applies the defaults to `options` (a negative, NaN or missing number takes its default). */
export function resolveOptions(options: ConnectorOptions): ResolvedConnectorOptions {
  const pick = <K extends keyof typeof CONNECTOR_DEFAULTS>(k: K): number => {
    const v = options[k];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : CONNECTOR_DEFAULTS[k];
  };
  return {
    timeoutMs: pick('timeoutMs'),
    retries: Math.floor(pick('retries')),
    minRetryDelayMs: pick('minRetryDelayMs'),
    maxRetryDelayMs: pick('maxRetryDelayMs'),
    pageSize: Math.max(1, Math.floor(pick('pageSize'))),
    onRetry: options.onRetry,
    onActivity: options.onActivity,
    hostPolicy: options.hostPolicy,
    signal: options.signal,
    maxResponseBytes: Math.max(1, Math.floor(pick('maxResponseBytes'))),
    maxStreamedBytes: Math.max(1, Math.floor(pick('maxStreamedBytes'))),
    budget: options.budget,
    onWarning: options.onWarning,
    enumLabels: options.enumLabels,
  };
}

/** The HTTP client of one connector instance. */
export class HrmsHttpClient {
  readonly opts: ResolvedConnectorOptions;

  /**
   * @param userAgent sent as `User-Agent`, e.g. `hrx-<hrms_id>-connector`
   * @param clientCertificate presented on every request (mutual TLS; src/hrms/tls-client.ts), through
   *   the host policy's agents too (node's https agent takes the request's `cert`/`key` and keeps
   *   sockets of another certificate apart). The server is still checked against the system's CAs.
   */
  constructor(
    options: ConnectorOptions,
    private readonly userAgent: string,
    private readonly clientCertificate?: ClientCertificate,
  ) {
    this.opts = resolveOptions(options);
  }

  /**
   * Resolves `path` under `base` (an `hrms_host` or `api_configs` host), keeping any path prefix
   * of the base URL. A base that is not an http(s) URL, or that the host policy refuses up front
   * (an IP literal), is `host_not_allowed`. An absolute `path` (a product's `nextPage` link) must
   * stay on the base's origin, else `bad_response`.
   */
  url(base: string, path: string): URL {
    let root: URL;
    try {
      root = new URL(base.endsWith('/') ? base : `${base}/`);
    } catch {
      throw new HrmsError('host_not_allowed', 'HRMS host is not a valid URL');
    }
    if (root.protocol !== 'http:' && root.protocol !== 'https:') throw new HrmsError('host_not_allowed', 'HRMS host must be an http(s) URL');
    try {
      this.opts.hostPolicy?.checkUrl(root);
    } catch (err) {
      if (err instanceof HostNotAllowedError) throw new HrmsError('host_not_allowed', 'HRMS host not allowed');
      throw err;
    }
    const url = new URL(path, root);
    // A link the HRMS hands back must not send hrx (and its token) to another host.
    if (url.origin !== root.origin) throw new HrmsError('bad_response', 'HRMS pointed to another host');
    return url;
  }

  /**
   * One HTTP exchange, after taking one request from the tenant's budget. Transport failures
   * (refused, reset, timeout) become `unavailable`, a name the host policy refuses at connection
   * time `host_not_allowed`, a body past the cap after decompression `bad_response`
   * (docs/limits.md; never retried). The body is streamed and counted, never buffered past the cap.
   */
  async request(url: URL, what: string, init: HrmsRequestInit = {}): Promise<HrmsResponse> {
    const maxBytes = this.maxBytes(init);
    const done = init.unbudgeted ? undefined : await this.opts.budget?.take(this.opts.signal);
    try {
      const res = await requestBounded(url, { ...this.gotOptions(init), timeout: { request: this.opts.timeoutMs } }, maxBytes);
      this.activity('answered');
      return { statusCode: res.statusCode, headers: res.headers, body: res.body.toString('utf8') };
    } catch (err) {
      throw this.transportError(err, what, maxBytes);
    } finally {
      await done?.();
    }
  }

  /**
   * `request` for an answer too large to hold (Darwinbox's whole dataset, docs/behaviour.md "Live reads and the HRMS budget"): the
   * same budget, host policy (checked at connection time), headers and byte cap, but the body is
   * handed over as a stream of chunks. `timeoutMs` bounds the wait for the response head and
   * then each wait for the next chunk while the consumer asks for one (a whole-dataset answer
   * may take longer than any one timeout to read at the consumer's pace, but the HRMS must
   * never be silent longer than it). The cap is `maxStreamedBytes` (not `maxResponseBytes`,
   * which bounds answers held whole: a stream's memory stays flat, so only an endless answer
   * needs stopping); it counts every body byte after decompression, and an unencoded body
   * declaring a larger `Content-Length` is refused before it is read.
   */
  async requestStream(url: URL, what: string, init: HrmsRequestInit = {}): Promise<HrmsStreamResponse> {
    const maxBytes = Math.min(init.maxBytes ?? Infinity, this.opts.maxStreamedBytes);
    const timeoutMs = this.opts.timeoutMs;
    const done = init.unbudgeted ? undefined : await this.opts.budget?.take(this.opts.signal);
    const t = timeoutMs;
    const stream = got.stream(url, {
      ...this.gotOptions(init),
      throwHttpErrors: false,
      isStream: true,
      timeout: { lookup: t, connect: t, secureConnect: t, send: t, response: t },
    } as OptionsInit & { isStream: true });
    const close = (): void => {
      if (!stream.destroyed) stream.destroy();
    };
    let head: { statusCode: number; headers: Record<string, string | string[] | undefined> };
    try {
      head = await new Promise((resolve, reject) => {
        stream.once('response', (res: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => resolve(res));
        stream.once('error', reject);
      });
    } catch (err) {
      close();
      throw this.transportError(err, what, maxBytes);
    } finally {
      // The request reached the HRMS before its answer's head (or failed): its slot counts from now.
      await done?.();
    }
    this.activity('answered');
    const declared = Number(head.headers['content-length']);
    const encoded = head.headers['content-encoding'] && head.headers['content-encoding'] !== 'identity';
    if (!encoded && Number.isFinite(declared) && declared > maxBytes) {
      close();
      throw new HrmsError('bad_response', `HRMS response to ${what} exceeds ${maxBytes} bytes`);
    }
    const transportError = (err: unknown): unknown => this.transportError(err, what, maxBytes);
    const answered = (): void => this.activity('answered');
    async function* body(): AsyncGenerator<Buffer> {
      const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      let size = 0;
      try {
        for (;;) {
          let timer: NodeJS.Timeout | undefined;
          const stalled = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new HrmsError('unavailable', `HRMS stopped sending ${what} (timeout)`)), timeoutMs);
          });
          let next: IteratorResult<Buffer>;
          try {
            next = await Promise.race([chunks.next(), stalled]);
          } finally {
            clearTimeout(timer);
          }
          if (next.done) return;
          answered();
          size += next.value.length;
          if (size > maxBytes) throw new HrmsError('bad_response', `HRMS response to ${what} exceeds ${maxBytes} bytes`);
          yield next.value;
        }
      } catch (err) {
        throw err instanceof HrmsError ? err : transportError(err);
      } finally {
        close();
      }
    }
    return { statusCode: head.statusCode, headers: head.headers, body: body(), close };
  }

  /** Tells `onActivity` (the sync's stall guard); a failing listener never fails a request. */
  private activity(event: 'answered' | 'waiting' | 'resumed'): void {
    try {
      this.opts.onActivity?.(event);
    } catch {
      /* the guard's bookkeeping must not fail the HRMS call */
    }
  }

  private maxBytes(init: HrmsRequestInit): number {
    return Math.min(init.maxBytes ?? Infinity, this.opts.maxResponseBytes);
  }

  /** got options shared by `request` and `requestStream`: the host policy's lookup and agents, method, headers, body. */
  private gotOptions(init: HrmsRequestInit): OptionsInit {
    const policy = this.opts.hostPolicy;
    return {
      ...(policy ? { dnsLookup: policy.lookup, agent: { http: policy.agent.http, https: policy.agent.https } } : {}),
      ...(this.clientCertificate ? { https: { certificate: this.clientCertificate.cert, key: this.clientCertificate.key } } : {}),
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', 'user-agent': this.userAgent, ...init.headers },
      ...(init.form ? { form: init.form } : {}),
      ...(init.json !== undefined ? { json: init.json } : {}),
      retry: { limit: 0 },
      followRedirect: false,
      // got refuses a body on GET unless told (Darwinbox's scripts send GET with a JSON body).
      ...(init.json !== undefined && (init.method ?? 'GET') === 'GET' ? { allowGetBody: true } : {}),
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
    };
  }

  /** The `HrmsError` (or the abort reason) for a failed exchange of `what`. */
  private transportError(err: unknown, what: string, maxBytes: number): unknown {
    if (isHostNotAllowed(err)) return new HrmsError('host_not_allowed', `HRMS host not allowed on ${what}`);
    if (isResponseTooLarge(err)) return new HrmsError('bad_response', `HRMS response to ${what} exceeds ${maxBytes} bytes`);
    if (this.opts.signal?.aborted) return this.opts.signal.reason ?? err;
    const code = (err as { code?: unknown }).code;
    const refused = certificateRefusal(code, this.clientCertificate !== undefined, what);
    if (refused) return refused;
    const tag = typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : 'network error';
    return new HrmsError('unavailable', `HRMS unreachable on ${what} (${tag})`);
  }

  /**
   * The token request of the OAuth-style products (Keka, Zoho People, greytHR, reference): a POST
   * of `form` to `url` (with `headers`, e.g. Basic client authentication), `what` "token request",
   * its answer capped at {@link TOKEN_MAX_RESPONSE_BYTES}. Status handling is the product's.
   */
  tokenRequest(url: URL, form: Record<string, string>, headers?: Record<string, string>): Promise<HrmsResponse> {
    return this.request(url, 'token request', { method: 'POST', ...(headers ? { headers } : {}), form, maxBytes: TOKEN_MAX_RESPONSE_BYTES });
  }

  /**
   * The connectors' one "call, retried, JSON of a 200" step: `send` (one call, e.g. through a
   * token session) run by {@link withRetry}; a 200 is its parsed JSON, a status in `nullOn` is
   * `null` (a resource the HRMS lacks or withholds), any other is thrown as `fail(res)` (default
   * {@link statusError}, honouring `Retry-After`).
   */
  retriedJson(
    send: () => Promise<HrmsResponse>,
    what: string,
    options: { nullOn?: readonly number[]; fail?: (res: HrmsResponse) => HrmsError } = {},
  ): Promise<unknown> {
    return this.withRetry(async () => {
      const res = await send();
      if (options.nullOn?.includes(res.statusCode)) return null;
      if (res.statusCode !== 200) throw options.fail ? options.fail(res) : statusError(res.statusCode, what, res.headers['retry-after']);
      return parseJson(res, what);
    });
  }

  /**
   * Runs `attempt` with p-retry. Only `rate_limited` and `unavailable` are retried; everything
   * else is wrapped in `AbortError` so p-retry stops at once. The wait happens in
   * `onFailedAttempt`: `Retry-After` when sent (capped at maxRetryDelayMs; a rate limit with a
   * known wait also holds the whole tenant's budget off for it), else
   * min(maxRetryDelayMs, minRetryDelayMs * 2^(n-1) * random[1,2)). A wait after an answer is
   * told to `onActivity` (`waiting`, `resumed`).
   */
  withRetry<T>(attempt: () => Promise<T>): Promise<T> {
    const { retries, minRetryDelayMs: min, maxRetryDelayMs: max, onRetry, signal, budget } = this.opts;
    return pRetry(
      async () => {
        try {
          return await attempt();
        } catch (err) {
          if (err instanceof HrmsError && RETRYABLE.has(err.kind)) throw err;
          throw new AbortError(err instanceof Error ? err : new Error(String(err)));
        }
      },
      {
        retries,
        factor: 1,
        minTimeout: 0,
        maxTimeout: 0,
        randomize: false,
        ...(signal ? { signal } : {}),
        onFailedAttempt: async (error) => {
          if (error.retriesLeft <= 0) return;
          // p-retry hands back the thrown error itself: only a retryable HrmsError gets here.
          const e = error instanceof HrmsError ? error : undefined;
          if (e?.kind === 'rate_limited' && e.retryAfterMs) await budget?.holdOff(e.retryAfterMs);
          const delayMs =
            e?.retryAfterMs !== undefined
              ? Math.min(e.retryAfterMs, max)
              : Math.min(max, Math.round(min * 2 ** (error.attemptNumber - 1) * (1 + Math.random())));
          try {
            onRetry?.({ attempt: error.attemptNumber, delayMs, reason: `${e?.kind ?? error.name}${e?.status ? ` (HTTP ${e.status})` : ''}` });
          } catch {
            /* a failing logger must not stop retries */
          }
          if (!(delayMs > 0)) return;
          // A wait after an answer (throttling, Retry-After, a 5xx) is the HRMS's pacing, not its
          // silence: the sync's stall guard does not count it. A wait after no answer (a refused
          // or timed-out connection) is silence, and counts.
          const paced = e?.kind === 'rate_limited' || e?.status !== undefined;
          if (paced) this.activity('waiting');
          try {
            await sleep(delayMs, undefined, { signal });
          } finally {
            if (paced) this.activity('resumed');
          }
        },
      },
    );
  }
}
