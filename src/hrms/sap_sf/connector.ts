/**
 * Connector for `hrms_id` `sap_sf`: SAP SuccessFactors Employee Central over its OData v2 API
 * (src/hrms/sap_sf/README.md "How hrx reads it"). Every request is an operation of SAP's published
 * descriptions as openapi/rules.yaml encodes them ("P": Personal Information, "E": Employment
 * Information; openapi/SOURCE.md), with only the parameters and values they declare.
 *
 * Auth: `grant_type` `basic`: HTTP Basic `<API user>@<company ID>` and the password
 * (`basicAuthentication`, the scheme the descriptions list); `saml2_bearer`: a Bearer token from
 * SAP's `/oauth/token` for a SAML assertion hrx signs (oauth.ts), cached per process and renewed
 * once on a 401 (`TokenSession`); 401/403 are `HrmsError('auth')`. Root: `{hrms_host}/odata/v2/`
 * (an `hrms_host` already ending in `/odata/v2` is used as given). JSON is asked with
 * `Accept: application/json` (the descriptions' `produces`; `$format` is not a parameter they declare).
 * A read that expands navigations sends no `$select`: the descriptions' `$select` lists only an
 * entity's own properties, and OData v2 leaves out an expanded navigation that is not selected.
 *
 * - Credential check: `GET /PerPerson?$select=personIdExternal&$top=1` (P `listPerPersons`).
 * - Full listing, a page of persons at a time, with SAP's server-side snapshot paging (README
 *   "How hrx reads it"; openapi/rules.yaml cites SAP's statement): the first page is
 *   `GET /PerPerson?$expand=personalInfoNav,emailNav,phoneNav&paging=snapshot&customPageSize=<size>`,
 *   which fixes the result set when it is asked, and each later page is the answer's `d.__next`
 *   link (carrying a `$skiptoken`), followed only on `hrms_host`'s origin and the `PerPerson` path
 *   (else `bad_response`); an answer without `__next` is the last. Then that page's employments:
 *   `GET /EmpEmployment?$expand=jobInfoNav&$filter=personIdExternal eq '…' or …&$top=1000&$skip=0`
 *   (E `EmpEmployment`, whose `$expand` offers `jobInfoNav`; P's `PerPerson` offers no
 *   `employmentNav`). Cursor: the `__next` link as base64url JSON.
 * - Incremental: each entity keeps its own `lastModifiedDateTime` (a new phone number moves only
 *   `PerPhone`'s), so the persons changed since a time are those of two filtered lists, each filter
 *   naming the entity's stamp and its navigations' (a navigation's property in `$filter` selects
 *   the entities any of whose related rows match): `PerPerson?$select=personIdExternal&$filter=
 *   lastModifiedDateTime gt datetimeoffset'<UTC>' or personalInfoNav/… or emailNav/… or phoneNav/…`
 *   and `EmpEmployment?$select=personIdExternal&$filter=lastModifiedDateTime gt … or jobInfoNav/…`.
 *   Those persons are read `pageSize` at a time as above, by `$filter=personIdExternal eq … or …`.
 *   Cursor: `changes:<changed ids yielded>`. A deleted person is in no list: removals wait for the
 *   next full sync (`reportsRemovals: false`).
 * - Live read: `GET /PerPerson('<id>')?$expand=…` (P `getPerPerson`; 404 is null), then its
 *   employments as above.
 * Throttling (429 with `Retry-After`) and 5xx are retried by the shared client.
 */
import {
  HrmsError,
  type ConnectorFactory,
  type ConnectorOptions,
  type EmployeePage,
  type HrmsAccess,
  type HrmsConnector,
  type ListOptions,
} from '../connector';
import { z } from 'zod';
import { jsonCursor, offsetCursor } from '../cursor';
import { basicAuth, HrmsHttpClient, type HrmsResponse } from '../http-client';
import { TokenSession } from '../token-session';
import { sapSfTokens } from './oauth';
import type { PartialEmployeeRecord } from '../../domain/record';
import { isObj, text, warnOnce, type FieldWarner, type Obj } from '../decode';
import { latest, mapSapSfEmployee, odataDate } from './mapping';

/** The most persons one page holds: their ids make the employments' `$filter` (about 40 characters each). */
export const SAP_SF_MAX_PAGE = 100;
/** The most rows one answer of employments or of changed ids is asked for; a full answer is followed by the next `$skip`. */
const TOP = 1000;
/** The navigations of `PerPerson` and `EmpEmployment` hrx reads (mapping.ts). */
const PERSON_QUERY = '$expand=personalInfoNav,emailNav,phoneNav';
const EMPLOYMENT_QUERY = '$expand=jobInfoNav';
/**
 * Where a change to what hrx reads shows: each entity keeps its own `lastModifiedDateTime`, and a
 * filter on a navigation's property selects the entities any of whose related rows match it.
 */
const CHANGE_SOURCES: readonly { entity: string; stamps: readonly string[] }[] = [
  { entity: 'PerPerson', stamps: ['', 'personalInfoNav/', 'emailNav/', 'phoneNav/'] },
  { entity: 'EmpEmployment', stamps: ['', 'jobInfoNav/'] },
];
/** `personIdExternal` is at most 32 characters (P `SFOData.PerPerson`). */
const MAX_ID = 32;

const OF = 'the SAP SuccessFactors connector';
/** An incremental listing's cursor: `changes:<changed ids already yielded>`. */
const CURSOR = offsetCursor(['changes'] as const, OF);
/**
 * A full listing's cursor: the `__next` link SAP answered (the next page of the snapshot, with its
 * `$skiptoken`), as base64url JSON; it is followed only on `hrms_host`'s origin and `PerPerson` path.
 */
const NEXT_CURSOR = jsonCursor(z.object({ next: z.string().min(1).max(8192) }), OF);

/** An OData string literal: in single quotes, a quote doubled. */
const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The employment that describes the person now: the open one (no `endDate`), else the latest. */
function currentEmployment(list: Obj[]): Obj | undefined {
  const open = list.filter((e) => odataDate(e.endDate) === undefined);
  return latest(open) ?? latest(list);
}

/** `personIdExternal eq '…' or …` for `ids`, URL-encoded. */
const byIds = (ids: readonly string[]): string => encodeURIComponent(ids.map((id) => `personIdExternal eq ${literal(id)}`).join(' or '));

/** The `__next` link of an OData collection answer (server-side paging), undefined on the last page; `bad_response` when not a string. */
function nextLinkOf(body: unknown, what: string): string | undefined {
  const d = isObj(body) ? body.d : undefined;
  const next = isObj(d) ? d.__next : undefined;
  if (next === undefined || next === null) return undefined;
  if (typeof next !== 'string' || next.trim() === '') throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`);
  return next.trim();
}

/** The results of an OData collection answer `{d: {results: [...]}}`; `bad_response` for another shape. */
function collection(body: unknown, what: string): Obj[] {
  const d = isObj(body) ? body.d : undefined;
  if (!isObj(d) || !Array.isArray(d.results)) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for ${what}`);
  return d.results.filter(isObj);
}

class SapSfConnector implements HrmsConnector {
  private readonly client: HrmsHttpClient;
  private readonly warn: FieldWarner;
  /** The OAuth session of a `saml2_bearer` setup; undefined for `basic`. */
  private readonly session: TokenSession | undefined;

  constructor(
    private readonly access: HrmsAccess,
    options: ConnectorOptions,
  ) {
    this.client = new HrmsHttpClient(options, 'hrx-sap-sf-connector');
    this.warn = warnOnce(options.onWarning);
    this.session = access.credentials.grant_type === 'saml2_bearer' ? new TokenSession(sapSfTokens(this.client, access)) : undefined;
  }

  private authorization(): string {
    const { client_id: company, client_secret: password, api_key: user } = this.access.credentials;
    if (!company || !password || !user) throw new HrmsError('auth', 'sap_sf needs a company ID, an API user and its password');
    return basicAuth(`${user}@${company}`, password);
  }

  /** The API root, `…/odata/v2/`. */
  private root(): string {
    const host = this.access.credentials.hrms_host.replace(/\/+$/, '');
    return /\/odata\/v2$/.test(host) ? `${host}/` : `${host}/odata/v2/`;
  }

  /** A GET of `path` under the API root, retried; the JSON of a 200, `null` on 404 when `allow404`. */
  private getJson(path: string, what: string, allow404 = false): Promise<unknown> {
    return this.getUrl(this.client.url(this.root(), path), what, allow404);
  }

  /** A GET of `url` (under the API root), retried; the JSON of a 200, `null` on 404 when `allow404`. */
  private getUrl(url: URL, what: string, allow404 = false): Promise<unknown> {
    return this.client.retriedJson(() => this.send(url, what), what, { nullOn: allow404 ? [404] : [] });
  }

  /** One GET: with the OAuth token (a 401 renews it once) or with HTTP Basic. */
  private send(url: URL, what: string): Promise<HrmsResponse> {
    const accept = { accept: 'application/json' };
    if (this.session) return this.session.bearerGet(this.client, url, what, accept);
    return this.client.request(url, what, { headers: { ...accept, authorization: this.authorization() } });
  }

  private pageSize(): number {
    return Math.min(SAP_SF_MAX_PAGE, this.client.opts.pageSize);
  }

  private today(): string {
    return new Date().toISOString().slice(0, 10);
  }

  /** Every row of `path` (a query without `$top`/`$skip`), `TOP` at a time. */
  private async allRows(path: string, what: string): Promise<Obj[]> {
    const rows: Obj[] = [];
    for (let skip = 0; ; skip += TOP) {
      const page = collection(await this.getJson(`${path}&$top=${TOP}&$skip=${skip}`, what), what);
      rows.push(...page);
      if (page.length < TOP) return rows;
    }
  }

  /** The employments of `ids`, by person. */
  private async employments(ids: string[]): Promise<Map<string, Obj[]>> {
    const byPerson = new Map<string, Obj[]>();
    if (ids.length === 0) return byPerson;
    for (const e of await this.allRows(`EmpEmployment?${EMPLOYMENT_QUERY}&$filter=${byIds(ids)}`, 'employments')) {
      const id = text(e.personIdExternal);
      if (id !== undefined) byPerson.set(id, [...(byPerson.get(id) ?? []), e]);
    }
    return byPerson;
  }

  /** The ids of the persons any of whose entities hrx reads changed after `since`, sorted. */
  private async changedIds(since: Date): Promise<string[]> {
    const at = `datetimeoffset'${since.toISOString().replace(/\.\d{3}Z$/, 'Z')}'`;
    const ids = new Set<string>();
    for (const { entity, stamps } of CHANGE_SOURCES) {
      const filter = encodeURIComponent(stamps.map((nav) => `${nav}lastModifiedDateTime gt ${at}`).join(' or '));
      for (const row of await this.allRows(`${entity}?$select=personIdExternal&$filter=${filter}`, `changed ${entity}`)) {
        const id = text(row.personIdExternal);
        if (id !== undefined) ids.add(id);
      }
    }
    return [...ids].sort();
  }

  /** `persons` as records, each with its current employment. */
  private async assemble(persons: Obj[]): Promise<PartialEmployeeRecord[]> {
    const ids = persons.map((p) => text(p.personIdExternal)).filter((id): id is string => id !== undefined);
    const employments = await this.employments(ids);
    const today = this.today();
    return persons.map((person) => {
      const id = text(person.personIdExternal);
      const employment = id === undefined ? undefined : currentEmployment(employments.get(id) ?? []);
      return mapSapSfEmployee({ person, ...(employment ? { employment } : {}), today }, this.warn);
    });
  }

  /** One call: the first person's id, which needs valid credentials and read access to `PerPerson`. */
  async verifyCredentials(): Promise<void> {
    collection(await this.getJson('PerPerson?$select=personIdExternal&$top=1', 'credential check'), 'credential check');
  }

  async *listEmployees(options: ListOptions = {}): AsyncGenerator<EmployeePage> {
    if (options.since) {
      yield* this.changes(options.since, options.cursor);
      return;
    }
    // The first page asks SAP for snapshot paging; each later one is the `__next` link it answered.
    let page =
      options.cursor === undefined
        ? this.client.url(this.root(), `PerPerson?${PERSON_QUERY}&paging=snapshot&customPageSize=${this.pageSize()}`)
        : this.pageLink(NEXT_CURSOR.decode(options.cursor).next);
    for (let n = 1; ; n++) {
      const what = `person page ${n}`;
      const body = await this.getUrl(page, what);
      const persons = collection(body, what);
      const link = nextLinkOf(body, what);
      const next = link === undefined ? undefined : this.pageLink(link);
      if (next?.href === page.href) throw new HrmsError('bad_response', 'HRMS pointed to the same page again');
      yield { employees: await this.assemble(persons), ...(next ? { next: NEXT_CURSOR.encode({ next: next.href }) } : {}) };
      if (!next) return;
      page = next;
    }
  }

  /**
   * A `__next` link (an answer's or a cursor's) as the URL to ask: only on `hrms_host`'s origin
   * (else `bad_response`, as every product's page links: `HrmsHttpClient.url`) and only the
   * `PerPerson` listing under the API root (else `bad_response`), so a link never sends the
   * credentials elsewhere.
   */
  private pageLink(link: string): URL {
    const url = this.client.url(this.root(), link);
    if (url.pathname !== this.client.url(this.root(), 'PerPerson').pathname) throw new HrmsError('bad_response', 'HRMS pointed to another resource');
    return url;
  }

  /** The persons changed since `since`, read `pageSize` at a time; one empty page when none changed. */
  private async *changes(since: Date, cursor: string | undefined): AsyncGenerator<EmployeePage> {
    const skip = CURSOR.offsetIn(cursor, 'changes');
    const ids = await this.changedIds(since);
    const size = this.pageSize();
    for (let at = skip, first = true; at < ids.length || first; at += size, first = false) {
      const chunk = ids.slice(at, at + size);
      const persons = chunk.length ? await this.allRows(`PerPerson?${PERSON_QUERY}&$filter=${byIds(chunk)}`, 'changed persons') : [];
      const next = at + size < ids.length ? CURSOR.encode('changes', at + size) : undefined;
      yield { employees: await this.assemble(persons), ...(next ? { next } : {}) };
    }
  }

  /**
   * Live read; null for a 404 and, without a call, for an id that cannot be a `personIdExternal`
   * (blank, spaces at its ends, a control character, longer than 32: docs/hrms/connectors.md
   * "Employee ids in live reads").
   */
  async getEmployee(employeeId: string): Promise<PartialEmployeeRecord | null> {
    const id = employeeId.trim();
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    if (id === '' || id.length > MAX_ID || id !== employeeId || /[\u0000-\u001f\u007f]/.test(id)) return null;
    const body = await this.getJson(`PerPerson(${encodeURIComponent(literal(id))})?${PERSON_QUERY}`, 'employee lookup', true);
    if (body === null) return null;
    const person = isObj(body) ? body.d : undefined;
    if (!isObj(person)) throw new HrmsError('bad_response', 'HRMS sent an unexpected shape for employee lookup');
    const [record] = await this.assemble([person]);
    return record ?? null;
  }
}

/**
 * Builds the connector for `hrms_id` `sap_sf`. Never throws itself: missing credentials are
 * `HrmsError('auth')`, a refused host `host_not_allowed`, on first use.
 */
export const createSapSfConnector: ConnectorFactory = (access, options = {}) => new SapSfConnector(access, options);
