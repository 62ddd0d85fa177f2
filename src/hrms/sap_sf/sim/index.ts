/**
 * The SAP SuccessFactors simulator (`hrx hrms-sim --dialect sap_sf`), on the shared kit
 * (src/hrms/sim/kit/). It answers what SAP's descriptions define, as ../openapi/rules.yaml encodes
 * them ("P": Personal Information, "E": Employment Information):
 * - HTTP Basic `<API user>@<company ID>` and the password (`basicAuthentication`); otherwise 401
 *   with an OData error body `{error: {code, message}}` (P `odata.error`). Every answer is JSON
 *   when asked with `Accept: application/json` (or `$format=json`); otherwise Atom XML, as the API
 *   answers by default.
 * - `GET /odata/v2/PerPerson` (`$expand` of `personalInfoNav`, `emailNav`, `phoneNav`) and
 *   `GET /odata/v2/EmpEmployment` (`$expand=jobInfoNav`) → `{d: {results}}`, in `personIdExternal`
 *   order, every person, exited ones included (`EmpEmployment.endDate` set); `$select` of an
 *   entity's own properties, `$top` (default 20, P `parameters/top`), `$skip`,
 *   `$orderby=personIdExternal`, and `$filter` either `[<nav>/]lastModifiedDateTime gt
 *   datetimeoffset'<UTC>'` terms joined by `or` (a navigation's term selects the entities any of
 *   whose related rows match, as SAP filters on a navigation) or `personIdExternal eq '…' or …`.
 *   `GET /odata/v2/PerPerson('<id>')` → `{d}`; an unknown id is 404 with the error body.
 * - Each entity keeps its own `lastModifiedDateTime`: a change (a new mobile number and job title)
 *   stamps `PerPhone` and `EmpJob` only (rows.ts). A deleted person is in no list.
 * - A query the simulator does not model (another `$filter`, `$orderby` or `$expand`, a `$select`
 *   outside the entity) is 400 with the error body, as SAP answers an unknown property
 *   (`COE_PROPERTY_NOT_FOUND`). Switch `hidden` (comma list of `PerPerson` properties): those are
 *   unknown to the API user (400 when selected, left out otherwise), as when the role lacks them.
 * - Switch `pending` (a count): the last persons are not hired yet (in no answer, not in the ground
 *   truth) until `hire()` adds the next of them, so a test can add a person mid-listing.
 * - Throttling (SAP publishes no numbers): past `limitPerMinute` (default 60, hrx's budget)
 *   requests a minute, or the `rateThrottle` fault: 429 with `Retry-After: retryAfterSec` (default
 *   1). Faults: latency, 5xx (500). No tokens.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DialectSim, DialectSimOptions } from '../../sim/dialect';
import { basicOk, bearerToken, dialectSim, formParams, json, Reply, SimCore, Staff, tokenOk, Tokens, unpublishedThrottle } from '../../sim/kit';
import { tokenRefusal, type SamlRegistration } from './oauth';
import { BASE_MODIFIED, employment, expected, person } from './rows';

type Obj = Record<string, unknown>;

const COMPANY = 'ACMEINDIA';
const API_USER = 'hrx_api';
const PASSWORD = 'sf-sim-password-7c2e';
/** The OAuth client application's API key (switch `oauth`). */
const API_KEY = 'NjM0ZWRmYzA1ZDVkNTRiYzYxYTc3OGY2YjM2OA';
/** SAP's token lifetime in seconds (24 hours less a second, as RFC 6749 §5.1 `expires_in`). */
const TOKEN_TTL_S = 86_399;

/** A fresh RSA key pair as the OAuth client's: the PEM private key the employer keeps, the public key of the certificate SAP keeps. */
function rsaPair(): { privatePem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
}

/** One entity the simulator serves: its rows for person `i` (navigations included) and its navigations' names. */
interface Entity {
  rows(i: number): Obj[];
  navs: readonly string[];
}

/** An OData error answer (P `odata.error`). */
const odataError = (status: number, code: string, message: string, headers: Record<string, string> = {}): Reply =>
  json(status, { error: { code, message } }, headers);

/** The comma-separated values of query parameter `name` (none: empty). */
const listOf = (url: URL, name: string): string[] => (url.searchParams.get(name) ?? '').split(',').filter(Boolean);

/** `$top` (default 20) and `$skip` (default 0), or a 400. */
function paging(url: URL): { top: number; skip: number } | Reply {
  const num = (name: string, dflt: number): number => {
    const v = url.searchParams.get(name);
    return v === null ? dflt : /^\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
  };
  const top = num('$top', 20);
  const skip = num('$skip', 0);
  if (Number.isNaN(top) || Number.isNaN(skip)) return odataError(400, 'COE_BAD_REQUEST', 'Invalid $top or $skip');
  return { top, skip };
}

/**
 * A `$filter` the simulator models: changed after an instant (`lastModifiedDateTime gt
 * datetimeoffset'<UTC>'`, the entity's own or a navigation's, `nav/lastModifiedDateTime`, joined by
 * `or`), or one of some persons (`personIdExternal eq '…' or …`); undefined for any other.
 */
function filterOf(filter: string | null): { after?: { at: number; navs: string[] }; ids?: Set<string> } | undefined {
  if (filter === null) return {};
  const terms = filter.split(/\s+or\s+/);
  const navs: string[] = [];
  let at: number | undefined;
  for (const term of terms) {
    const changed = /^\s*(?:(\w+)\/)?lastModifiedDateTime\s+gt\s+datetimeoffset'(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)'\s*$/.exec(term);
    if (!changed || (at !== undefined && at !== Date.parse(changed[2]!))) break;
    at = Date.parse(changed[2]!);
    navs.push(changed[1] ?? '');
  }
  if (at !== undefined && navs.length === terms.length) return { after: { at, navs } };
  const ids = new Set<string>();
  for (const term of terms) {
    const m = /^\s*personIdExternal\s+eq\s+'((?:[^']|'')*)'\s*$/.exec(term);
    if (!m) return undefined;
    ids.add(m[1]!.replace(/''/g, "'"));
  }
  return { ids };
}

/** The milliseconds of an OData `/Date(ms)/`. */
const msOf = (v: unknown): number => Number(/^\/Date\((-?\d+)/.exec(String(v))?.[1] ?? Number.NaN);

/** Whether `row` (`''`) or any row of one of its navigations `navs` was modified after `at`. */
function changedAfter(row: Obj, at: number, navs: readonly string[]): boolean {
  return navs.some((nav) => {
    if (nav === '') return msOf(row.lastModifiedDateTime) > at;
    const results = (row[nav] as { results?: Obj[] } | undefined)?.results ?? [];
    return results.some((r) => msOf(r.lastModifiedDateTime) > at);
  });
}

/** Starts the SAP SuccessFactors simulator. */
export async function startSapSfSim(options: DialectSimOptions): Promise<SapSfSim> {
  const v = options.variants ?? {};
  const hidden = new Set(typeof v.hidden === 'string' ? v.hidden.split(',').filter(Boolean) : []);
  const throttling = unpublishedThrottle(v, 60);
  // Switch `oauth`: the company signs in with OAuth 2.0 and a SAML assertion only (Basic is off).
  const oauth = v.oauth === true;
  const registered = oauth ? rsaPair() : undefined;
  const stranger = oauth ? rsaPair() : undefined;
  const registration: SamlRegistration | undefined = registered && { companyId: COMPANY, apiKey: API_KEY, userId: API_USER, publicKey: registered.publicKey };
  const tokens = new Tokens();
  const core = new SimCore(options, throttling.limit, [tokens]);
  const staff = new Staff(options.seed, options.employees, { unchangedAt: () => BASE_MODIFIED });

  // Switch `pending` (a count): the last persons are not hired yet; `hire()` adds the first of them.
  const pendingCount = typeof v.pending === 'number' && Number.isInteger(v.pending) && v.pending >= 0 ? v.pending : 0;
  const pending = staff.served().slice(staff.served().length - pendingCount);
  const held = new Set(pending);
  const served = (): number[] => staff.served().filter((i) => !held.has(i));
  const indexOf = (id: string): number | undefined => {
    const i = staff.indexOf(id);
    return i === undefined || held.has(i) ? undefined : i;
  };
  const personOf = (i: number) => person(staff.employee(i), i, staff.modifiedAt(i));
  const employmentOf = (i: number): Obj => employment(staff.employee(i), staff.modifiedAt(i));
  const ENTITIES: Record<string, Entity> = {
    PerPerson: {
      rows: (i) => {
        const { own, navs } = personOf(i);
        return [
          {
            ...Object.fromEntries(Object.entries(own).filter(([k]) => !hidden.has(k))),
            ...Object.fromEntries(Object.entries(navs).map(([k, r]) => [k, { results: r }])),
          },
        ];
      },
      navs: ['personalInfoNav', 'emailNav', 'phoneNav'],
    },
    EmpEmployment: { rows: (i) => [employmentOf(i)], navs: ['jobInfoNav'] },
  };

  /** `row` with the `select`ed own properties (all when none) and the `expand`ed navigations only. */
  function shape(row: Obj, entity: Entity, select: string[], expand: string[]): Obj {
    const out: Obj = {};
    for (const [k, val] of Object.entries(row)) {
      if (entity.navs.includes(k) ? expand.includes(k) : select.length === 0 || select.includes(k)) out[k] = val;
    }
    return out;
  }

  /** The `$select`/`$expand` of a read of `name`, or a 400 naming what the entity does not have. */
  function query(name: string, entity: Entity, url: URL, sample: Obj): { select: string[]; expand: string[] } | Reply {
    const select = listOf(url, '$select');
    const expand = listOf(url, '$expand');
    const own = Object.keys(sample).filter((k) => !entity.navs.includes(k));
    const unknown = [...select.filter((s) => !own.includes(s)), ...expand.filter((x) => !entity.navs.includes(x))];
    if (unknown.length) return odataError(400, 'COE_PROPERTY_NOT_FOUND', `[COE0021]Invalid property names: ${name}/${unknown[0]}.`);
    return { select, expand };
  }

  /** Snapshots of server-side paging by id: the person indices fixed at the first page's request (`paging=snapshot`). */
  const snapshots = new Map<string, readonly number[]>();

  /**
   * A page of a snapshot (`paging=snapshot`, `customPageSize` rows, default and at most 1000): the
   * first request fixes the indices the listing will serve, each `__next` (the same query plus
   * `$skiptoken`, absolute on the host the client asked) reads the next slice of them. A person
   * deleted since is left out; one added since is in no page; none is repeated.
   */
  function snapshotPage(url: URL, host: string | undefined, indices: readonly number[], entity: Entity, q: { select: string[]; expand: string[] }): Reply {
    const sizeText = url.searchParams.get('customPageSize');
    const size = sizeText === null ? 1000 : /^\d{1,4}$/.test(sizeText) ? Number(sizeText) : Number.NaN;
    if (!(size >= 1 && size <= 1000) || url.searchParams.has('$top') || url.searchParams.has('$skip')) {
      return odataError(400, 'COE_BAD_REQUEST', 'This simulator models snapshot paging with customPageSize (1 to 1000) and no $top or $skip');
    }
    const token = url.searchParams.get('$skiptoken');
    let snap: string;
    let at = 0;
    if (token === null) {
      snap = String(snapshots.size + 1);
      snapshots.set(snap, [...indices]);
    } else {
      const m = /^(\d{1,9})-(\d{1,9})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
      if (!m || !snapshots.has(m[1]!)) return odataError(400, 'COE_BAD_REQUEST', 'Invalid $skiptoken');
      snap = m[1]!;
      at = Number(m[2]);
    }
    const fixed = snapshots.get(snap)!;
    const rows = fixed
      .slice(at, at + size)
      .filter((i) => staff.isServed(i) && !held.has(i))
      .flatMap((i) => entity.rows(i));
    const d: Obj = { results: rows.map((row) => shape(row, entity, q.select, q.expand)) };
    if (at + size < fixed.length) {
      const next = new URL(`${url.pathname}${url.search}`, `http://${host ?? 'localhost'}`);
      next.searchParams.set('$skiptoken', Buffer.from(`${snap}-${at + size}`).toString('base64url'));
      d.__next = next.href;
    }
    return json(200, { d });
  }

  function list(name: string, url: URL, host: string | undefined): Reply {
    const entity = ENTITIES[name]!;
    const first = served()[0];
    const q = query(name, entity, url, first === undefined ? {} : (entity.rows(first)[0] ?? {}));
    if (q instanceof Reply) return q;
    const p = paging(url);
    if (p instanceof Reply) return p;
    const f = filterOf(url.searchParams.get('$filter'));
    const order = url.searchParams.get('$orderby');
    if (!f || f.after?.navs.some((n) => n !== '' && !entity.navs.includes(n)) || (order !== null && order !== 'personIdExternal')) {
      return odataError(400, 'COE_BAD_REQUEST', `This simulator models no such $filter or $orderby on ${name}`);
    }
    // Served indices ascend with personIdExternal (EMP00001, …): key order is that order. Each
    // person is one row of either entity, so without a change filter a page is sliced before any
    // employee is generated.
    const paged = url.searchParams.get('paging');
    if ((paged !== null && (paged !== 'snapshot' || f.after)) || (paged === null && url.searchParams.has('$skiptoken'))) {
      return odataError(400, 'COE_BAD_REQUEST', `This simulator models snapshot paging of ${name} without a change filter only`);
    }
    const indices = f.ids
      ? [...f.ids]
          .map((id) => indexOf(id))
          .filter((i): i is number => i !== undefined)
          .sort((a, b) => a - b)
      : served();
    if (paged === 'snapshot') return snapshotPage(url, host, indices, entity, q);
    const after = f.after;
    const rows = after
      ? indices
          .flatMap((i) => entity.rows(i))
          .filter((row) => changedAfter(row, after.at, after.navs))
          .slice(p.skip, p.skip + p.top)
      : indices.slice(p.skip, p.skip + p.top).flatMap((i) => entity.rows(i));
    const results = rows.map((row) => shape(row, entity, q.select, q.expand));
    return json(200, { d: { results } });
  }

  function onePerson(url: URL, id: string): Reply {
    const entity = ENTITIES.PerPerson!;
    const i = indexOf(id);
    const row = i === undefined ? undefined : entity.rows(i)[0];
    const q = query('PerPerson', entity, url, row ?? {});
    if (q instanceof Reply) return row ? q : odataError(404, 'COE_RESOURCE_NOT_FOUND', 'No PerPerson with that key');
    if (!row) return odataError(404, 'COE_RESOURCE_NOT_FOUND', 'No PerPerson with that key');
    return json(200, { d: shape(row, entity, q.select, q.expand) });
  }

  /** `POST /oauth/token` (./oauth.ts): a 24-hour Bearer token for a good signed assertion, else the RFC 6749 §5.2 error. */
  async function token(req: IncomingMessage, url: URL, reg: SamlRegistration): Promise<Reply> {
    core.counters.tokenRequests += 1;
    const refusal = tokenRefusal(await formParams(req, url), reg);
    if (refusal) {
      core.counters.authFailures += 1;
      return json(refusal.status, { error: refusal.error, error_description: refusal.reason });
    }
    return json(200, { access_token: tokens.issue(TOKEN_TTL_S * 1000), token_type: 'Bearer', expires_in: TOKEN_TTL_S }, { 'cache-control': 'no-store' });
  }

  /** Whether the call's credentials are good: the Bearer token of `/oauth/token` under switch `oauth`, else HTTP Basic. */
  const signedIn = (authorization: string | undefined): boolean =>
    oauth ? tokenOk(core, tokens, bearerToken(authorization)) : basicOk(core, authorization, `${API_USER}@${COMPANY}`, PASSWORD);

  async function handle(req: IncomingMessage, url: URL): Promise<Reply> {
    if (url.pathname === '/oauth/token' && registration) {
      return req.method === 'POST' ? token(req, url, registration) : json(405, { error: 'invalid_request' });
    }
    const inWindow = core.window.hit();
    const m = /^\/odata\/v2\/(\w+)(?:\('((?:[^']|'')*)'\))?$/.exec(decodeURIComponent(url.pathname));
    const name = m?.[1];
    if (!m || !name || !Object.hasOwn(ENTITIES, name) || req.method !== 'GET' || (m[2] !== undefined && name !== 'PerPerson')) {
      return odataError(404, 'COE_RESOURCE_NOT_FOUND', 'Resource not found');
    }
    const stop = await core.gate(
      inWindow,
      () => core.throttled(throttling.reply({ error: { code: 'TOO_MANY_REQUESTS', message: 'Too many requests' } })),
      () => odataError(500, 'COE_GENERAL_SERVER_FAILURE', 'Internal server error'),
    );
    if (stop) return stop;
    if (!signedIn(req.headers.authorization)) {
      return odataError(401, 'LGN0022', 'Authentication failed', { 'www-authenticate': oauth ? 'Bearer' : 'Basic realm="SuccessFactors"' });
    }
    const wantsJson = /application\/json/.test(req.headers.accept ?? '') || url.searchParams.get('$format') === 'json';
    if (!wantsJson)
      return new Reply(200, '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"/>', { 'content-type': 'application/atom+xml' });
    return m[2] === undefined ? list(name, url, req.headers.host) : onePerson(url, m[2].replace(/''/g, "'"));
  }

  const { url } = await core.listen(handle);
  const today = (): string => new Date().toISOString().slice(0, 10);
  const sim = dialectSim({
    hrmsId: 'sap_sf',
    url,
    core,
    staff,
    issuesTokens: oauth,
    secret: registered?.privatePem ?? PASSWORD,
    // Under `oauth` the wrong secret is a well-formed key the company never registered.
    ...(stranger ? { wrongSecret: stranger.privatePem } : {}),
    setupWith: (secret) =>
      oauth
        ? {
            access_credentials: { hrms_host: url, grant_type: 'saml2_bearer', client_id: COMPANY, api_key: API_USER, client_secret: secret },
            api_configs: [{ api_id: 'oauth', access_credentials: { hrms_host: url, grant_type: 'saml2_bearer', client_id: API_KEY } }],
          }
        : {
            access_credentials: { hrms_host: url, grant_type: 'basic', client_id: COMPANY, api_key: API_USER, client_secret: secret },
            api_configs: [],
          },
    expected: (i) => {
      const e = expected(staff.employee(i), today());
      if (hidden.has('dateOfBirth')) delete e.dob;
      return e;
    },
  });
  // Ground truth and ids cover the persons hired so far only.
  const hiredIds = (): Set<string> => new Set(served().map((i) => staff.employee(i).employee_code));
  const allIds = sim.employeeIds.bind(sim);
  const allExpected = sim.expected.bind(sim);
  return Object.assign(sim, {
    employeeIds: () => (held.size ? allIds().filter((id) => hiredIds().has(id)) : allIds()),
    expected: () => (held.size ? allExpected().filter((e) => hiredIds().has(e.employeeId)) : allExpected()),
    hire: (): string => {
      const i = pending.find((k) => held.has(k));
      if (i === undefined) throw new RangeError('no pending person left to hire');
      held.delete(i);
      return staff.employee(i).employee_code;
    },
  });
}

/** The SAP SuccessFactors simulator: a dialect simulator that can also hire one of its `pending` persons (returns the new id). */
export type SapSfSim = DialectSim & { hire(): string };
