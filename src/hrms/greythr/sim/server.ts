/**
 * The greytHR simulator (`hrx hrms-sim --dialect greythr`; the sources in src/hrms/greythr/README.md).
 * Two hosts, as greytHR has: the tenant host answers the token request
 * (`POST /uas/v1/oauth2/client-token`, HTTP Basic with the API user and its password), the API
 * host the data (`ACCESS-TOKEN` and `x-greythr-domain` headers on every call). A missing, wrong or
 * expired token gets **200 text/html** (the login page), a wrong domain a 4xx. List endpoints page
 * with `page`/`size` (at most 200) in `{data, pages: {hasNext}}`, some from page 0 and some from 1;
 * lookups `POST /hr/v2/lov` and `GET /hr/v2/categories` resolve numeric ids. Over the limit (greytHR
 * publishes none: `limitPerMinute`, default hrx's budget) it answers 429, with `Retry-After` when
 * `retryAfterSec` is set.
 *
 * Switches (`variants`): `dateFormat` iso|dmy|dmon, `gender` word|letter, `idKeys` long|short|none,
 * `ifscKey` branchCode|ifscCode, `lovIds`, `categoryDescs`, `sparse`, `addresses` (the address
 * endpoint exists), `lovEndpoint`, `oneBased` (comma list of sections starting at page 1; default
 * `employees,personal,bank,separation,addresses`), `pageZero` alias|error (a page-1 section asked
 * for page 0), `order` asc|desc (of the sections other than `employees`), `lovShape` keys|list|map,
 * `badCredentials` 401|400|html, `wrongDomainStatus`, `retryAfterSec`, `limitPerMinute`, `tokenTtlSec`.
 */
import type { IncomingMessage } from 'node:http';
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeCode, employeeIndex, type NativeEmployee } from '../../sim/data';
import type { DialectSim, DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { basicOk, CoreBacked, json, readBody, Reply, SimCore, Staff, tokenOk, Tokens, Variants } from '../../sim/kit';
import {
  CATEGORIES,
  categoryValues,
  expectedRecord,
  greythrId,
  indexOfGreythrId,
  LOVS,
  SECTION_PATHS,
  SECTIONS,
  sectionRecord,
  valueId,
  type GreythrShape,
  type Section,
} from './render';

const API_USER = 'hrx-api-user';
const PASSWORD = 'greythr-sim-Pa55-wd';
const MAX_SIZE = 200;
const LOGIN_PAGE =
  '<!DOCTYPE html><html><head><title>greytHR | Login</title></head><body><form action="/uas/portal/auth/login" method="post">' +
  '<input name="username"><input name="password" type="password"></form></body></html>';

const TOO_LARGE = json(413, { error: 'body too large' });
const login = (): Reply => new Reply(200, LOGIN_PAGE, { 'content-type': 'text/html; charset=UTF-8' });

class GreythrSim extends CoreBacked implements DialectSim {
  readonly hrmsId = 'greythr';
  url = '';
  private apiUrl = '';
  private domain = '';
  private readonly staff: Staff;
  private readonly shape: GreythrShape;
  private readonly sw: Variants;
  private readonly tokens = new Tokens();
  protected readonly core: SimCore;
  private readonly oneBased: ReadonlySet<string>;
  /** Which indices each section lists (sparse sections skip some), in listing order; rebuilt after a deletion. */
  private listing: Map<Section, number[]> | undefined;
  /** Recently generated employees (sections ask for the same ones page after page). */
  private readonly recent = new Map<number, NativeEmployee>();

  constructor(private readonly opts: DialectSimOptions) {
    super();
    this.sw = new Variants(opts.variants);
    const sw = this.sw;
    this.staff = new Staff(opts.seed, opts.employees);
    this.shape = {
      dateFormat: sw.oneOf('dateFormat', ['iso', 'dmy', 'dmon'], 'iso'),
      gender: sw.oneOf('gender', ['word', 'letter'], 'word'),
      idKeys: sw.oneOf('idKeys', ['long', 'short', 'none'], 'long'),
      ifscKey: sw.oneOf('ifscKey', ['branchCode', 'ifscCode'], 'branchCode'),
      lovIds: sw.bool('lovIds', true),
      categoryDescs: sw.bool('categoryDescs', true),
      sparse: sw.bool('sparse', true),
    };
    const oneBased = String(opts.variants?.oneBased ?? 'employees,personal,bank,separation,addresses')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const s of oneBased) if (!(SECTIONS as readonly string[]).includes(s)) throw new RangeError(`variant oneBased: unknown section ${s}`);
    this.oneBased = new Set(oneBased);
    this.core = new SimCore(opts, { requests: sw.num('limitPerMinute', 240, 1), windowMs: 60_000 }, [this.tokens]);
    sw.oneOf('pageZero', ['alias', 'error'], 'alias');
    sw.oneOf('order', ['asc', 'desc'], 'asc');
    sw.oneOf('lovShape', ['keys', 'list', 'map'], 'keys');
    sw.oneOf('badCredentials', ['401', '400', 'html'], '401');
  }

  /** Listens as the tenant host (the options' port) and the API host (a free port). */
  async start(): Promise<this> {
    const fallback = json(500, { message: 'Internal Server Error' });
    const tenant = await this.core.listen((req, url) => this.tokenRoute(req, url, this.core.window.hit()), fallback);
    const api = await this.core.listen((req, url) => this.apiRoute(req, url, this.core.window.hit()), fallback, { host: this.opts.host });
    this.url = tenant.url;
    this.apiUrl = api.url;
    this.domain = new URL(tenant.url).host;
    return this;
  }

  private creds(password: string) {
    return {
      hrms_id: this.hrmsId,
      access_credentials: { hrms_host: this.url, grant_type: 'client_credentials', client_id: API_USER, client_secret: password },
      api_configs: [{ api_id: 'api', access_credentials: { hrms_host: this.apiUrl, grant_type: 'client_credentials' } }],
    };
  }
  setup() {
    return this.creds(PASSWORD);
  }
  wrongSetup() {
    return this.creds(`${PASSWORD}-wrong`);
  }

  private employee(i: number): NativeEmployee {
    let e = this.recent.get(i);
    if (!e) {
      e = this.staff.employee(i);
      if (this.recent.size >= 4000) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(i, e);
    }
    return e;
  }

  expected(): PartialEmployeeRecord[] {
    const addresses = this.sw.bool('addresses', true),
      lovEndpoint = this.sw.bool('lovEndpoint', true) || !this.shape.lovIds;
    return this.staff.served().map((i) => {
      const r = expectedRecord(i, this.staff.employee(i), this.shape);
      if (!addresses) {
        delete r.currentAddress;
        delete r.permanentAddress;
      }
      // Without the lists of values, numbers stay untranslated: empty (docs/hrms/connectors.md).
      if (!lovEndpoint) {
        delete r.maritalStatus;
        delete r.bloodGroup;
        delete r.nationality;
        if (r.bankDetails) delete r.bankDetails.bankName;
        if (r.status === 'Terminated') r.status = 'Inactive';
      }
      return r;
    });
  }

  employeeIds(): string[] {
    return this.staff.served().map(employeeCode);
  }
  change(employeeId: string): void {
    this.staff.change(employeeId);
    this.recent.delete(employeeIndex(employeeId)!);
  }
  /** greytHR lists no removals (no change feed): the employee is deleted and found gone by the next full sync. */
  remove(employeeId: string): void {
    this.staff.remove(employeeId);
    this.listing = undefined;
  }

  private overLimit(inWindow: number): Reply | undefined {
    if (!this.core.throttle || inWindow <= this.core.limit.requests) return undefined;
    return this.throttled();
  }

  private throttled(): Reply {
    const after = this.sw.num('retryAfterSec', 0);
    return this.core.throttled(json(429, { status: 429, message: 'Too Many Requests' }, after > 0 ? { 'retry-after': String(after) } : {}));
  }

  /** `POST /uas/v1/oauth2/client-token` with HTTP Basic (API user and password). */
  private async tokenRoute(req: IncomingMessage, url: URL, inWindow: number): Promise<Reply> {
    if (url.pathname !== '/uas/v1/oauth2/client-token') return new Reply(404, '<html><body>Not Found</body></html>', { 'content-type': 'text/html' });
    if (req.method !== 'POST') return json(405, { message: 'Method Not Allowed' });
    this.core.counters.tokenRequests += 1;
    if ((await readBody(req)) === null) return TOO_LARGE;
    const limited = this.overLimit(inWindow);
    if (limited) return limited;
    if (!basicOk(this.core, req.headers.authorization, API_USER, PASSWORD)) {
      const how = this.sw.oneOf('badCredentials', ['401', '400', 'html'], '401');
      if (how === 'html') return login();
      return json(Number(how), { error: 'invalid_client', error_description: 'Bad credentials' });
    }
    const ttlSec = this.sw.num('tokenTtlSec', 45 * 86_400, 1);
    return json(200, { access_token: this.tokens.issue(ttlSec * 1000), token_type: 'bearer', expires_in: ttlSec, scope: 'api' });
  }

  private async apiRoute(req: IncomingMessage, url: URL, inWindow: number): Promise<Reply> {
    const body = req.method === 'POST' ? await readBody(req) : '';
    if (body === null) return TOO_LARGE;
    const stop = await this.core.gate(
      inWindow,
      () => this.throttled(),
      () => json(503, { status: 503, message: 'Service Unavailable' }),
    );
    if (stop) return stop;
    const token = req.headers['access-token'];
    if (!tokenOk(this.core, this.tokens, typeof token === 'string' ? token : undefined)) return login();
    if (req.headers['x-greythr-domain'] !== this.domain) return json(this.sw.num('wrongDomainStatus', 400, 400), { status: 400, message: 'Invalid domain' });
    const path = url.pathname.replace(/\/+$/, '');
    if (path === '/hr/v2/lov' && req.method === 'POST') return this.lov(body);
    if (req.method !== 'GET') return json(405, { message: 'Method Not Allowed' });
    if (path === '/hr/v2/categories') return this.categories();
    if (path === '/employee/v2/employees/lookup') return this.lookup(url.searchParams.get('q'));
    for (const s of SECTIONS) if (path === `/employee/v2/employees${SECTION_PATHS[s]}`) return this.page(s, url);
    const one = /^\/employee\/v2\/employees\/(\d+)(\/.*)?$/.exec(path);
    const section = one && SECTIONS.find((s) => SECTION_PATHS[s] === (one[2] ?? ''));
    if (one && section) return this.single(section, Number(one[1]));
    return json(404, { status: 404, message: 'Not Found' });
  }

  /**
   * What a full listing reads now: the records each section lists (sparse sections skip some), the
   * 1-based sections, and whether category entries lack their descriptions (the connector then
   * asks `/hr/v2/categories`).
   */
  listingShape(): GreythrListing {
    return {
      sizes: new Map(SECTIONS.map((s) => [s, s === 'addresses' && !this.sw.bool('addresses', true) ? 0 : this.listed(s).length])),
      oneBased: SECTIONS.filter((s) => this.oneBased.has(s)),
      categoriesWithoutDescs: !this.shape.categoryDescs,
    };
  }

  /** Which indices section `s` lists, in its order. */
  private listed(s: Section): number[] {
    if (!this.listing) {
      const served = this.staff.served();
      const has = new Map<Section, number[]>(SECTIONS.map((x) => [x, []]));
      for (const i of served) {
        const e = this.employee(i);
        for (const x of SECTIONS) if (sectionRecord(x, i, e, this.shape, 0) !== null) has.get(x)!.push(i);
      }
      if (this.sw.oneOf('order', ['asc', 'desc'], 'asc') === 'desc') for (const x of SECTIONS) if (x !== 'employees') has.get(x)!.reverse();
      this.listing = has;
    }
    return this.listing.get(s)!;
  }

  private page(s: Section, url: URL): Reply {
    if (s === 'addresses' && !this.sw.bool('addresses', true)) return json(404, { status: 404, message: 'Not Found' });
    const int = (name: string, dflt: number): number => {
      const raw = url.searchParams.get(name);
      return raw === null || raw === '' ? dflt : /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
    };
    const size = int('size', 25);
    let page = int('page', this.oneBased.has(s) ? 1 : 0);
    if (!Number.isFinite(size) || size < 1 || size > MAX_SIZE || !Number.isFinite(page))
      return json(400, { status: 400, message: `page and size (1..${MAX_SIZE}) must be numbers` });
    if (this.oneBased.has(s)) {
      if (page === 0 && this.sw.oneOf('pageZero', ['alias', 'error'], 'alias') === 'error') return json(400, { status: 400, message: 'page must be >= 1' });
      page = Math.max(0, page - 1);
    }
    const all = this.listed(s);
    const data = all.slice(page * size, (page + 1) * size).map((i) => this.record(s, i));
    return json(200, { data, pages: { hasNext: (page + 1) * size < all.length } });
  }

  private record(s: Section, i: number): Record<string, unknown> {
    return sectionRecord(s, i, this.employee(i), this.shape, this.staff.modifiedAt(i)) ?? { employeeId: greythrId(i) };
  }

  private single(s: Section, id: number): Reply {
    const i = indexOfGreythrId(id);
    if (i === undefined || !this.staff.isServed(i) || (s === 'addresses' && !this.sw.bool('addresses', true)))
      return json(404, { status: 404, message: 'Employee not found' });
    // One employee's categories: a bare array of `{category, value}` ids, whatever `descRequired`
    // says (public client code's notes, src/hrms/greythr/README.md "Requests").
    if (s === 'categories') {
      const list = this.record(s, i).categoryList;
      return json(200, Array.isArray(list) ? list.map((c: { category: unknown; value: unknown }) => ({ category: c.category, value: c.value })) : []);
    }
    return json(200, this.record(s, i));
  }

  private lookup(q: string | null): Reply {
    const i = employeeIndex(q ?? '');
    if (i === undefined || !this.staff.isServed(i) || employeeCode(i) !== q) return json(404, { status: 404, message: 'Employee not found' });
    return json(200, this.record('employees', i));
  }

  /** `POST /hr/v2/lov`: by default a bare JSON array of `lov::<list>` keys answered `{key: [[id, text], …]}` (public client code); `lovShape` list|map the older shapes. */
  private lov(body: string): Reply {
    if (!this.sw.bool('lovEndpoint', true)) return json(404, { status: 404, message: 'Not Found' });
    const shape = this.sw.oneOf('lovShape', ['keys', 'list', 'map'], 'keys');
    if (shape === 'keys') {
      let keys: unknown;
      try {
        keys = JSON.parse(body);
      } catch {
        keys = undefined;
      }
      if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) return json(400, { status: 400, message: 'Expected a JSON array of keys' });
      return json(
        200,
        Object.fromEntries(
          keys.flatMap((k: string) => {
            const values = /^lov::/.test(k) ? LOVS[k.slice(5)] : undefined;
            return values ? [[k, Object.entries(values).map(([id, text]) => [Number(id), text])]] : [];
          }),
        ),
      );
    }
    if (shape === 'map') {
      return json(200, Object.fromEntries(Object.entries(LOVS).map(([name, values]) => [name, Object.fromEntries(Object.entries(values))])));
    }
    return json(200, {
      data: Object.entries(LOVS).map(([name, values]) => ({
        name,
        values: Object.entries(values).map(([id, description]) => ({ id: Number(id), description })),
      })),
    });
  }

  private categories(): Reply {
    const values = categoryValues(this.staff.served().map((i) => [i, this.employee(i)] as [number, NativeEmployee]));
    return json(200, {
      data: CATEGORIES.map(([id, description]) => ({ id, description, values: [...values.get(id)!].map((v) => ({ id: valueId(v), description: v })) })),
    });
  }
}

/** What a full listing of a greytHR simulator reads (`listingShape`). */
export interface GreythrListing {
  /** Records each section (list endpoint) serves; 0 also when the endpoint is absent (`addresses` off: a 404). */
  sizes: ReadonlyMap<Section, number>;
  /** Sections whose pages start at 1 (the `oneBased` variant). */
  oneBased: readonly Section[];
  /** Category entries come without `categoryDesc`/`valueDesc` (the `categoryDescs` variant off). */
  categoriesWithoutDescs: boolean;
}

/** `sim`'s listing when it is a greytHR simulator, else `undefined` (for the benchmark's request minimum). */
export function greythrListing(sim: DialectSim): GreythrListing | undefined {
  return sim instanceof GreythrSim ? sim.listingShape() : undefined;
}

/** Starts the greytHR simulator (two ports: tenant host and API host). */
export const startGreythrSim: DialectSimFactory = (options) => new GreythrSim(options).start();
