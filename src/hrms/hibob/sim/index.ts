/**
 * The HiBob simulator (`hrx hrms-sim --dialect hibob`), on the shared kit (src/hrms/sim/kit/). It
 * answers what HiBob's published description says (`hibob/openapi/rules.yaml`, "H:<line>"; where
 * the research notes differ, the description wins):
 * - HTTP Basic with the service user's id and token (H:13369-13372); 401 otherwise, with the
 *   description's error body `{key, error}` (H:8565-8578).
 * - `POST /v1/people/search` (H:7681-8580) with a JSON body `{fields, filters?, showInactive?}`:
 *   `{employees: [...]}`, the whole company in one answer (no paging), each employee in machine
 *   format (H:7912-8345) with the fields asked that have a value: root fields (`root.id`,
 *   `root.fullName`, `root.email`) at the top, Work fields (`work.startDate`, `work.title`,
 *   `work.department`, `work.reportsTo`, `work.workMobile`) under `work`. Exited employees only
 *   with `showInactive: true` (H:7756-7761). Filters: at most one, `root.id` or `root.email`,
 *   `equals`, values not empty (H:7728-7754); anything else is 400 with `{key, error}`.
 * - Ids are backend ids, 19 decimal digits (H:6242-6243).
 * - Throttling: past `limitPerMinute` (default 50, the published limit:
 *   https://apidocs.hibob.com/docs/rate-limit) searches in 60 s, or the `rateThrottle` fault:
 *   429 with `X-RateLimit-Reset` (epoch seconds when the wait ends: `retryAfterSec`, default 1,
 *   or the `throttleLockoutMs` fault) and, with the switch `retryAfter: true`, `Retry-After` too.
 * - Faults are eager (the first search already meets one: a sync asks twice).
 * - Switches: `errorStatus` (400, 403 or 500): every authenticated search answers that status with
 *   `{key, error}`, as HiBob answers a request it refuses. Faults: latency, 5xx. No tokens.
 */
import type { IncomingMessage } from 'node:http';
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeCode, type NativeEmployee } from '../../sim/data';
import type { DialectSim, DialectSimOptions } from '../../sim/dialect';
import { basicOk, dialectSim, isoOf, json, orNone, readBody, SimCore, Staff, tenDigits, Variants, type Reply } from '../../sim/kit';

const SERVICE_USER = 'SERVICE-4417';
const TOKEN = 'hibob-sim-token-8c2e41f0a9d3';
/** A HiBob backend id: 19 digits ending in the employee's index. */
const PREFIX = '3332883884017';
const idOf = (i: number): string => `${PREFIX}${String(i).padStart(6, '0')}`;
const codeOf = (id: string): string => (id.startsWith(PREFIX) && /^\d{19}$/.test(id) ? employeeCode(Number(id.slice(PREFIX.length))) : id);

/** HiBob's full name: first name and surname (H:7915-7917), no middle name. */
const nameOf = (e: NativeEmployee): string => `${e.first_name} ${e.last_name}`;

/** HiBob's error body (H:8565-8578). */
const error = (status: number, key: string, message: string): Reply => json(status, { key, error: message });

/** Every field HiBob holds of employee `i`, as the search's field paths name them (empty ones left out). */
function fieldsOf(e: NativeEmployee, i: number): Map<string, unknown> {
  const m = new Map<string, unknown>();
  const put = (path: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') m.set(path, v);
  };
  put('root.id', idOf(i));
  put('root.fullName', nameOf(e));
  put('root.email', e.official_email);
  put('work.startDate', isoOf(e.date_of_joining));
  put('work.title', e.designation);
  put('work.department', e.department);
  put('work.workMobile', e.mobile);
  if (e.reporting_manager) put('work.reportsTo', { displayName: e.reporting_manager.name, email: e.reporting_manager.email });
  return m;
}

/** Employee `i` in machine format with the asked `fields` only (H:7711-7727). */
function answer(e: NativeEmployee, i: number, fields: readonly string[]): Record<string, unknown> {
  const all = fieldsOf(e, i);
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = all.get(f);
    if (v === undefined) continue;
    const [category, name] = f.split('.') as [string, string];
    if (category === 'root') out[name] = v;
    else ((out[category] ??= {}) as Record<string, unknown>)[name] = v;
  }
  return out;
}

/** Ground truth of employee `i`, computed from the canonical employee (never through the connector's rows). */
function expected(e: NativeEmployee, i: number, active: boolean): PartialEmployeeRecord {
  return {
    employeeId: idOf(i),
    name: nameOf(e),
    email: orNone(e.official_email),
    status: active ? 'Active' : 'Inactive',
    doj: isoOf(e.date_of_joining),
    designation: orNone(e.designation),
    department: orNone(e.department),
    manager: e.reporting_manager?.name,
    managerEmail: e.reporting_manager?.email,
    mobileNumber: tenDigits(e.mobile),
  };
}

/** A search body as the description takes it (H:7708-7773), or the reason it is refused. */
interface Search {
  fields: string[];
  showInactive: boolean;
  filter?: { fieldPath: string; values: string[] };
}
function parseSearch(raw: string | null): Search | string {
  let body: unknown;
  try {
    body = JSON.parse(raw ?? '');
  } catch {
    return 'the body is not JSON';
  }
  if (typeof body !== 'object' || body === null) return 'the body is not an object';
  const b = body as { fields?: unknown; filters?: unknown; showInactive?: unknown };
  const fields = Array.isArray(b.fields) ? b.fields.filter((f): f is string => typeof f === 'string') : [];
  if (b.showInactive !== undefined && typeof b.showInactive !== 'boolean') return 'showInactive is a boolean';
  const filters = b.filters === undefined ? [] : b.filters;
  if (!Array.isArray(filters) || filters.length > 1) return 'only a single filter is supported';
  const [f] = filters as { fieldPath?: unknown; operator?: unknown; values?: unknown }[];
  if (f) {
    if (f.fieldPath !== 'root.id' && f.fieldPath !== 'root.email') return 'filters support root.id and root.email';
    if (f.operator !== 'equals') return 'filters support the operator equals';
    if (!Array.isArray(f.values) || f.values.length === 0) return 'filter values must not be empty';
  }
  return {
    fields,
    showInactive: b.showInactive === true,
    ...(f ? { filter: { fieldPath: f.fieldPath as string, values: (f.values as unknown[]).map(String) } } : {}),
  };
}

/** Starts the HiBob simulator. */
export async function startHibobSim(options: DialectSimOptions): Promise<DialectSim> {
  const v = new Variants(options.variants);
  const retryAfterSec = v.num('retryAfterSec', 1, 0);
  const sendRetryAfter = v.bool('retryAfter', false);
  const errorStatus = v.num('errorStatus', 0, 0);
  // Eager faults: a sync asks twice, so the first call already meets a fault.
  const core = new SimCore(options, { requests: v.num('limitPerMinute', 50, 1), windowMs: 60_000 }, [], true);
  const staff = new Staff(options.seed, options.employees);

  function throttled(): Reply {
    const waitMs = core.faults.throttleLockoutMs ?? retryAfterSec * 1000;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(core.limit.requests),
      'x-ratelimit-reset': String(Math.ceil((Date.now() + waitMs) / 1000)),
    };
    if (sendRetryAfter) headers['retry-after'] = String(Math.ceil(waitMs / 1000));
    return core.throttled(json(429, { key: 'too_many_requests', error: 'Too many requests' }, headers));
  }

  async function handle(req: IncomingMessage, url: URL): Promise<Reply> {
    const inWindow = core.window.hit();
    if (url.pathname !== '/v1/people/search' || req.method !== 'POST') return error(404, 'not_found', 'Not found');
    const stop = await core.gate(inWindow, throttled, () => error(500, 'internal_error', 'Internal server error'));
    if (stop) return stop;
    if (!basicOk(core, req.headers.authorization, SERVICE_USER, TOKEN)) return error(401, 'unauthorized', 'Unauthorized');
    if (errorStatus >= 400) return error(errorStatus, 'request_refused', 'The request was refused');
    if (req.headers['content-type']?.split(';')[0]?.trim() !== 'application/json') return error(400, 'bad_request', 'The body must be JSON');
    const search = parseSearch(await readBody(req, 1024 * 1024));
    if (typeof search === 'string') return error(400, 'bad_request', search);
    const wanted = search.filter ? new Set(search.filter.values) : undefined;
    const employees = staff
      .served()
      .filter((i) => search.showInactive || staff.working(i))
      .filter((i) => !wanted || wanted.has(search.filter!.fieldPath === 'root.id' ? idOf(i) : staff.employee(i).official_email))
      .map((i) => answer(staff.employee(i), i, search.fields));
    return json(200, { employees });
  }

  const { url } = await core.listen(handle);
  return dialectSim({
    hrmsId: 'hibob',
    url,
    core,
    staff,
    issuesTokens: false,
    secret: TOKEN,
    setupWith: (token) => ({
      access_credentials: { hrms_host: url, grant_type: 'basic', client_id: SERVICE_USER, client_secret: token },
      api_configs: [],
    }),
    expected: (i) => expected(staff.employee(i), i, staff.working(i)),
    idOf,
    codeOf,
  });
}
