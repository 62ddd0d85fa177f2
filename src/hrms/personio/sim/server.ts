/**
 * The Personio simulator (`hrx hrms-sim --dialect personio`; the sources in src/hrms/personio/README.md), on one host like https://api.personio.de. Its v1 answers follow Personio's
 * published description (`personio/openapi/rules.yaml`: only attributes Personio names, a
 * birth date with `universal_id` `date_of_birth`, `fix_salary` with its `currency`):
 * - v1: `POST /v1/auth` (JSON, form or query `client_id` + `client_secret`) → `{success, data:
 *   {token: "papi-..."}}`, the token stable for 24 h and echoed in the `Authorization` response
 *   header; at most 60 auth requests a minute, then 429 for a 60-second cool-down.
 *   `GET /v1/company/employees?limit=&offset=` (limit at most 100) in `{success, metadata:
 *   {total_elements, current_page, total_pages}, offset, limit, data: [{type, attributes}]}`, each
 *   attribute wrapped in `{label, value, type, universal_id}`; `updated_since` lists the employees
 *   modified since then and ignores `limit`/`offset`. `GET /v1/company/employees/{id}`.
 * - v2: `POST /v2/auth/token` (form, `grant_type=client_credentials`), `GET /v2/persons?limit=`
 *   (at most 50) following `_meta.links.next.href`, `updated_at.gt`; `GET /v2/persons/{id}`,
 *   `GET /v2/persons/{id}/employments`, `GET /v2/org-units/{id}`.
 * Data requests over 300 a minute (Personio's published limit for listing employees) get 429.
 *
 * Switches (`variants`): `api` both|v1|v2 (which API exists), `authFailStatus` 401|403|200 (v1's
 * answer to wrong credentials), `rotateTokens` (v1's old behaviour: every answer carries a new
 * token and the used one dies), `offsetMeans` rows|pages, `updatedSincePaging` ignored|honoured,
 * `dateStyle` datetime|date, `labels` en|de, `dynamicAttributes`, `salaryInterval` yearly|monthly,
 * `salaryCurrency` (three letters, default INR: the `currency` of `fix_salary`),
 * `v2Labels`, `retryAfterSec`, `authCooldownMs`, `limitPerMinute`, `tokenTtlSec`.
 * `remove` deletes the employee (Personio's listings do not report deletions).
 */
import type { IncomingMessage } from 'node:http';
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeCode, managerOf, type NativeEmployee } from '../../sim/data';
import type { DialectSim, DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { requestCounter } from '../../sim/listen';
import { bearerToken, CoreBacked, json, readBody, sameSecret, SimCore, Staff, tokenOk, Tokens, Variants, type Reply } from '../../sim/kit';
import { expectedRecord, indexOfPersonioId, nameId, personioId, v1Employee, v2Employments, v2Person, type PersonioShape } from './render';

const CLIENT_ID = 'papi-sim-client-7QX';
const CLIENT_SECRET = 'papi-sim-secret-Zr4';
const V1_MAX = 100;
const V2_MAX = 50;

class PersonioSim extends CoreBacked implements DialectSim {
  readonly hrmsId = 'personio';
  url = '';
  private readonly sw: Variants;
  private readonly staff: Staff;
  private readonly shape: PersonioShape;
  private readonly api: 'both' | 'v1' | 'v2';
  private readonly v1Tokens = new Tokens();
  private readonly v2Tokens = new Tokens();
  protected readonly core: SimCore;
  /** Auth requests in the last minute (Personio allows 60). */
  private readonly auth = requestCounter(60_000);
  private authBlockedUntil = 0;
  private units: Map<number, string> | undefined;

  constructor(private readonly opts: DialectSimOptions) {
    super();
    const sw = (this.sw = new Variants(opts.variants));
    this.staff = new Staff(opts.seed, opts.employees);
    this.shape = {
      dateStyle: sw.oneOf('dateStyle', ['datetime', 'date'], 'datetime'),
      labels: sw.oneOf('labels', ['en', 'de'], 'en'),
      dynamicAttributes: sw.bool('dynamicAttributes', true),
      salaryInterval: sw.oneOf('salaryInterval', ['yearly', 'monthly'], 'yearly'),
      salaryCurrency: /^[A-Z]{3}$/.test(sw.text('salaryCurrency') ?? '') ? sw.text('salaryCurrency')! : 'INR',
      v2Labels: sw.bool('v2Labels', true),
    };
    this.api = sw.oneOf('api', ['both', 'v1', 'v2'], 'both');
    this.core = new SimCore(opts, { requests: sw.num('limitPerMinute', 300, 1), windowMs: 60_000 }, [this.v1Tokens, this.v2Tokens]);
    sw.oneOf('authFailStatus', ['401', '403', '200'], '401');
    sw.oneOf('offsetMeans', ['rows', 'pages'], 'rows');
    sw.oneOf('updatedSincePaging', ['ignored', 'honoured'], 'ignored');
  }

  async start(): Promise<this> {
    const { url } = await this.core.listen((req, url) => this.route(req, url), json(500, { success: false, error: { code: 500, message: 'Internal error' } }));
    this.url = url;
    return this;
  }

  private creds(secret: string) {
    return {
      hrms_id: this.hrmsId,
      access_credentials: { hrms_host: this.url, grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: secret },
      api_configs: [],
    };
  }
  setup() {
    return this.creds(CLIENT_SECRET);
  }
  wrongSetup() {
    return this.creds(`${CLIENT_SECRET}-wrong`);
  }

  /** The supervisor whose data an employee's record shows (v2 finds it only while it is served). */
  private manager(i: number, api: 'v1' | 'v2'): NativeEmployee | undefined {
    const m = managerOf(i);
    return m === undefined || (api === 'v2' && !this.staff.isServed(m)) ? undefined : this.staff.employee(m);
  }

  expected(): PartialEmployeeRecord[] {
    const api = this.api === 'v2' ? 'v2' : 'v1';
    return this.staff.served().map((i) => expectedRecord(i, this.staff.employee(i), this.manager(i, api), this.shape, api));
  }
  employeeIds(): string[] {
    return this.staff.served().map((i) => String(personioId(i)));
  }
  private code(employeeId: string): string {
    const i = indexOfPersonioId(Number(employeeId));
    if (i === undefined || String(personioId(i)) !== employeeId) throw new RangeError(`no served employee ${employeeId}`);
    return employeeCode(i);
  }
  change(employeeId: string): void {
    this.staff.change(this.code(employeeId));
  }
  remove(employeeId: string): void {
    this.staff.remove(this.code(employeeId));
  }
  override resetStats(): void {
    super.resetStats();
    this.auth.reset();
  }

  private throttled(): Reply {
    const after = this.sw.num('retryAfterSec', 0);
    return this.core.throttled(
      json(429, { success: false, error: { code: 429, message: 'Too Many Requests' } }, after > 0 ? { 'retry-after': String(after) } : {}),
    );
  }

  private async route(req: IncomingMessage, url: URL): Promise<Reply> {
    const path = url.pathname.replace(/\/+$/, '');
    const v1 = path.startsWith('/v1/'),
      v2 = path.startsWith('/v2/');
    if ((v1 && this.api === 'v2') || (v2 && this.api === 'v1') || (!v1 && !v2))
      return json(404, { success: false, error: { code: 404, message: 'Not found' } });
    if (path === '/v1/auth' || path === '/v2/auth/token') {
      if (req.method !== 'POST') return json(405, { success: false, error: { code: 405, message: 'Method not allowed' } });
      return this.authenticate(req, url, v1);
    }
    if (req.method !== 'GET') return json(405, { success: false, error: { code: 405, message: 'Method not allowed' } });
    const stop = await this.core.gate(
      this.core.window.hit(),
      () => this.throttled(),
      () => json(503, { success: false, error: { code: 503, message: 'Service unavailable' } }),
    );
    if (stop) return stop;
    const bearer = bearerToken(req.headers.authorization);
    const tokens = v1 ? this.v1Tokens : this.v2Tokens;
    if (!tokenOk(this.core, tokens, bearer)) {
      return v1
        ? json(401, { success: false, error: { code: 0, message: 'The token is invalid or expired' } })
        : json(401, { errors: [{ title: 'Unauthorized', detail: 'Invalid access token' }] });
    }
    const reply = v1 ? this.v1Route(path, url) : this.v2Route(path, url);
    if (v1 && this.sw.bool('rotateTokens', false) && reply.status === 200) {
      // The old v1 behaviour: every answer carries the next token, and the one used dies.
      tokens.drop(bearer!);
      reply.headers.authorization = `Bearer ${tokens.issue(this.sw.num('tokenTtlSec', 86_400, 1) * 1000, 'papi-')}`;
    }
    return reply;
  }

  private async authenticate(req: IncomingMessage, url: URL, v1: boolean): Promise<Reply> {
    this.core.counters.tokenRequests += 1;
    const body = await readBody(req);
    if (body === null) return json(413, { error: 'body too large' });
    const now = Date.now();
    // Over 60 auth requests a minute: every one refused for a cool-down (60 s, `authCooldownMs`), then counted afresh.
    if (now < this.authBlockedUntil) return this.throttled();
    if (this.auth.hit() > 60) {
      this.authBlockedUntil = now + this.sw.num('authCooldownMs', 60_000);
      this.auth.reset();
      return this.throttled();
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    let given: Record<string, unknown> = Object.fromEntries(url.searchParams);
    try {
      given = {
        ...given,
        ...(type === 'application/json' ? (JSON.parse(body || '{}') as Record<string, unknown>) : Object.fromEntries(new URLSearchParams(body))),
      };
    } catch {
      return json(400, { success: false, error: { code: 400, message: 'Malformed body' } });
    }
    const ttl = this.sw.num('tokenTtlSec', 86_400, 1) * 1000;
    const ok = sameSecret(given.client_id, CLIENT_ID) && sameSecret(given.client_secret, CLIENT_SECRET);
    if (!v1) {
      if (!ok || given.grant_type !== 'client_credentials') {
        this.core.counters.authFailures += 1;
        return json(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
      }
      return json(200, { access_token: this.v2Tokens.issue(ttl), token_type: 'Bearer', expires_in: ttl / 1000, scope: 'personio:persons:read' });
    }
    if (!ok) {
      this.core.counters.authFailures += 1;
      return json(Number(this.sw.oneOf('authFailStatus', ['401', '403', '200'], '401')), { success: false, error: { code: 0, message: 'Wrong credentials' } });
    }
    const token = this.v1Tokens.issue(ttl, 'papi-');
    return json(200, { success: true, data: { token } }, { authorization: `Bearer ${token}` });
  }

  private v1Route(path: string, url: URL): Reply {
    const one = /^\/v1\/company\/employees\/(\d+)$/.exec(path);
    if (one) {
      const i = indexOfPersonioId(Number(one[1]));
      if (i === undefined || !this.staff.isServed(i)) return json(404, { success: false, error: { code: 0, message: 'Employee not found' } });
      return json(200, { success: true, data: this.v1Of(i) });
    }
    if (path !== '/v1/company/employees') return json(404, { success: false, error: { code: 404, message: 'Not found' } });
    const num = (name: string, dflt: number) => {
      const raw = url.searchParams.get(name);
      return raw === null || raw === '' ? dflt : /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
    };
    const limit = num('limit', 50),
      offset = num('offset', 0);
    if (!(limit >= 1 && limit <= V1_MAX) || !Number.isFinite(offset))
      return json(400, { success: false, error: { code: 0, message: `limit must be 1..${V1_MAX}` } });
    let served = this.staff.served();
    const since = url.searchParams.get('updated_since');
    if (since !== null) {
      const at = Date.parse(/[zZ]|[+-]\d{2}:\d{2}$/.test(since) ? since : `${since}Z`);
      if (Number.isNaN(at)) return json(400, { success: false, error: { code: 0, message: 'updated_since is not a date' } });
      served = served.filter((i) => this.staff.modifiedAt(i) >= at);
      if (this.sw.oneOf('updatedSincePaging', ['ignored', 'honoured'], 'ignored') === 'ignored') {
        return json(200, {
          success: true,
          metadata: { total_elements: served.length, current_page: 0, total_pages: 1 },
          offset: 0,
          limit: served.length,
          data: served.map((i) => this.v1Of(i)),
        });
      }
    }
    const pages = this.sw.oneOf('offsetMeans', ['rows', 'pages'], 'rows') === 'pages';
    const start = pages ? offset * limit : offset;
    return json(200, {
      success: true,
      metadata: { total_elements: served.length, current_page: pages ? offset : Math.floor(offset / limit), total_pages: Math.ceil(served.length / limit) },
      offset,
      limit,
      data: served.slice(start, start + limit).map((i) => this.v1Of(i)),
    });
  }

  private v1Of(i: number) {
    return v1Employee(i, this.staff.employee(i), this.manager(i, 'v1'), this.shape, this.staff.modifiedAt(i));
  }

  private v2Route(path: string, url: URL): Reply {
    const person = /^\/v2\/persons\/(\d+)(\/employments)?$/.exec(path);
    if (person) {
      const i = indexOfPersonioId(Number(person[1]));
      if (i === undefined || !this.staff.isServed(i)) return json(404, { errors: [{ title: 'Not Found', detail: 'Person not found' }] });
      const e = this.staff.employee(i);
      if (!person[2]) return json(200, v2Person(i, e, this.shape, this.staff.modifiedAt(i)));
      return json(200, { _data: v2Employments(i, e, this.staff.modifiedAt(i)), _meta: { links: { self: { href: `${this.url}${path}` } } } });
    }
    const unit = /^\/v2\/org-units\/(\d+)$/.exec(path);
    if (unit) {
      const name = this.orgUnitName(Number(unit[1]));
      return name ? json(200, { id: unit[1], type: 'DEPARTMENT', name }) : json(404, { errors: [{ title: 'Not Found' }] });
    }
    if (path !== '/v2/persons') return json(404, { errors: [{ title: 'Not Found' }] });
    const limit = Number(url.searchParams.get('limit') ?? 10);
    if (!Number.isInteger(limit) || limit < 1 || limit > V2_MAX) return json(400, { errors: [{ title: 'Bad Request', detail: `limit must be 1..${V2_MAX}` }] });
    const after = Number(url.searchParams.get('cursor') ?? 0);
    const since = url.searchParams.get('updated_at.gt');
    const at = since === null ? -Infinity : Date.parse(since);
    if (Number.isNaN(at) || !Number.isInteger(after)) return json(400, { errors: [{ title: 'Bad Request' }] });
    const list = this.staff.served().filter((i) => personioId(i) > after && this.staff.modifiedAt(i) > at);
    const page = list.slice(0, limit);
    const next = new URLSearchParams({
      limit: String(limit),
      cursor: String(personioId(page[page.length - 1] ?? 0)),
      ...(since !== null ? { 'updated_at.gt': since } : {}),
    });
    return json(200, {
      _data: page.map((i) => v2Person(i, this.staff.employee(i), this.shape, this.staff.modifiedAt(i))),
      _meta: {
        links: {
          self: { href: `${this.url}${url.pathname}${url.search}` },
          ...(list.length > limit ? { next: { href: `${this.url}/v2/persons?${next.toString()}` } } : {}),
        },
      },
    });
  }

  /** The department or team whose id is `id` (`nameId` of its name), among the employees' units (built once). */
  private orgUnitName(id: number): string | undefined {
    if (!this.units) {
      this.units = new Map();
      for (const i of this.staff.served()) {
        const e = this.staff.employee(i);
        for (const name of [e.department, e.business_unit]) this.units.set(nameId(name), name);
      }
    }
    return this.units.get(id);
  }
}

/** Starts the Personio simulator. */
export const startPersonioSim: DialectSimFactory = (options) => new PersonioSim(options).start();
