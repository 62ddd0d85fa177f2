/**
 * The BambooHR simulator (`hrx hrms-sim --dialect bamboohr`): it answers what BambooHR's own
 * OpenAPI description says (`bamboohr/openapi/public.yaml`, "Y:<line>"; where the research notes
 * differ, the description wins):
 * - Basic auth with the API key as user name (any password); 401 for an unknown key.
 * - `POST {prefix}/reports/custom?format=json` (Y:8512-8590): a JSON body (`Content-Type:
 *   application/json` exactly, else 400 as the description warns) `{fields, filters?:
 *   {employeeIds}}` → `{title, fields, employees}`, every employee whatever its status, each row
 *   `id` plus the fields asked that have a value, as strings. Field ids are aliases (Y:8562): the
 *   date of birth and marital status are `dateOfBirth` and `maritalStatus` there, and an id the
 *   report does not know (Get Employee's `birthDate`, `marital`) is silently omitted (Y:8518).
 * - `GET {prefix}/employees/changed?since=` (Y:8398-8447: `{latest, employees: {id: {id, action,
 *   lastChanged}}}`, actions Inserted, Updated, Deleted) and `GET {prefix}/employees/{id}?fields=`
 *   (Y:7772-7830: `id` and the fields asked, `null` when empty).
 * - `GET {prefix}/employees` (list-employees) accepts OAuth only (Y:4934-4949): an API key there is
 *   401, as BambooHR answers it.
 * - `{prefix}`: `/api/v1` (default) or the legacy `/api/gateway.php/{companyDomain}/v1` (switch
 *   `prefix: gateway`).
 * - `terminationDate` and blank dates `0000-00-00`; an exited employee's `employmentStatus` is
 *   `Terminated`; switches of `rows.ts` (`supervisorFormat`, `restrictedFields` as a comma list,
 *   `payPer` year|month, `payCurrency` (three letters, default INR), `payRateFormat`
 *   amount-code|code-amount).
 * - Throttling (no published numbers): past `limitPerMinute` (default 60, hrx's budget) requests in
 *   60 s, or by the `rateThrottle` fault: `throttleStatus` 429 (default; BambooHR from 2026-09-16)
 *   or 503 (before), with `Retry-After: retryAfterSec` (default 1).
 * - Faults: latency, 5xx (500). No tokens: the key authenticates every request.
 */
import type { IncomingMessage } from 'node:http';
import { employeeCode } from '../../sim/data';
import type { DialectSim, DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { basicOk, dialectSim, json, readBody, Reply, REVISION_NUMBERED, SimCore, Staff, unpublishedThrottle } from '../../sim/kit';
import { bambooEmployee, bambooExpected, bambooFields, bambooReportRow, reportSource, type BambooRowVariants } from './rows';

const API_KEY = 'bhr-4f0c2a9e7d1b5c3a8e6f';
/** Every employee's last change before the simulator starts (fixed: data never depends on the clock). */
const BASE_CHANGED = Date.UTC(2025, 11, 1, 9, 0);

/** The BambooHR simulator's own controls, beyond `DialectSim`. */
export interface BambooHrSim extends DialectSim {
  /** Paths (with query) of the requests received since start or `resetStats`. */
  paths(): string[];
}

/** Starts the BambooHR simulator. */
export const startBambooHrSim = async (options: DialectSimOptions): Promise<BambooHrSim> => {
  const v = options.variants ?? {};
  const rowVariants: BambooRowVariants = {
    supervisorFormat: v.supervisorFormat === 'last-first' ? 'last-first' : 'first-last',
    restrictedFields: typeof v.restrictedFields === 'string' ? v.restrictedFields.split(',').filter(Boolean) : [],
    payPer: v.payPer === 'month' ? 'Month' : 'Year',
    payCurrency: typeof v.payCurrency === 'string' && /^[A-Z]{3}$/.test(v.payCurrency) ? v.payCurrency : 'INR',
    payRateCodeFirst: v.payRateFormat === 'code-amount',
  };
  const gateway = v.prefix === 'gateway';
  const throttling = unpublishedThrottle(v, 60);
  const core = new SimCore(options, throttling.limit, [], true);
  const staff = new Staff(options.seed, options.employees, { revision: REVISION_NUMBERED, unchangedAt: () => BASE_CHANGED });
  let paths: string[] = [];

  const exists = (i: number): boolean => staff.isServed(i);

  /** The custom report (Y:8512-8590). */
  async function report(req: IncomingMessage, url: URL): Promise<Reply> {
    const format = url.searchParams.get('format');
    if (format !== null && format.toLowerCase() !== 'json') return json(404, { error: 'Report format not found' });
    if (format === null && req.headers.accept !== 'application/json') return json(404, { error: 'Report format not found' });
    if (req.headers['content-type'] !== 'application/json') return json(400, { error: 'Malformed XML' });
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req, 1024 * 1024)) ?? '');
    } catch {
      return json(400, { error: 'Malformed JSON' });
    }
    const asked = typeof body === 'object' && body !== null ? (body as { fields?: unknown; filters?: { employeeIds?: unknown } }) : {};
    if (!Array.isArray(asked.fields) || asked.fields.length > 400) return json(400, { error: 'fields: 1 to 400 field ids' });
    const fields = asked.fields.filter((f): f is string => typeof f === 'string');
    const only = Array.isArray(asked.filters?.employeeIds) ? new Set(asked.filters.employeeIds.map(Number)) : undefined;
    const employees = staff
      .served()
      .filter((i) => !only || only.has(i))
      .map((i) => bambooReportRow(bambooFields(staff.employee(i), i, rowVariants), fields, rowVariants));
    const known = fields.filter((id) => reportSource(id) !== undefined);
    return json(200, { title: 'hrx', fields: known.map((id) => ({ id, type: 'text', name: id })), employees });
  }

  function changed(url: URL): Reply {
    const since = Date.parse(url.searchParams.get('since') ?? '');
    if (Number.isNaN(since)) return json(400, { error: 'since must be an ISO 8601 date' });
    const employees: Record<string, unknown> = {};
    const stamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    for (let i = 1; i <= options.employees; i++) {
      const gone = staff.deletedAt(i);
      const at = gone ?? staff.modifiedAt(i);
      if (at < since) continue;
      employees[String(i)] = { id: String(i), action: gone !== undefined ? 'Deleted' : 'Updated', lastChanged: stamp(at) };
    }
    return json(200, { latest: stamp(Date.now()), employees });
  }

  const throttled = (): Reply => core.throttled(throttling.reply({ error: 'Too many requests' }));

  async function handle(req: IncomingMessage, url: URL): Promise<Reply> {
    const inWindow = core.window.hit();
    paths.push(`${url.pathname}${url.search}`);
    const m = (gateway ? /^\/api\/gateway\.php\/[^/]+\/v1\/(.*)$/ : /^\/api\/v1\/(.*)$/).exec(url.pathname);
    const isReport = m?.[1] === 'reports/custom';
    if (!m || req.method !== (isReport ? 'POST' : 'GET')) return json(404, { error: 'Not found' });
    const stop = await core.gate(inWindow, throttled, () => json(500, { error: 'Internal server error' }));
    if (stop) return stop;
    if (!basicOk(core, req.headers.authorization, API_KEY)) {
      return new Reply(401, 'Unauthorized', { 'www-authenticate': 'Basic realm="BambooHR"', 'content-type': 'text/plain' });
    }
    const path = m[1]!;
    // list-employees accepts OAuth only (Y:4934-4949): the API key is refused there.
    if (path === 'employees') return new Reply(401, '', { 'www-authenticate': 'Bearer realm="BambooHR"' });
    if (isReport) return report(req, url);
    if (path === 'employees/changed') return changed(url);
    const one = /^employees\/(\d+)$/.exec(path);
    if (one && exists(Number(one[1]))) {
      const i = Number(one[1]);
      const fields = url.searchParams.get('fields')?.split(',').filter(Boolean) ?? ['firstName', 'lastName'];
      if (fields.length > 400) return json(400, { error: 'more than 400 fields' });
      return json(200, bambooEmployee(bambooFields(staff.employee(i), i, rowVariants), fields, rowVariants));
    }
    return json(404, { error: 'Not found' });
  }

  const listener = await core.listen(handle);
  const host = gateway ? `${listener.url}/api/gateway.php/acme` : listener.url;
  /** The employee code of a BambooHR id (`7`) or of a code (`EMP00007`). */
  const codeOf = (id: string): string => (/^\d+$/.test(id) ? employeeCode(Number(id)) : id);
  return dialectSim(
    {
      hrmsId: 'bamboohr',
      url: host,
      core,
      staff,
      issuesTokens: false,
      secret: API_KEY,
      wrongSecret: 'bhr-unknown-key',
      setupWith: (key) => ({ access_credentials: { hrms_host: host, grant_type: 'api_key', api_key: key }, api_configs: [] }),
      expected: (i) => bambooExpected(staff.employee(i), i, rowVariants),
      idOf: String,
      codeOf,
      resetStats: () => {
        paths = [];
      },
    },
    { paths: () => [...paths] },
  );
};

/** `startBambooHrSim` as a `DialectSimFactory` (`DIALECT_SIMS`). */
export const startBambooHrDialect: DialectSimFactory = startBambooHrSim;
