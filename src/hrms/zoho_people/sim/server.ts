/**
 * The Zoho People simulator (`hrx hrms-sim --dialect zoho_people`; docs/hrms/connectors.md; the sources in
 * src/hrms/zoho_people/README.md). One server plays both Zoho Accounts and Zoho People.
 *
 * - `POST /oauth/v2/token` (form or query): `grant_type=refresh_token&client_id&client_secret&refresh_token`
 *   → `{access_token, expires_in: 3600, api_domain, token_type}`; a wrong client
 *   `{"error": "invalid_client"}`, a wrong refresh token `{"error": "invalid_code"}`; more than
 *   10 tokens per refresh token in 10 minutes: 400 `{"error": "Access Denied", …"too many requests"…}`.
 * - `GET /people/api/forms/employee/getRecords?sIndex&limit[&modifiedtime][&SearchColumn&SearchValue]`
 *   (also `/api/forms/…`, form `P_Employee`) with `Authorization: Zoho-oauthtoken`: the
 *   record-id-keyed envelope; `sIndex` 1-based; `limit` over 200 → error 7021; unknown form → 7011;
 *   `modifiedtime` in epoch ms = records added or modified after it. Errors are
 *   `{"response": {"errors": {code, message}, "status": 1, …}}`.
 * - Throttling: more than `limit` (400) requests within `windowMs` (60 s) → error 7209, and every
 *   request is refused with 7209 for `lockoutMs` (5 minutes; the `throttleLockoutMs` fault
 *   shortens it). The `rateThrottle` fault starts such a lock-out too.
 *
 * Variants (research `?` made switches): `windowMs`, `limit`, `lockoutMs`, `errorStatus` (200:
 * HTTP status of body errors), `lockStatus` (that of 7209; default `errorStatus`), `tokenTtlSec`
 * (3600), `tokenLimit` (10) and `tokenWindowMs` (600000), `tokenErrorStatus` (200 | 400),
 * `invalidTokenStatus` (401 | 200, body error 7218 either way), `afterLast` (`error7024` |
 * `empty` | `missing`: the answer past the last record), `modifiedtime` (`ms` | `date`:
 * `dd-MMM-yyyy`, the value client code sends), `dateFormat` (`dd-MMM-yyyy` | `yyyy-MM-dd` |
 * `dd/MM/yyyy`), `recordShape` (`keyed` | `keyedObject` | `flat`), `customPan` (true),
 * `listsInactive` (true: exited employees stay listed), `removeAs` (`delete` | `exit`).
 */
import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeCode } from '../../sim/data';
import type { DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { bearerToken, credentialsOk, DialectSimBase, formParams, json, tokenOk, Variants, type Reply, type SimSetup } from '../../sim/kit';
import { recordIdOf, renderZohoFields, ZOHO_DATE_FORMATS, zohoTruth, type ZohoRenderOptions } from './render';

const RECORDS = /^(?:\/people)?\/api\/forms\/([^/]+)\/getRecords$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A running Zoho People simulator. */
export class ZohoPeopleSim extends DialectSimBase {
  readonly hrmsId = 'zoho_people';
  private readonly creds = {
    clientId: `1000.${randomBytes(15).toString('hex').toUpperCase()}`,
    secret: randomBytes(21).toString('hex'),
    refresh: `1000.${randomBytes(16).toString('hex')}.${randomBytes(16).toString('hex')}`,
  };
  private readonly render: ZohoRenderOptions;
  /** When tokens were issued (the 10-per-10-minutes allowance). */
  private issued: number[] = [];
  private lockedUntil = 0;

  constructor(opts: DialectSimOptions) {
    const v = new Variants(opts.variants);
    super(opts, { requests: v.num('limit', 400, 1), windowMs: v.num('windowMs', 60_000, 1) });
    this.render = { dateFormat: this.variants.oneOf('dateFormat', ZOHO_DATE_FORMATS, 'dd-MMM-yyyy'), customPan: this.variants.bool('customPan', true) };
    this.variants.num('tokenWindowMs', 600_000, 1);
    // Read every other switch now, so a bad one fails at start.
    this.variants.num('lockoutMs', 300_000, 0);
    this.variants.num('tokenTtlSec', 3600, 1);
    this.variants.num('tokenLimit', 10, 1);
    this.status('errorStatus');
    this.status('lockStatus');
    this.status('tokenErrorStatus');
    this.status('invalidTokenStatus');
    this.variants.oneOf('afterLast', ['error7024', 'empty', 'missing'], 'error7024');
    this.variants.oneOf('modifiedtime', ['ms', 'date'], 'ms');
    this.variants.oneOf('recordShape', ['keyed', 'keyedObject', 'flat'], 'keyed');
    this.variants.bool('listsInactive', true);
  }

  /** The HTTP status a switch sets (each has its own default). */
  private status(name: 'errorStatus' | 'lockStatus' | 'tokenErrorStatus' | 'invalidTokenStatus'): number {
    const dflt = name === 'invalidTokenStatus' ? 401 : name === 'lockStatus' ? this.status('errorStatus') : 200;
    const s = this.variants.num(name, dflt, 200);
    if (!Number.isInteger(s) || s > 599) throw new RangeError(`variant ${name} must be an HTTP status`);
    return s;
  }

  setup(): SimSetup {
    return this.setupWith({ grant_type: 'refresh_token', client_id: this.creds.clientId, client_secret: this.creds.secret, api_key: this.creds.refresh });
  }

  wrongSetup(): SimSetup {
    return this.setupWith({ grant_type: 'refresh_token', client_id: this.creds.clientId, client_secret: this.creds.secret, api_key: `${this.creds.refresh}0` });
  }

  private listed(): number[] {
    const all = this.variants.bool('listsInactive', true);
    return this.book.served().filter((i) => all || this.book.working(i));
  }

  expected(): PartialEmployeeRecord[] {
    return this.listed().map((i) => zohoTruth(i, this.book.employee(i), this.render));
  }

  protected async route(req: IncomingMessage, url: URL): Promise<Reply> {
    const path = url.pathname.replace(/\/+$/, '');
    if (path === '/oauth/v2/token') {
      if (req.method !== 'POST') throw json(405, { error: 'invalid_request' });
      return this.token(await formParams(req, url));
    }
    const form = RECORDS.exec(path);
    if (!form) throw json(404, { response: { message: 'Error occurred', uri: path, errors: { code: 7005, message: 'URL not found' }, status: 1 } });
    if (req.method !== 'GET') throw json(405, { response: { message: 'Error occurred', status: 1 } });
    const now = Date.now();
    const inWindow = this.core.window.hit();
    if (now < this.lockedUntil) this.locked(path);
    if (this.core.throttle && inWindow > this.limit.requests) this.lock(path);
    const fault = await this.core.roll();
    if (fault === 'throttle') this.lock(path);
    if (fault === '5xx') throw json(this.core.failureStatus(), { response: { message: 'Internal error', status: 1 } });
    if (!tokenOk(this.core, this.tokens, bearerToken(req.headers.authorization, 'Zoho-oauthtoken'))) {
      throw this.error(path, 7218, 'Invalid OAuthtoken', this.status('invalidTokenStatus'));
    }
    if (form[1] !== 'employee' && form[1] !== 'P_Employee') throw this.error(path, 7011, `Form name '${form[1]}' is invalid`);
    return this.records(path, url.searchParams);
  }

  private error(uri: string, code: number, message: string, status = this.status('errorStatus')): Reply {
    return json(status, { response: { message: 'Error occurred', uri, errors: { code, message }, status: 1 } });
  }

  /** Starts a lock-out (the `throttleLockoutMs` fault, else the `lockoutMs` variant) and answers 7209. */
  private lock(uri: string): never {
    this.lockedUntil = Date.now() + (this.core.faults.throttleLockoutMs ?? this.variants.num('lockoutMs', 300_000, 0));
    this.locked(uri);
  }

  private locked(uri: string): never {
    throw this.core.throttled(this.error(uri, 7209, 'API access blocked since threshold limit exceeded', this.status('lockStatus')));
  }

  private token(form: URLSearchParams): Reply {
    this.core.counters.tokenRequests++;
    const fail = (error: string, status = this.status('tokenErrorStatus')): never => {
      throw json(status, { error });
    };
    if (form.get('grant_type') !== 'refresh_token') fail('unsupported_grant_type');
    if (!credentialsOk(this.core, form, { client_id: this.creds.clientId, client_secret: this.creds.secret })) fail('invalid_client');
    if (!credentialsOk(this.core, form, { refresh_token: this.creds.refresh })) fail('invalid_code');
    const now = Date.now();
    this.issued = this.issued.filter((t) => t > now - this.variants.num('tokenWindowMs', 600_000, 1));
    if (this.issued.length >= this.variants.num('tokenLimit', 10, 1)) {
      throw json(400, {
        error: 'Access Denied',
        error_description: 'You have made too many requests continuously. Please try again after some time.',
        status: 'failure',
      });
    }
    this.issued.push(now);
    const ttl = this.variants.num('tokenTtlSec', 3600, 1);
    return json(200, {
      access_token: this.tokens.issue(ttl * 1000),
      scope: 'ZOHOPEOPLE.forms.READ',
      api_domain: 'https://www.zohoapis.in',
      token_type: 'Bearer',
      expires_in: ttl,
    });
  }

  /** `modifiedtime` as the switch says Zoho reads it; `undefined` when absent; throws 7042 when malformed. */
  private since(uri: string, raw: string | null): number | undefined {
    if (raw === null || raw === '') return undefined;
    if (this.variants.oneOf('modifiedtime', ['ms', 'date'], 'ms') === 'ms') {
      if (!/^\d{1,15}$/.test(raw)) throw this.error(uri, 7042, 'Specified search value is invalid');
      return Number(raw);
    }
    const m = /^(\d{2})-([A-Za-z]{3})-(\d{4})$/.exec(raw);
    const month = m ? MONTHS.indexOf(m[2]!.toLowerCase()) : -1;
    if (!m || month < 0) throw this.error(uri, 7042, 'Specified search value is invalid');
    return Date.UTC(Number(m[3]), month, Number(m[1])) - 330 * 60_000;
  }

  private records(uri: string, q: URLSearchParams): Reply {
    const param = (name: string): string | null => q.get(name) ?? q.get(name[0]!.toLowerCase() + name.slice(1));
    const int = (name: string, dflt: number): number => {
      const raw = param(name);
      if (raw === null || raw === '') return dflt;
      if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw this.error(uri, 7042, `${name} is invalid`);
      return Number(raw);
    };
    const sIndex = int('sIndex', 1),
      limit = int('limit', 200);
    if (limit > 200) throw this.error(uri, 7021, 'Maximum record limit 200 is exceeded');
    const since = this.since(uri, param('modifiedtime'));
    const column = param('SearchColumn')?.toUpperCase(),
      value = param('SearchValue');
    if (column !== undefined && column !== 'EMPLOYEEID' && column !== 'EMPLOYEEMAILALIAS') throw this.error(uri, 7042, 'Specified search column is invalid');
    const matching = this.listed().filter(
      (i) =>
        (since === undefined || this.book.modifiedAt(i) > since) &&
        (column === undefined || (column === 'EMPLOYEEID' ? employeeCode(i) === value : this.book.employee(i).official_email === value?.toLowerCase())),
    );
    const page = matching.slice(sIndex - 1, sIndex - 1 + limit);
    if (page.length === 0) {
      const after = this.variants.oneOf('afterLast', ['error7024', 'empty', 'missing'], 'error7024');
      if (after === 'error7024') throw this.error(uri, 7024, 'No records found');
      return json(200, { response: { ...(after === 'empty' ? { result: [] } : {}), message: 'Data fetched successfully', uri, status: 0 } });
    }
    const shape = this.variants.oneOf('recordShape', ['keyed', 'keyedObject', 'flat'], 'keyed');
    const result = page.map((i) => {
      const fields = renderZohoFields(i, this.book.employee(i), this.book.modifiedAt(i), this.render);
      return shape === 'flat' ? fields : { [recordIdOf(i)]: shape === 'keyed' ? [fields] : fields };
    });
    return json(200, { response: { result, message: 'Data fetched successfully', uri, status: 0 } });
  }
}

/** Starts a Zoho People simulator (`DIALECT_SIMS`). */
export const startZohoPeopleSim: DialectSimFactory = (opts) => new ZohoPeopleSim(opts).listen(opts.host, opts.port);
