/**
 * Connector for `hrms_id` `personio` (docs/behaviour.md "HRMS hosts"; the sources in src/hrms/personio/README.md). One host
 * (https://api.personio.de), two APIs, and which one a company's credentials open is not
 * something hrx can know beforehand (research: `?`), so the connector asks:
 * - v1 first: `POST /v1/auth` with `client_id` and `client_secret` (JSON) → `{success, data:
 *   {token: "papi-..."}}`, a token stable for 24 h (https://developer.personio.de/reference/auth).
 *   v1 lists everything in one paged endpoint (v1.ts) and has `updated_since`.
 * - v2 when v1 is gone (404, 405, 410) or refuses the credentials: `POST /v2/auth/token` (form,
 *   `grant_type=client_credentials`) → `{access_token, expires_in}`; persons plus employments (v2.ts).
 * Data calls send `Authorization: Bearer <token>`. A v1 answer carrying a new token in its
 * `Authorization` header (v1's earlier rotating tokens) replaces the one held. A 401 drops the
 * token and the call is made once more with a new one; a second 401 is `HrmsError('auth')`.
 *
 * The auth endpoint has its own limit (60 a minute, then a 60-second cool-down): token requests
 * skip the data budget, and a 429 there waits the `Retry-After`, else the cool-down.
 */
import { z } from 'zod';
import {
  HrmsError,
  type ConnectorFactory,
  type ConnectorOptions,
  type EmployeePage,
  type HrmsAccess,
  type HrmsConnector,
  type ListOptions,
} from '../connector';
import { HrmsHttpClient, parseJson, parseRetryAfter, statusError, TOKEN_MAX_RESPONSE_BYTES, type HrmsResponse } from '../http-client';
import type { PartialEmployeeRecord } from '../../domain/record';
import { listV1, v1Records, type PersonioCalls, type V1Position } from './v1';
import { PersonioV2 } from './v2';
import { notACursor } from '../cursor';
import { TokenCache } from '../token-cache';
import { TokenSession } from '../token-session';

/** Personio's API host (docs/behaviour.md "HRMS hosts": `hrms_host`). */
export const PERSONIO_HOST = 'https://api.personio.de';
/** The auth endpoint's cool-down after its limit, ms (https://developer.personio.de/changelog/authentication-api-improved-bearer-token). */
export const AUTH_COOLDOWN_MS = 60_000;
const V1_TOKEN_TTL_MS = 24 * 3_600_000;

/**
 * Personio tokens shared by every connector of this process, keyed by a digest of the host, the
 * API and the credentials: Personio allows 60 token requests a minute, and hrx builds a connector
 * per sync and per live read.
 */
const TOKENS = new TokenCache();
/** A token request that did not give a token: that API is not there (`unavailable`) or refused the credentials. */
class NoToken extends Error {
  constructor(readonly why: 'unavailable' | 'refused') {
    super(why);
  }
}

const V1Token = z.object({ success: z.literal(true), data: z.object({ token: z.string().min(1) }) });
const V2Token = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive().optional() });
type Api = 'v1' | 'v2';

class PersonioConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private api: Api | undefined;
  /**
   * The token this connector holds (from `TOKENS`, or the newer one a rotating v1 answer carried);
   * the first one also chooses the API (v1, else v2).
   */
  private readonly session = new TokenSession(
    {
      obtain: async () => {
        const got = await this.tokenAndApi(this.api ? [this.api] : ['v1', 'v2'], false);
        this.api = got.api;
        return got.token;
      },
      forget: (token) => {
        if (this.api) TOKENS.drop(this.tokenKey(this.api), token);
      },
    },
    true,
  );
  private readonly warned = new Set<string>();
  private readonly calls: PersonioCalls;
  private readonly v2: PersonioV2;

  constructor(
    private readonly access: HrmsAccess,
    private readonly options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-personio-connector');
    this.calls = {
      getJson: (path, what, notFound) => this.getJson(path, what, notFound),
      pageSize: (max) => Math.min(this.client.opts.pageSize, max),
      warn: (field, reason) => this.warn(field, reason),
    };
    this.v2 = new PersonioV2(this.calls);
  }

  /** Warns `field` once per reason (default: a record without an id left out). */
  private warn(field: string, reason = 'record without an id left out'): void {
    const key = `${field}\n${reason}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    try {
      this.options.onWarning?.({ field, reason });
    } catch {
      /* a logger must not stop the listing */
    }
  }

  private url(path: string): URL {
    return this.client.url(this.access.credentials.hrms_host, path);
  }

  /** One token request of `api`: the token, or `unavailable` (that API is not there) or `refused`. */
  private async tokenOf(api: Api): Promise<{ token: string; ttlMs: number } | 'unavailable' | 'refused'> {
    const { client_id: id, client_secret: secret } = this.access.credentials;
    if (!id || !secret) throw new HrmsError('auth', 'Personio needs a client id and a client secret');
    const what = `${api} token request`;
    const res = await this.client.request(this.url(api === 'v1' ? 'v1/auth' : 'v2/auth/token'), what, {
      method: 'POST',
      unbudgeted: true,
      maxBytes: TOKEN_MAX_RESPONSE_BYTES,
      ...(api === 'v1'
        ? { json: { client_id: id, client_secret: secret } }
        : { form: { grant_type: 'client_credentials', client_id: id, client_secret: secret } }),
    });
    if ([404, 405, 410].includes(res.statusCode)) return 'unavailable';
    if ([400, 401, 403].includes(res.statusCode)) return 'refused';
    if (res.statusCode === 429) {
      throw new HrmsError('rate_limited', `HRMS rate-limited the ${what} (HTTP 429)`, 429, parseRetryAfter(res.headers['retry-after']) ?? AUTH_COOLDOWN_MS);
    }
    if (res.statusCode !== 200) throw statusError(res.statusCode, what, res.headers['retry-after']);
    const body = parseJson(res, what);
    if (api === 'v1') {
      if ((body as { success?: unknown } | null)?.success === false) return 'refused';
      const parsed = V1Token.safeParse(body);
      if (!parsed.success) throw new HrmsError('bad_response', 'HRMS token response lacks a token', 200);
      return { token: parsed.data.data.token, ttlMs: V1_TOKEN_TTL_MS };
    }
    const parsed = V2Token.safeParse(body);
    if (!parsed.success) throw new HrmsError('bad_response', 'HRMS token response lacks an access_token', 200);
    return { token: parsed.data.access_token, ttlMs: (parsed.data.expires_in ?? 86_400) * 1000 };
  }

  private tokenKey(api: Api): string {
    const { hrms_host: host, client_id: id = '', client_secret: secret = '' } = this.access.credentials;
    return TokenCache.keyOf('personio', host, api, id, secret);
  }

  /**
   * A token of `api` (from the cache, else one request) and the API in use, tried in order (v1,
   * else v2) until one gives a token. `fresh` asks Personio even when a token is cached.
   */
  private async tokenAndApi(order: readonly Api[], fresh: boolean): Promise<{ token: string; api: Api }> {
    let refused = false;
    for (const api of order) {
      const issue = async () => {
        const got = await this.tokenOf(api);
        if (typeof got === 'string') throw new NoToken(got);
        return { value: got.token, ttlMs: got.ttlMs };
      };
      try {
        return { token: fresh ? (await issue()).value : await TOKENS.get(this.tokenKey(api), issue), api };
      } catch (err) {
        if (!(err instanceof NoToken)) throw err;
        refused ||= err.why === 'refused';
      }
    }
    throw refused ? new HrmsError('auth', 'HRMS rejected the client credentials') : new HrmsError('not_found', 'HRMS has neither API v1 nor v2 at this host');
  }

  /** One authenticated GET; a 401 gets one new token and one more try. */
  private async call(path: string, what: string): Promise<HrmsResponse> {
    const sent = await this.session.send(
      (token) => this.client.request(this.url(path), what, { headers: { authorization: `Bearer ${token}` } }),
      (res) => res.statusCode === 401,
    );
    if (sent.refused) throw new HrmsError('auth', `HRMS rejected the token on ${what} (HTTP 401)`, 401);
    // v1 used to rotate tokens: an answer carrying another one replaces the one held.
    const next = /^Bearer\s+(papi-\S+)$/i.exec(String(sent.answer.headers.authorization ?? ''))?.[1];
    if (next) this.session.rotate(next);
    return sent.answer;
  }

  private getJson(path: string, what: string, notFound?: 'null'): Promise<unknown> {
    return this.client.retriedJson(() => this.call(path, what), what, { nullOn: notFound === 'null' ? [404] : [] });
  }

  /** A fresh token request (docs/behaviour.md "Setup config": one call; never a cached token), which also picks the API. */
  async verifyCredentials(): Promise<void> {
    this.api = (await this.tokenAndApi(['v1', 'v2'], true)).api;
  }

  /**
   * Every employee (v1: `limit`/`offset` pages; v2: persons with employments), or with `since`
   * those changed since (v1 `updated_since`, v2 `updated_at.gt`). Personio's listings never show
   * deletions, so `removedIds` is never set: the daily full sync finds them (definition).
   */
  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    const at = options.cursor ? readCursor(options.cursor) : undefined;
    if (at && at.api !== this.api) {
      this.api = at.api;
      this.session.release();
    }
    if (!this.api) await this.client.withRetry(() => this.session.token());
    if (this.api === 'v2') {
      yield* this.v2.list(at?.api === 'v2' ? at.href : undefined, options.since, (href) => `v2:${href}`);
      return;
    }
    yield* listV1(this.calls, at?.api === 'v1' ? at.position : { page: 0 }, options.since, (p) => `v1:${p.mode ?? ''}:${p.page}`);
  }

  /**
   * Live read by Personio id (`GET /v1/company/employees/{id}`, or the v2 person with its employment); null, without a
   * call, for an id that is not a Personio id as Personio writes it (decimal digits, no leading zero: docs/hrms/connectors.md
   * "Employee ids in live reads").
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    if (!/^(0|[1-9]\d{0,17})$/.test(id)) return null;
    if (!this.api) await this.client.withRetry(() => this.session.token());
    if (this.api === 'v2') return this.v2.one(id);
    const body = await this.getJson(`v1/company/employees/${id}`, 'employee lookup', 'null');
    const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
    return data === undefined ? null : (v1Records([data], this.calls)[0] ?? null);
  }
}

/** A `next` cursor: `v1:<rows|pages|>:<page>` or `v2:<next link>`. */
function readCursor(cursor: string): { api: 'v1'; position: V1Position } | { api: 'v2'; href: string } {
  const v1 = /^v1:(rows|pages|):(\d{1,9})$/.exec(cursor);
  if (v1) return { api: 'v1', position: { ...(v1[1] ? { mode: v1[1] as 'rows' | 'pages' } : {}), page: Number(v1[2]) } };
  if (cursor.startsWith('v2:') && cursor.length > 3) return { api: 'v2', href: cursor.slice(3) };
  throw notACursor('the Personio connector');
}

/**
 * Builds the connector for `hrms_id` `personio`. Never throws itself: missing credentials surface
 * as `HrmsError('auth')`, a refused host as `HrmsError('host_not_allowed')`, on first use.
 */
export const createPersonioConnector: ConnectorFactory = (access, options = {}) => new PersonioConnector(access, options);
