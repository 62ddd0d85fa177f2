/**
 * The declarative route table and its dispatcher on `node:http` with find-my-way.
 * Order of checks (docs/api.md "Conventions"): routing (404 / 405) → credential and the route's role (401,
 * docs/api.md "Credentials") → rate limit (429, docs/limits.md "Rate limits") → media type and body →
 * params / query / body schemas → handler → response schema (when enabled).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import findMyWay, { type HTTPMethod } from 'find-my-way';
import type { z } from 'zod';
import { hasRole, type Authenticator, type CredentialKind, type OrgRole, type PrincipalFor } from '../auth/credential';
import { sourceAddress } from '../auth/source';
import { AppError, renderError, type ErrorCode, type FieldError } from '../errors';
import { classifyUnavailable, failedDependency } from '../unavailable';
import type { Logger } from '../logger';
import type { RateLimiter } from '../ratelimit/limiter';
import { bodyLeftOut, mediaType, readForm, readJson, refuseNul } from './body';
import { awaitAnswer, beginIdempotent, recordAnswer, type IdempotencyStore, type IdempotentOption } from './idempotency';

/**
 * Credentials counted by the rate limit (docs/limits.md "Rate limits": per API key, either header form, and
 * per V2 Basic username). Not the admin token, not `none`, not the employer's `clientBasic`.
 */
const THROTTLED_CREDENTIALS: ReadonlySet<CredentialKind> = new Set(['apiKeyUsername', 'apiKey', 'vendorBasic']);

/** What a handler sees; `principal` is typed by the route's credential kind `K` and role `R`. */
export interface RequestContext<P, Q, B, K extends CredentialKind = CredentialKind, R extends OrgRole | undefined = undefined> {
  requestId: string;
  params: P;
  query: Q;
  body: B;
  principal: PrincipalFor<K, R>;
  headers: IncomingHttpHeaders;
  /** The source address (auth/source.ts), for the failed-authentication limit of body credentials. */
  source: string;
  log: Logger;
}

/**
 * A handler's answer: `data` is wrapped in the envelope `{requestId, message, data}` (message
 * `success` unless given)
 * plus `extra` top-level fields; `raw` bodies are sent as they are (org details is top-level).
 * `D` is what the route's `response` schema accepts (`z.input` of it), so a handler answering
 * another shape fails `tsc`.
 */
export type Reply<D = unknown> =
  | { data: D; extra?: Record<string, unknown>; message?: string; headers?: Record<string, string>; status?: number }
  /**
   * `data` already serialized (a trusted JSON text the service produced), spliced in as it is:
   * typed by the service that wrote it, checked against the schema when validation is on.
   */
  | { dataJson: string }
  /** `D` as the whole body, no envelope (org details, health); `status` defaults to 200. */
  | { raw: D; status?: number }
  /** A non-JSON body (the Prometheus exposition of `/metrics`), sent with its media type. */
  | { text: string; contentType: string; /** Replaces the default `cache-control: no-store` (a cacheable status list). */ cacheControl?: string }
  /** An HTML page (the Connect page), sent with `status` (default 200) and the handler's headers. */
  | { html: string; status?: number; headers?: Record<string, string> };

/**
 * What the OpenAPI document (src/openapi/document.ts, `GET /openapi.json`) says of a route beyond
 * its schemas and credential. The router itself never reads it.
 */
export interface RouteDoc {
  /** The operation's stable name (the typed client's and the reference's), e.g. `getEmployeeDetails`. */
  operationId: string;
  /** The feature it belongs to (the document's tag), e.g. `employees`. */
  tag: string;
  /** One line: what the route does. */
  summary: string;
  /** More, in Markdown: who may call it, what it changes, what to watch for. */
  description?: string;
  /**
   * How the 200 answer is shaped: `envelope` (`{requestId, message, ...extra, data}`, `data` the
   * `response` schema; the default), `raw` (the `response` schema itself, top-level), `html` or
   * `text` (plain text, e.g. the Prometheus format of `/metrics`).
   */
  answer?: 'envelope' | 'raw' | 'html' | 'text';
  /** The envelope's `message` when it is not `success`. */
  message?: string;
  /** The success status when it is not 200 (a sync on demand answers 202: docs/api.md "Sync on demand"). */
  status?: number;
  /** Top-level envelope fields beside requestId, message and data (e.g. `pageInfo`). */
  extra?: Record<string, z.ZodType>;
  /** The request body as documented where `body` cannot show it (read by the handler, or a transform). */
  body?: z.ZodType;
  /**
   * Errors this route answers beyond those every route of its credential and body kind answers
   * (credential errors, validation, body limits, 500, 503: src/openapi/document.ts adds those).
   */
  errors?: ErrorCode[];
  /**
   * Answers with a body other than the success's and the error envelope, by status (`/readyz`'s
   * 503 is `{status, checks}`); `schema` defaults to the `response` schema. Such a status is
   * documented with this body only, in place of the error envelope.
   */
  answers?: { status: number; description: string; schema?: z.ZodType }[];
}

/** Fields of a route row that do not depend on its types. */
interface RouteBase<K extends CredentialKind = CredentialKind, R extends OrgRole | undefined = OrgRole | undefined> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below `HRX_BASE_PATH`, find-my-way syntax (`/api/employee_details/:id`). */
  path: string;
  credential: K;
  /**
   * The kind of org the credential must belong to (docs/api.md "Credentials"), checked by the router right
   * after the credential: another org's credential is 401 `Invalid token.` (AUTH_INVALID) before
   * anything else runs. Narrows the handler's principal; handlers never check roles themselves.
   */
  role?: R;
  /**
   * How the body is read: JSON (415 for other media types), JSON that may be left out
   * (`optionalJson`: an empty body without a media type reads as undefined), a form, or not at all.
   */
  bodyType?: 'json' | 'optionalJson' | 'form' | 'none';
  /**
   * Takes `Idempotency-Key` (docs/api.md "Idempotency"): every state-changing POST or DELETE of a
   * vendor or an employer sets it; the router does the rest (http/idempotency.ts).
   */
  idempotent?: IdempotentOption;
  /** The route in the OpenAPI document; every route of the table has one (test/unit/openapi). */
  doc?: RouteDoc;
}

/**
 * One row of the route table as written: `S` is the `response` schema, and the handler's answer
 * must be what `S` accepts (without a `response`, the answer is unchecked); `K` is the credential
 * kind and `R` the role, which type the handler's principal (`PrincipalFor<K, R>`).
 */
export interface TypedRouteDef<P, Q, B, S extends z.ZodType, K extends CredentialKind, R extends OrgRole | undefined> extends RouteBase<K, R> {
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Schema of `data` (or of the raw body); types the handler's answer, checked when response validation is on. */
  response?: S;
  handler: (ctx: RequestContext<P, Q, B, K, R>) => Promise<Reply<z.input<S>>>;
}

/** One row of the route table as the dispatcher sees it: the types erased by `route()`. */
export interface RouteDef extends RouteBase {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Schema of `data` (or of the raw body); checked when response validation is on. */
  response?: z.ZodType;
  handler: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<Reply>;
}

/**
 * Builds a typed route (keeps the table declarative while inferring handler types) and erases its
 * types for the table.
 */
export function route<P, Q, B, K extends CredentialKind, S extends z.ZodType = z.ZodType, R extends OrgRole | undefined = undefined>(
  def: TypedRouteDef<P, Q, B, S, K, R>,
): RouteDef {
  const { handler, ...rest } = def;
  return {
    ...rest,
    // seam: the dispatcher parses params, query and body with this row's own schemas, and
    // authenticates with this row's credential kind and checks its role, before it calls the
    // handler, so the context it passes holds P, Q, B and a principal of kind K and role R (a
    // downcast, no `unknown` hop).
    handler: (ctx) => handler(ctx as RequestContext<P, Q, B, K, R>),
  };
}

export interface RouterOptions {
  basePath: string;
  maxBodyBytes: number;
  authenticate: Authenticator;
  log: Logger;
  /** Check every response against its schema (on in tests; costs CPU in production). */
  validateResponses: boolean;
  /**
   * Per-credential rate limit (docs/limits.md "Rate limits"), asked once the credential is resolved and before
   * the body is read; absent: no limit.
   */
  limiter?: RateLimiter | undefined;
  /**
   * The Connect session's own rate limit (docs/limits.md "Rate limits"), asked like `limiter`
   * with the session id as the credential; absent: none.
   */
  connectLimiter?: RateLimiter | undefined;
  /** Take the source address from `X-Forwarded-For` (`HRX_TRUST_PROXY`, auth/source.ts). */
  trustProxy?: boolean;
  /** Raw handlers mounted under a prefix (e.g. Bull Board at `/admin/queues`). */
  mounts?: { prefix: string; handler: (req: IncomingMessage, res: ServerResponse) => void }[];
  /** Where `Idempotency-Key`s and their answers are kept; absent: the header is ignored. */
  idempotency?: IdempotencyStore | undefined;
  /** Told of every answered request once its response is sent (request metrics, src/ops). */
  observe?: ((o: RequestObservation) => void) | undefined;
}

/**
 * One answered request as the router saw it. `route` is the pattern of the route table (or the
 * mount prefix) below `HRX_BASE_PATH`, never the raw path, so ids never become label values;
 * `UNMATCHED_ROUTE` when no route matched.
 */
export interface RequestObservation {
  method: string;
  route: string;
  status: number;
  seconds: number;
  /** A 429 refused by the per-credential rate limit (`requests`) or another limit (`auth_failures`). */
  throttled?: 'requests' | 'auth_failures';
}

/** The `route` of a request no route or mount matched (answered 404). */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * A validator issue in hrx's words (docs/api.md "Errors"): the schema's own message where it gave
 * one, else a phrase of the field's rule (`required`, `must be a boolean (true or false)`,
 * `must be at most 100`), never the validator's text.
 */
function inHrxWords(i: z.core.$ZodIssue): string {
  // zod's own messages start so; hrx's schemas write theirs in lower case (`required`, `must …`).
  if (!/^(Invalid|Too (small|big))/.test(i.message)) return i.message;
  const n = (v: unknown) => String(v);
  switch (i.code) {
    case 'invalid_type':
      if (/received undefined$/.test(i.message)) return 'required';
      return i.expected === 'boolean' ? 'must be a boolean (true or false)' : `must be ${/^[aeiou]/.test(i.expected) ? 'an' : 'a'} ${i.expected}`;
    case 'too_small':
      if (i.origin === 'string') return `must be at least ${n(i.minimum)} characters`;
      if (i.origin === 'array' || i.origin === 'set') return `must have at least ${n(i.minimum)} items`;
      return `must be at least ${n(i.minimum)}`;
    case 'too_big':
      if (i.origin === 'string') return `must be at most ${n(i.maximum)} characters`;
      if (i.origin === 'array' || i.origin === 'set') return `must have at most ${n(i.maximum)} items`;
      return `must be at most ${n(i.maximum)}`;
    case 'invalid_value':
      return `must be one of: ${i.values.map(n).join(', ')}`;
    case 'invalid_format':
      return i.format === 'regex' ? 'has an invalid format' : `must be a valid ${i.format}`;
    default:
      return 'is not valid';
  }
}

function zodFieldErrors(error: z.ZodError, prefix: string): FieldError[] {
  return error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    // Unknown keys are reported on the key itself so the message names the bad field.
    const keys = (i as { keys?: string[] }).keys;
    const field = keys?.length ? [path, keys[0]].filter(Boolean).join('.') : path || prefix;
    const message = i.code === 'unrecognized_keys' ? 'unknown field' : inHrxWords(i);
    return { field: field || prefix, message };
  });
}

/** Parses `value` with `schema`; a failure throws the 400 validation failure naming the first bad field. */
export function parseWith<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const r = schema.safeParse(value);
  if (!r.success) throw AppError.validation(zodFieldErrors(r.error, where));
  return r.data;
}

/** Sends a JSON body with the request id header. */
export function sendJson(res: ServerResponse, status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): void {
  sendText(res, status, JSON.stringify(body), requestId, headers);
}

/**
 * Sends an already serialized JSON body with the request id header. Every JSON answer of the API
 * (success or error) is `Cache-Control: no-store` (most carry personal data or credentials, and
 * one rule is safer than a list) and `X-Content-Type-Options: nosniff` (docs/limits.md).
 */
function sendText(res: ServerResponse, status: number, payload: string, requestId: string, headers: Record<string, string> = {}): void {
  // A claimed Idempotency-Key keeps this answer before it goes out (docs/api.md "Idempotency").
  recordAnswer(res, { status, headers: { ...headers, 'x-request-id': requestId }, body: payload }, () => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': requestId,
      ...headers,
    });
    res.end(payload);
  });
}

/**
 * Compiles the route table into a `node:http` request listener. Unknown paths answer
 * `404 Not found.`, known paths with another method `405 Method "X" not allowed.`.
 */
export function createRouter(routes: RouteDef[], opts: RouterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const router = findMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 512 });
  const methodsByPath = new Map<string, Set<string>>();
  for (const r of routes) {
    const full = opts.basePath + r.path;
    router.on(r.method, full, () => undefined, r);
    const set = methodsByPath.get(full) ?? new Set();
    set.add(r.method);
    methodsByPath.set(full, set);
  }
  // A catch-all per known path answers 405 for the methods it does not serve.
  const allMethods: HTTPMethod[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];
  for (const [path, methods] of methodsByPath) {
    for (const m of allMethods) if (!methods.has(m)) router.on(m, path, () => undefined, { notAllowed: true, path: path.slice(opts.basePath.length) });
  }
  const mounts = (opts.mounts ?? []).map((m) => ({ ...m, label: m.prefix, prefix: opts.basePath + m.prefix }));

  /** What the observer is told of a request besides its status (filled in as dispatch learns it). */
  interface Seen {
    route: string;
    throttled?: 'requests';
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, requestId: string, seen: Seen): Promise<void> {
    const url = req.url ?? '/';
    for (const m of mounts) {
      if (url === m.prefix || url.startsWith(m.prefix + '/') || url.startsWith(m.prefix + '?')) {
        seen.route = m.label;
        res.setHeader('x-request-id', requestId);
        m.handler(req, res);
        return;
      }
    }
    const found = router.find(req.method as HTTPMethod, url.split('?')[0]!);
    if (!found) throw new AppError('NOT_FOUND');
    const store = found.store as RouteDef | { notAllowed: true; path: string };
    seen.route = store.path;
    if ('notAllowed' in store) throw new AppError('METHOD_NOT_ALLOWED', { params: { method: req.method ?? '' } });
    const def = store;
    const source = sourceAddress(req, opts.trustProxy ?? false);
    const principal = await opts.authenticate(def.credential, req.headers, source);
    // Another kind of org's credential is the wrong credential (docs/api.md "Credentials").
    if (def.role && !(principal && hasRole(principal, def.role))) throw new AppError('AUTH_INVALID');
    // A Connect-session route's handler is typed to get the session's grant (PrincipalFor).
    if (def.credential === 'connectSession' && !principal?.connect) throw new AppError('AUTH_INVALID');
    // Only authenticated requests are counted: a failed authentication threw above.
    const limiter = def.credential === 'connectSession' ? opts.connectLimiter : THROTTLED_CREDENTIALS.has(def.credential) ? opts.limiter : undefined;
    if (principal && limiter) {
      // A session's bucket is named apart from the keys' (`connect:<session id>`).
      const decision = await limiter.take(def.credential === 'connectSession' ? `connect:${principal.credentialId}` : principal.credentialId);
      if (!decision.allowed) {
        seen.throttled = 'requests';
        const seconds = decision.retryAfterSec;
        throw new AppError('THROTTLED', { params: { seconds }, headers: { 'retry-after': String(seconds) } });
      }
    }
    let rawBody: unknown;
    if (def.bodyType === 'json' || (def.bodyType === 'optionalJson' && !bodyLeftOut(req))) rawBody = await readJson(req, opts.maxBodyBytes);
    // A form route takes the same fields as a JSON object too (docs/api.md "Terminate connection"): one field is no reason for a bare 415.
    else if (def.bodyType === 'form')
      rawBody = mediaType(req) === 'application/json' ? await readJson(req, opts.maxBodyBytes) : await readForm(req, opts.maxBodyBytes);
    else req.resume();
    if (def.idempotent && opts.idempotency) {
      const store = opts.idempotency;
      const header = req.headers['idempotency-key'];
      const found = await beginIdempotent(store, def.idempotent, { method: def.method, url, header, credential: def.credential, principal, body: rawBody });
      if (found && 'replay' in found) {
        const { 'x-request-id': firstId = requestId, ...headers } = found.replay.headers;
        sendText(res, found.replay.status, found.replay.body, firstId, { ...headers, 'idempotent-replayed': 'true' });
        return;
      }
      if (found) awaitAnswer(res, store, found.claim, (err) => opts.log.error({ err, requestId }, 'idempotency answer not kept'));
    }
    const q = url.indexOf('?');
    const query = Object.fromEntries(new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''));
    // docs/limits.md: no text holds U+0000 (bodies are checked by their readers). Path params are
    // identifiers: one holding NUL names nothing, and its route answers its own 404. A decoded
    // query holds NUL only from `%00` (the HTTP parser refuses raw control characters).
    if (q >= 0 && url.includes('%00', q)) refuseNul(query, 'query');
    const ctx: RequestContext<unknown, unknown, unknown> = {
      requestId,
      params: parseWith(def.params, { ...found.params }, 'params'),
      query: parseWith(def.query, query, 'query'),
      body: parseWith(def.body, rawBody, 'body'),
      principal,
      headers: req.headers,
      source,
      log: opts.log,
    };
    const reply = await def.handler(ctx);
    if ('html' in reply) {
      res.writeHead(reply.status ?? 200, {
        ...reply.headers,
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(reply.html),
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
      });
      res.end(reply.html);
      return;
    }
    if ('raw' in reply) {
      if (opts.validateResponses && def.response) parseWith(def.response, reply.raw, 'response');
      sendJson(res, reply.status ?? 200, reply.raw, requestId);
      return;
    }
    if ('text' in reply) {
      res.writeHead(200, {
        'content-type': reply.contentType,
        'content-length': Buffer.byteLength(reply.text),
        'cache-control': reply.cacheControl ?? 'no-store',
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
      });
      res.end(reply.text);
      return;
    }
    if ('dataJson' in reply) {
      if (opts.validateResponses && def.response) {
        const r = def.response.safeParse(JSON.parse(reply.dataJson));
        if (!r.success) throw new Error(`response schema mismatch on ${def.method} ${def.path}: ${r.error.message}`);
      }
      sendText(res, 200, `{"requestId":"${requestId}","message":"success","data":${reply.dataJson}}`, requestId);
      return;
    }
    if (opts.validateResponses && def.response) {
      const r = def.response.safeParse(reply.data);
      if (!r.success) throw new Error(`response schema mismatch on ${def.method} ${def.path}: ${r.error.message}`);
    }
    sendJson(res, reply.status ?? 200, { requestId, message: reply.message ?? 'success', ...reply.extra, data: reply.data }, requestId, reply.headers);
  }

  const observe = opts.observe;
  return (req, res) => {
    const requestId = randomUUID();
    const seen: Seen = { route: UNMATCHED_ROUTE };
    if (observe) {
      const started = performance.now();
      res.once('finish', () => {
        const status = res.statusCode;
        const throttled = status === 429 ? (seen.throttled ?? 'auth_failures') : undefined;
        observe({ method: req.method ?? '', route: seen.route, status, seconds: (performance.now() - started) / 1000, ...(throttled && { throttled }) });
      });
    }
    dispatch(req, res, requestId, seen).catch((caught: unknown) => {
      // docs/operations.md "Redis or PostgreSQL down; shutdown": Redis or PostgreSQL not answering is a 503 with Retry-After, not a 500.
      const err = classifyUnavailable(caught);
      if (err instanceof AppError && err.code === 'UNAVAILABLE') {
        const dependency = failedDependency(caught);
        const c = caught as { name?: unknown; code?: unknown };
        opts.log.warn(
          { requestId, dependency, errName: c?.name, errCode: c?.code, method: req.method, path: (req.url ?? '').split('?')[0] },
          'dependency unavailable',
        );
      } else if (!(err instanceof AppError) || err.code === 'INTERNAL') {
        opts.log.error({ err, requestId, method: req.method, path: (req.url ?? '').split('?')[0] }, 'request failed');
      }
      const r = renderError(err, requestId);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, r.status, r.body, requestId, r.headers);
    });
  };
}
