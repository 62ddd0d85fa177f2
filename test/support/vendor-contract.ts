/**
 * Checks HTTP exchanges against an HRMS vendor's published API description (OpenAPI 3.1 /
 * JSON Schema 2020-12: BambooHR's own `public.yaml`, or the hand-encoded `rules.yaml` of Keka and
 * Personio, src/hrms/<product>/openapi/). For a request: an operation exists for its method and
 * path (under the server's base path, the path item's `servers` first), every path and query
 * parameter is one the operation declares and its value fits the parameter's schema (deepObject
 * `filter[status]=…`, comma-separated arrays, enums), required parameters are there, the request
 * carries a security scheme the operation accepts (Basic for `http basic`, a bearer token for
 * `http bearer` and `oauth2`), and a body fits the operation's `requestBody`. For the answer: its
 * status is one the operation describes (an error status it leaves out has no schema and passes),
 * and a JSON body validates against that response's schema.
 *
 * Schemas are validated with Ajv's JSON Schema 2020-12 validator (`ajv/dist/2020`) and
 * `ajv-formats`; parameter values (text on the wire) are coerced to the schema's types first.
 */
import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import type { RecordedExchange } from './counting-proxy';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const DOC_ID = 'urn:hrx:vendor-description';

/** A parameter of an operation, its `$ref` resolved. */
interface Param {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  schema?: Obj;
}

/** One operation matched to a request: its object, path item and the path parameters' values. */
interface Matched {
  template: string;
  op: Obj;
  item: Obj;
  pathValues: Record<string, string>;
}

/** Every `$ref: '#/…'` of `node` rewritten to point into the document registered as {@link DOC_ID}. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${DOC_ID}${v}` : rebase(v);
  return out;
}

/** The path of a server URL (`https://{x}.bamboohr.com` → '', `https://api.personio.de/v1` → `/v1`), variables at their defaults. */
function basePath(server: unknown): string {
  const s = isObj(server) ? server : {};
  const vars = isObj(s.variables) ? s.variables : {};
  const url = (typeof s.url === 'string' ? s.url : '/').replace(/\{(\w+)\}/g, (_, v: string) => {
    const d = vars[v];
    return isObj(d) && typeof d.default === 'string' ? d.default : 'x';
  });
  return new URL(url, 'http://base.invalid').pathname.replace(/\/+$/, '');
}

const mediaType = (header: unknown): string => (typeof header === 'string' ? header.split(';')[0]!.trim().toLowerCase() : '');

/** A vendor's API description, loaded once, that checks recorded exchanges. */
export class VendorDescription {
  private readonly doc: Obj;
  private readonly ajv: Ajv2020;
  /** Parameter values arrive as text: this validator coerces them to the schema's types. */
  private readonly ajvParams: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  /** Loads `file` (YAML or JSON), an OpenAPI 3.1 document. */
  constructor(readonly file: string) {
    this.doc = parse(readFileSync(file, 'utf8')) as Obj;
    const make = (coerce: boolean) => {
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, coerceTypes: coerce ? 'array' : false });
      addFormats(ajv);
      ajv.addSchema({ ...(rebase(this.doc) as Obj), $id: DOC_ID });
      return ajv;
    };
    this.ajv = make(false);
    this.ajvParams = make(true);
  }

  private validator(key: string, schema: unknown, params = false): ValidateFunction {
    const k = `${params ? 'p' : 'b'}:${key}`;
    let v = this.compiled.get(k);
    if (!v) {
      v = (params ? this.ajvParams : this.ajv).compile(rebase(schema) as Obj);
      this.compiled.set(k, v);
    }
    return v;
  }

  private errors(key: string, schema: unknown, value: unknown, params = false): string | undefined {
    const v = this.validator(key, schema, params);
    if (v(value)) return undefined;
    return (v.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath || '/'} ${e.message ?? ''}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
      )
      .join('; ');
  }

  private deref<T>(node: unknown): T {
    let n = node;
    while (isObj(n) && typeof n.$ref === 'string' && n.$ref.startsWith('#/')) {
      n = n.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>((at, part) => (isObj(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), this.doc);
    }
    return n as T;
  }

  /** The operation for `method` and `pathname`, or undefined. */
  private match(method: string, pathname: string): Matched | undefined {
    const paths = isObj(this.doc.paths) ? this.doc.paths : {};
    // A concrete path wins over a templated one that also matches (`/employees/changed` before
    // `/employees/{id}`), as OpenAPI asks.
    const entries = Object.entries(paths).sort(([a], [b]) => Number(a.includes('{')) - Number(b.includes('{')));
    for (const [template, rawItem] of entries) {
      const item = this.deref<Obj>(rawItem);
      const op = item[method.toLowerCase()];
      if (!isObj(op)) continue;
      const servers = Array.isArray(item.servers) ? item.servers : Array.isArray(this.doc.servers) ? this.doc.servers : [{ url: '/' }];
      const names: string[] = [];
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, n: string) => (names.push(n), '([^/]+)'));
      for (const server of servers) {
        const m = new RegExp(`^${basePath(server)}${pattern}$`).exec(pathname);
        if (m) return { template, op, item, pathValues: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
      }
    }
    return undefined;
  }

  private params(m: Matched): Param[] {
    const list = [...(Array.isArray(m.item.parameters) ? m.item.parameters : []), ...(Array.isArray(m.op.parameters) ? m.op.parameters : [])];
    return list.map((p) => this.deref<Param>(p));
  }

  /** The request's security against the operation's (or the document's) requirement; a problem or undefined. */
  private security(op: Obj, headers: RecordedExchange['headers']): string | undefined {
    const required = (Array.isArray(op.security) ? op.security : Array.isArray(this.doc.security) ? this.doc.security : []) as Obj[];
    if (required.length === 0 || required.some((r) => Object.keys(r).length === 0)) return undefined;
    const auth = typeof headers.authorization === 'string' ? headers.authorization : '';
    const sent = /^basic /i.test(auth) ? 'basic' : /^bearer /i.test(auth) ? 'bearer' : 'none';
    const components = isObj(this.doc.components) && isObj(this.doc.components.securitySchemes) ? this.doc.components.securitySchemes : {};
    const satisfied = (name: string): boolean => {
      const s = this.deref<Obj>(components[name]);
      if (!isObj(s)) return false;
      if (s.type === 'http') return String(s.scheme).toLowerCase() === sent;
      if (s.type === 'oauth2' || s.type === 'openIdConnect') return sent === 'bearer';
      if (s.type === 'apiKey') return typeof s.name === 'string' && s.in === 'header' && headers[s.name.toLowerCase()] !== undefined;
      return false;
    };
    if (required.some((r) => Object.keys(r).every(satisfied))) return undefined;
    const accepted = required.map((r) => Object.keys(r).join('+')).filter((v, i, a) => a.indexOf(v) === i);
    return `security: sent ${sent === 'none' ? 'no credentials' : sent === 'basic' ? 'HTTP Basic' : 'a bearer token'}, the operation accepts only ${accepted.join(' or ')}`;
  }

  /** The query's values by parameter: deepObject `name[prop]` gathered into an object, arrays split at commas. */
  private queryProblems(key: string, query: URLSearchParams, declared: Param[]): string[] {
    const out: string[] = [];
    const q = declared.filter((p) => p.in === 'query');
    const seen = new Map<Param, unknown>();
    for (const name of new Set(query.keys())) {
      const values = query.getAll(name);
      const direct = q.find((p) => p.name === name);
      const deep = /^([^[\]]+)\[([^[\]]+)\]$/.exec(name);
      const owner = direct ?? (deep ? q.find((p) => p.name === deep[1] && p.style === 'deepObject') : undefined);
      if (!owner) {
        out.push(`query parameter \`${name}\` is not in the description`);
        continue;
      }
      const schema = this.deref<Obj>(owner.schema ?? {});
      if (owner === direct) {
        const isArray = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
        seen.set(owner, isArray ? values.flatMap((v) => v.split(',')) : values.length === 1 ? values[0] : values);
      } else {
        const obj = (seen.get(owner) as Obj | undefined) ?? {};
        obj[deep![2]!] = values.length === 1 ? values[0] : values;
        seen.set(owner, obj);
      }
    }
    for (const p of q) {
      if (p.required && !seen.has(p)) out.push(`required query parameter \`${p.name}\` missing`);
      if (!seen.has(p)) continue;
      const e = this.errors(`${key}?${p.name}`, p.schema ?? {}, seen.get(p), true);
      if (e) out.push(`query parameter \`${p.name}\`=${JSON.stringify(seen.get(p))}: ${e}`);
    }
    return out;
  }

  private bodyProblems(key: string, op: Obj, ex: RecordedExchange): string[] {
    const body = this.deref<Obj | undefined>(op.requestBody);
    if (!isObj(body)) return ex.body.length ? ['a request body, where the operation takes none'] : [];
    const type = mediaType(ex.headers['content-type']);
    const content = isObj(body.content) ? body.content : {};
    const media = content[type];
    if (!isObj(media)) return [`request content type \`${type || 'none'}\`; the operation takes ${Object.keys(content).join(', ')}`];
    let value: unknown;
    try {
      value =
        type === 'application/x-www-form-urlencoded' ? Object.fromEntries(new URLSearchParams(ex.body.toString('utf8'))) : JSON.parse(ex.body.toString('utf8'));
    } catch {
      return ['request body is not valid JSON'];
    }
    const e = this.errors(`${key} body ${type}`, media.schema ?? {}, value, type === 'application/x-www-form-urlencoded');
    return e ? [`request body: ${e}`] : [];
  }

  private responseProblems(key: string, op: Obj, ex: RecordedExchange): string[] {
    const responses = isObj(op.responses) ? op.responses : {};
    const r = this.deref<Obj | undefined>(responses[String(ex.status)] ?? responses[`${String(ex.status)[0]}XX`] ?? responses.default);
    // An error status a description leaves out (Personio's auth describes only its 200) has no
    // schema to hold the answer to; a success or redirect it leaves out is a departure.
    if (!isObj(r)) return ex.status >= 400 ? [] : [`answer status ${ex.status} is not described (described: ${Object.keys(responses).join(', ')})`];
    const content = isObj(r.content) ? r.content : undefined;
    if (!content || ex.responseBody.length === 0) return [];
    const type = mediaType(ex.responseHeaders['content-type']);
    const media = content[type];
    if (!isObj(media)) return [`answer ${ex.status} content type \`${type}\` is not described (${Object.keys(content).join(', ')})`];
    if (!media.schema || !type.includes('json')) return [];
    let value: unknown;
    try {
      value = JSON.parse(ex.responseBody.toString('utf8'));
    } catch {
      return [`answer ${ex.status} is not valid JSON`];
    }
    const e = this.errors(`${key} -> ${ex.status} ${type}`, media.schema, value);
    return e ? [`answer ${ex.status}: ${e}`] : [];
  }

  /**
   * Every way `ex` departs from the description, each a sentence starting with `METHOD path`;
   * empty when the request and its answer are both as described.
   */
  check(ex: RecordedExchange): string[] {
    const url = new URL(ex.url, 'http://sim.invalid');
    const head = `${ex.method} ${url.pathname}`;
    const m = this.match(ex.method, url.pathname);
    if (!m) return [`${head}: no operation in the description`];
    const key = `${ex.method} ${m.template}`;
    const declared = this.params(m);
    const out: string[] = [];
    for (const [name, value] of Object.entries(m.pathValues)) {
      const p = declared.find((d) => d.in === 'path' && d.name === name);
      const e = p ? this.errors(`${key}/{${name}}`, p.schema ?? {}, value, true) : 'not declared';
      if (e) out.push(`path parameter \`${name}\`=${JSON.stringify(value)}: ${e}`);
    }
    out.push(...this.queryProblems(key, url.searchParams, declared));
    const sec = this.security(m.op, ex.headers);
    if (sec) out.push(sec);
    out.push(...this.bodyProblems(key, m.op, ex), ...this.responseProblems(key, m.op, ex));
    return out.map((p) => `${head}: ${p}`);
  }

  /** Every problem of every exchange. */
  checkAll(exchanges: readonly RecordedExchange[]): string[] {
    return exchanges.flatMap((ex) => this.check(ex));
  }

  /** The `operationId`s (else `METHOD template`) the exchanges used, each once, in order. */
  operations(exchanges: readonly RecordedExchange[]): string[] {
    const ids = exchanges.map((ex) => {
      const m = this.match(ex.method, new URL(ex.url, 'http://sim.invalid').pathname);
      return m ? (typeof m.op.operationId === 'string' ? m.op.operationId : `${ex.method} ${m.template}`) : `? ${ex.method} ${ex.url}`;
    });
    return [...new Set(ids)];
  }
}
