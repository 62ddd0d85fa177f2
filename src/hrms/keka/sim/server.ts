/**
 * The Keka simulator (`hrx hrms-sim --dialect keka`; docs/hrms/connectors.md; the sources in src/hrms/keka/README.md).
 *
 * - `POST /connect/token` (form): `grant_type=kekaapi`, `scope=kekaapi`, `client_id`,
 *   `client_secret`, `api_key` → `{access_token, expires_in, token_type: "Bearer"}`; wrong
 *   credentials 400 `{"error": "invalid_client"}` (IdentityServer style, I).
 * - `GET /api/v1/hris/employees?pageNumber&pageSize&employmentStatus&lastModified&employeeNumbers&employeeIds`
 *   with `Authorization: Bearer`: Keka's paged envelope, `nextPage` an absolute URL or null,
 *   `totalRecords`/`totalPages`; `pageSize` default 100, max 200; `employmentStatus` a comma list
 *   of `Working`, `Relieved`; `lastModified` = changed at or after. `GET /api/v1/hris/employees/{id}` one.
 *   A missing or expired token: 401. No `User-Agent`: 403 HTML (Keka asks clients to send one).
 * - Payroll (sim/payroll.ts): `GET /api/v1/payroll/paygroups`, `…/paygroups/{id}/paycycles`
 *   (`runStatus` a comma list of `Pending`, `Finalized`, `Partial`) and
 *   `…/paycycles/{id}/payregister`, each Keka's paged envelope (sim/paging.ts); an unknown pay
 *   group or cycle 404. Switches `payGroups`, `payHistoryMonths`, `cycleOrder`, `cycleMonthName`.
 * - Throttling: more than `limit` (50) data requests in a fixed `windowMs` (60 s) window → 429
 *   with `rateLimitExceeded`, `Retry-After` only with the `retryAfter` variant.
 *
 * Answers follow Keka's published description (keka/openapi/rules.yaml); the research's other
 * shapes stay switches. Variants: `windowMs`, `limit`, `retryAfter` (false), `tokenTtlSec`
 * (86400), `dateFormat` (`isoZ` default, the description's date-time; `iso` | `istInstant` |
 * `date`), `zeroDates` (false; true: empty dates as `0001-01-01T00:00:00`), `listsRelievedByDefault` (true: the unfiltered listing includes
 * relieved employees), `pageSizeOver200` (`clamp` | `error`), `nextPage` (`absolute` |
 * `relative` | `absent`), `labels` (JSON: the tenant's enumeration codes), `hrxKnowsLabels`
 * (false: `expected()` as hrx stores it without `enumLabels`; true: with the matching tables),
 * `removeAs` (`delete` | `exit`), `requireUserAgent` (true).
 */
import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeCode, type NativeEmployee } from '../../sim/data';
import type { DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { bearerToken, credentialsOk, DialectSimBase, formParams, json, Reply, tokenOk, Variants, type SimSetup } from '../../sim/kit';
import type { PayMonthEntry } from '../../connector';
import { KekaSimPayroll } from './payroll';
import { pagedReply, pageOf, type KekaPaging } from './paging';
import { hrxLabelsFor, KEKA_DATE_FORMATS, kekaTruth, renderKekaEmployee, simLabels, uuidOf, type KekaRenderOptions, type KekaSimLabels } from './render';

/** What hrx knows of Keka's codes without `enumLabels`: nothing (Keka's description names none of its numbers). */
const HRX_DEFAULT_KNOWN = {};
const LIST_PATH = '/api/v1/hris/employees';
/** `/payroll/paygroups` (K:1262), `…/{payGroupId}/paycycles` (K:1305), `…/{payCycleId}/payregister` (K:1364). */
const PAYROLL_ROUTE = /^\/api\/v1\/payroll\/paygroups(?:\/([^/]+)\/paycycles(?:\/([^/]+)\/payregister)?)?$/;

/** A running Keka simulator. */
export class KekaSim extends DialectSimBase {
  readonly hrmsId = 'keka';
  private readonly creds = {
    clientId: `keka-${randomBytes(6).toString('hex')}`,
    secret: randomBytes(18).toString('base64url'),
    apiKey: randomBytes(24).toString('base64'),
  };
  private readonly render: KekaRenderOptions;
  private readonly labelTable: KekaSimLabels;
  private fixed = { start: 0, count: 0 };
  private uuidIndex: Map<string, number> | undefined;
  private readonly pay: KekaSimPayroll;
  /** Employees as the payroll last saw them, by index, with the modification time they were read at (a register reads every employee). */
  private readonly payStaff = new Map<number, { at: number; e: NativeEmployee }>();

  constructor(opts: DialectSimOptions) {
    const v = new Variants(opts.variants);
    super(opts, { requests: v.num('limit', 50, 1), windowMs: v.num('windowMs', 60_000, 1) });
    this.labelTable = simLabels(this.variants.text('labels'));
    this.render = {
      seed: opts.seed,
      labels: this.labelTable,
      // Keka's description: `format: date-time` (RFC 3339, with an offset) and nullable dates.
      dateFormat: this.variants.oneOf('dateFormat', KEKA_DATE_FORMATS, 'isoZ'),
      zeroDates: this.variants.bool('zeroDates', false),
    };
    // Read every other switch now, so a bad one fails at start.
    for (const [name, dflt] of [
      ['retryAfter', false],
      ['listsRelievedByDefault', true],
      ['hrxKnowsLabels', false],
      ['requireUserAgent', true],
    ] as const)
      this.variants.bool(name, dflt);
    this.variants.oneOf('pageSizeOver200', ['clamp', 'error'], 'clamp');
    this.variants.oneOf('nextPage', ['absolute', 'relative', 'absent'], 'absolute');
    this.variants.num('tokenTtlSec', 86_400, 1);
    this.pay = new KekaSimPayroll(opts.seed, this.variants, this.labelTable);
  }

  setup(): SimSetup {
    return this.setupWith({ grant_type: 'kekaapi', client_id: this.creds.clientId, client_secret: this.creds.secret, api_key: this.creds.apiKey });
  }

  wrongSetup(): SimSetup {
    return this.setupWith({ grant_type: 'kekaapi', client_id: this.creds.clientId, client_secret: `${this.creds.secret}x`, api_key: this.creds.apiKey });
  }

  /** The connector `enumLabels` matching this tenant's codes (what an operator configures after checking it). */
  hrxLabels(): Record<string, Record<string, string>> {
    return hrxLabelsFor(this.labelTable);
  }

  expected(): PartialEmployeeRecord[] {
    const known = this.variants.bool('hrxKnowsLabels', false) ? this.hrxLabels() : HRX_DEFAULT_KNOWN;
    return this.book.served().map((i) => kekaTruth(i, this.book.employee(i), this.render, known));
  }

  protected async route(req: IncomingMessage, url: URL): Promise<Reply> {
    const path = url.pathname.replace(/\/+$/, '');
    if (path === '/connect/token') {
      if (req.method !== 'POST') throw json(405, { error: 'invalid_request' });
      return this.token(await formParams(req, url));
    }
    const one = /^\/api\/v1\/hris\/employees\/([^/]+)$/.exec(path);
    const pay = PAYROLL_ROUTE.exec(path);
    if (path !== LIST_PATH && !one && !pay) throw json(404, { succeeded: false, message: 'Not found' });
    if (req.method !== 'GET') throw json(405, { succeeded: false, message: 'Method not allowed' });
    if (this.variants.bool('requireUserAgent', true) && !req.headers['user-agent']) {
      throw new Reply(403, '<html><body>Access denied</body></html>', { 'content-type': 'text/html' });
    }
    this.core.window.hit();
    this.throttleCheck();
    const fault = await this.core.roll();
    if (fault === 'throttle') this.throttled(this.limit.windowMs);
    if (fault === '5xx') throw json(this.core.failureStatus(), { succeeded: false, message: 'Internal server error' });
    if (!tokenOk(this.core, this.tokens, bearerToken(req.headers.authorization))) {
      throw new Reply(401, '', { 'www-authenticate': 'Bearer error="invalid_token"' });
    }
    if (pay) return this.payroll(pay, url, req.headers.host);
    return one ? this.single(decodeURIComponent(one[1]!)) : this.list(url, req.headers.host);
  }

  /** Pay history ground truth: the pay months hrx must read with `months` (sim/payroll.ts). */
  expectedPayMonths(months: number): PayMonthEntry[] {
    return this.pay.expected(this.book.served(), (i) => this.payEmployee(i), months);
  }

  /** `book.employee(i)`, generated again only after the employee changed. */
  private payEmployee(i: number): NativeEmployee {
    const at = this.book.modifiedAt(i);
    let hit = this.payStaff.get(i);
    if (hit?.at !== at) this.payStaff.set(i, (hit = { at, e: this.book.employee(i) }));
    return hit.e;
  }

  /** The payroll lists (sim/payroll.ts): pay groups, a group's pay cycles (`runStatus` filter), a cycle's pay register. */
  private payroll(m: RegExpExecArray, url: URL, host: string | undefined): Reply {
    const q = url.searchParams;
    const paging = this.paging(url.pathname, host);
    if (m[1] === undefined) return pagedReply(q, paging, this.pay.payGroups(), (g) => g);
    const g = Array.from({ length: this.pay.groups }, (_, k) => k).find((k) => this.pay.groupId(k) === decodeURIComponent(m[1]!));
    if (g === undefined) throw json(404, { succeeded: false, message: 'Pay group not found', data: null });
    const cycles = this.pay.cycles(g);
    if (m[2] === undefined) {
      const wanted = (q.get('runStatus') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (wanted.some((s) => !['Pending', 'Finalized', 'Partial'].includes(s))) this.bad('runStatus must be Pending, Finalized or Partial');
      const listed = wanted.length ? cycles.filter((c) => wanted.includes(c.status)) : cycles;
      return pagedReply(q, paging, listed, (c) => this.pay.renderCycle(c));
    }
    const cycle = cycles.find((c) => c.id === decodeURIComponent(m[2]!));
    if (!cycle) throw json(404, { succeeded: false, message: 'Pay cycle not found', data: null });
    const rows = cycle.status === 'Pending' ? [] : this.book.served().filter((i) => this.pay.paid(i, this.payEmployee(i), cycle));
    return pagedReply(q, paging, rows, (i) => this.pay.renderRow(i, this.payEmployee(i), cycle));
  }

  private token(form: URLSearchParams): Reply {
    this.core.counters.tokenRequests++;
    if (form.get('grant_type') !== 'kekaapi') throw json(400, { error: 'unsupported_grant_type' });
    if (!(form.get('scope') ?? '').split(' ').includes('kekaapi')) throw json(400, { error: 'invalid_scope' });
    if (!credentialsOk(this.core, form, { client_id: this.creds.clientId, client_secret: this.creds.secret, api_key: this.creds.apiKey })) {
      throw json(400, { error: 'invalid_client' });
    }
    const ttl = this.variants.num('tokenTtlSec', 86_400, 1);
    return json(200, { access_token: this.tokens.issue(ttl * 1000), expires_in: ttl, token_type: 'Bearer', scope: 'kekaapi' }, { 'cache-control': 'no-store' });
  }

  /** Keka's fixed windows: `limit` requests, refilled every `windowMs`. */
  private throttleCheck(): void {
    if (!this.core.throttle) return;
    const now = Date.now();
    if (now - this.fixed.start >= this.limit.windowMs) this.fixed = { start: now, count: 0 };
    this.fixed.count++;
    if (this.fixed.count > this.limit.requests) this.throttled(this.fixed.start + this.limit.windowMs - now);
  }

  private throttled(waitMs: number): never {
    const headers: Record<string, string> = this.variants.bool('retryAfter', false) ? { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) } : {};
    throw this.core.throttled(
      json(429, { succeeded: false, message: 'Rate limit exceeded', errors: ['rateLimitExceeded'], reason: 'rateLimitExceeded' }, headers),
    );
  }

  private bad(message: string): never {
    throw json(400, { succeeded: false, message, errors: [message], data: null });
  }

  private single(id: string): Reply {
    this.uuidIndex ??= new Map(this.book.served().map((i) => [uuidOf(this.render.seed, employeeCode(i)), i]));
    const i = this.uuidIndex.get(id);
    if (i === undefined || !this.book.served().includes(i)) throw json(404, { succeeded: false, message: 'Employee not found', data: null });
    return json(200, { succeeded: true, message: '', errors: [], data: renderKekaEmployee(i, this.book.employee(i), this.render) });
  }

  /** One page of the list; its page links are absolute on the host the client asked (`Host`), as Keka's are on its own. */
  private list(url: URL, host: string | undefined): Reply {
    const q = url.searchParams;
    const paging = this.paging(LIST_PATH, host);
    pageOf(q, paging);
    const statuses = (q.get('employmentStatus') ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    if (statuses.some((s) => s !== 'working' && s !== 'relieved')) this.bad('employmentStatus must be Working or Relieved');
    const wantWorking = statuses.length ? statuses.includes('working') : true;
    const wantRelieved = statuses.length ? statuses.includes('relieved') : this.variants.bool('listsRelievedByDefault', true);
    const lastModifiedRaw = q.get('lastModified');
    const since = lastModifiedRaw ? Date.parse(lastModifiedRaw) : undefined;
    if (since !== undefined && Number.isNaN(since)) this.bad('lastModified must be an ISO 8601 date-time');
    const numbers = q
      .get('employeeNumbers')
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const ids = q
      .get('employeeIds')
      ?.split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);

    const matching = this.book.served().filter((i) => {
      const working = this.book.working(i);
      if (working ? !wantWorking : !wantRelieved) return false;
      if (since !== undefined && this.book.modifiedAt(i) < since) return false;
      if (numbers && !numbers.includes(employeeCode(i))) return false;
      return !ids || ids.includes(uuidOf(this.render.seed, employeeCode(i)));
    });
    return pagedReply(q, paging, matching, (i) => renderKekaEmployee(i, this.book.employee(i), this.render));
  }

  /** How a list at `path` is paged (sim/paging.ts). */
  private paging(path: string, host: string | undefined): KekaPaging {
    return { path, simUrl: this.url, host, variants: this.variants, bad: (m) => this.bad(m) };
  }
}

/** Starts a Keka simulator (`DIALECT_SIMS`). */
export const startKekaSim: DialectSimFactory = (opts) => new KekaSim(opts).listen(opts.host, opts.port);
