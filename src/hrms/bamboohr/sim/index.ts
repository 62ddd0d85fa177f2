/**
 * The BambooHR simulator (`hrx hrms-sim --dialect bamboohr`; research hrms-dialects.md §5 and §9
 * "BambooHR simulator"):
 * - Basic auth with the API key as user name (any password); 401 for an unknown key.
 * - `GET {prefix}/employees` with `fields`, `filter[status]`, `filter[ids]`, `page[limit]` (1–2500,
 *   default 250; else 400) and `page[after]`; `{data, meta: {page: {nextCursor, prevCursor}}}`.
 *   Without `filter[status]`: everyone, or only active employees (switch `defaultStatus`: `all`
 *   default, `active`; research `?`).
 * - `GET {prefix}/employees/changed?since=` (`{latest, employees: {id: {id, action, lastChanged}}}`,
 *   actions Inserted, Updated, Deleted) and `GET {prefix}/employees/{id}?fields=`.
 * - `{prefix}`: `/api/v1` (default) or the legacy `/api/gateway.php/{companyDomain}/v1` (switch
 *   `prefix: gateway`).
 * - `terminationDate` and blank dates `0000-00-00`; switches of `rows.ts` (`supervisorFormat`,
 *   `newFieldNames`, `restrictedFields` as a comma list, `payPer` year|month, `payCurrency` (three
 *   letters, default INR), `payRateFormat` amount-code|code-amount).
 * - Throttling (no published numbers): past `limitPerMinute` (default 60, hrx's budget) requests in
 *   60 s, or by the `rateThrottle` fault: `throttleStatus` 429 (default; BambooHR from 2026-09-16)
 *   or 503 (before), with `Retry-After: retryAfterSec` (default 1).
 * - Faults: latency, 5xx (500). No tokens: the key authenticates every request.
 */
import type { IncomingMessage } from 'node:http';
import { employeeCode } from '../../sim/data';
import type { DialectSim, DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { basicCredentials, json, Reply, REVISION_NUMBERED, sameSecret, SimCore, Staff, unpublishedThrottle } from '../../sim/kit';
import { bambooEmployee, bambooExpected, bambooFields, bambooInactive, type BambooRowVariants } from './rows';

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
    newFieldNames: v.newFieldNames === true,
    restrictedFields: typeof v.restrictedFields === 'string' ? v.restrictedFields.split(',').filter(Boolean) : [],
    payPer: v.payPer === 'month' ? 'Month' : 'Year',
    payCurrency: typeof v.payCurrency === 'string' && /^[A-Z]{3}$/.test(v.payCurrency) ? v.payCurrency : 'INR',
    payRateCodeFirst: v.payRateFormat === 'code-amount',
  };
  const gateway = v.prefix === 'gateway';
  const activeOnlyByDefault = v.defaultStatus === 'active';
  const throttling = unpublishedThrottle(v, 60);
  const core = new SimCore(options, throttling.limit, [], true);
  const staff = new Staff(options.seed, options.employees, { revision: REVISION_NUMBERED, unchangedAt: () => BASE_CHANGED });
  let paths: string[] = [];

  const exists = (i: number): boolean => staff.isServed(i);

  function list(url: URL): Reply {
    const q = url.searchParams;
    const limitParam = q.get('page[limit]');
    const size = limitParam === null ? 250 : Number(limitParam);
    if (!Number.isInteger(size) || size < 1 || size > 2500) return json(400, { error: 'page[limit] must be 1 to 2500' });
    const status = q.get('filter[status]') ?? (activeOnlyByDefault ? 'active' : null);
    const ids = q.get('filter[ids]')?.split(',').map(Number) ?? null;
    const fields = q.get('fields')?.split(',').filter(Boolean) ?? null;
    const after = q.get('page[after]');
    let from = 1;
    if (after !== null) {
      const n = Number(Buffer.from(after, 'base64url').toString('utf8'));
      if (!Number.isInteger(n) || n < 1) return json(400, { error: 'invalid page[after]' });
      from = n + 1;
    }
    const data: Record<string, unknown>[] = [];
    let last = 0;
    let more = false;
    for (let i = from; i <= options.employees; i++) {
      if (!exists(i) || (ids && !ids.includes(i))) continue;
      const e = staff.employee(i);
      if (status !== null && (status === 'inactive') !== bambooInactive(e)) continue;
      if (data.length === size) {
        more = true;
        break;
      }
      data.push(bambooEmployee(bambooFields(e, i, rowVariants), fields, rowVariants));
      last = i;
    }
    const nextCursor = more ? Buffer.from(String(last)).toString('base64url') : null;
    return json(200, { data, meta: { page: { nextCursor, prevCursor: after } } });
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
    if (!m || req.method !== 'GET') return json(404, { error: 'Not found' });
    const stop = await core.gate(inWindow, throttled, () => json(500, { error: 'Internal server error' }));
    if (stop) return stop;
    const auth = basicCredentials(req.headers.authorization);
    if (!auth || !sameSecret(auth.user, API_KEY)) {
      core.counters.authFailures += 1;
      return new Reply(401, 'Unauthorized', { 'www-authenticate': 'Basic realm="BambooHR"', 'content-type': 'text/plain' });
    }
    const path = m[1]!;
    if (path === 'employees') return list(url);
    if (path === 'employees/changed') return changed(url);
    const one = /^employees\/(\d+)$/.exec(path);
    if (one && exists(Number(one[1]))) {
      const i = Number(one[1]);
      const fields = url.searchParams.get('fields')?.split(',').filter(Boolean) ?? ['firstName', 'lastName'];
      return json(200, bambooEmployee(bambooFields(staff.employee(i), i, rowVariants), fields, rowVariants));
    }
    return json(404, { error: 'Not found' });
  }

  const listener = await core.listen(handle);
  const host = gateway ? `${listener.url}/api/gateway.php/acme` : listener.url;
  const setup = (key: string) => ({ hrms_id: 'bamboohr', access_credentials: { hrms_host: host, grant_type: 'api_key', api_key: key }, api_configs: [] });
  const served = (): readonly number[] => staff.served();
  /** The employee code of a BambooHR id (`7`) or of a code (`EMP00007`). */
  const code = (id: string): string => (/^\d+$/.test(id) ? employeeCode(Number(id)) : id);
  return {
    hrmsId: 'bamboohr',
    url: host,
    issuesTokens: false,
    setup: () => setup(API_KEY),
    wrongSetup: () => setup('bhr-unknown-key'),
    expected: () => served().map((i) => bambooExpected(staff.employee(i), i, rowVariants)),
    employeeIds: () => served().map(String),
    change: (id) => staff.change(code(id)),
    remove: (id) => staff.remove(code(id)),
    setFaults: (faults) => core.setFaults(faults),
    revokeTokens() {
      /* an API key on every request: no tokens to revoke */
    },
    paths: () => [...paths],
    stats: () => core.stats(),
    resetStats() {
      core.resetStats();
      paths = [];
    },
    close: () => core.close(),
  };
};

/** `startBambooHrSim` as a `DialectSimFactory` (`DIALECT_SIMS`). */
export const startBambooHrDialect: DialectSimFactory = startBambooHrSim;
