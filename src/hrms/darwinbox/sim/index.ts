/**
 * The Darwinbox simulator (`hrx hrms-sim --dialect darwinbox`; the sources in src/hrms/darwinbox/README.md):
 * - `POST` (and `GET` with a JSON body) `/masterapi/employee`: Basic auth (API user and password)
 *   AND `api_key` + `datasetKey` in the body. A wrong password: 401. A wrong key: HTTP 200
 *   `{status: 0, message}` or 401 (switch `badKeyAnswer`, research `?`).
 * - The whole dataset in one response (`{status: 1, message, employee_data: [...]}`), written as
 *   a stream (memory flat at any size); active employees in one dataset, exited ones only in the
 *   inactive one; filters `employee_ids` and `last_modified` (`dd-mm-yyyy[ HH:MM:SS]`, read in
 *   the zone of switch `lastModifiedZone`: `IST` default, or `UTC`: research `?`).
 * - Mixed date formats, `"Name (ID)"` managers, switches of `rows.ts` (`dateFormat`,
 *   `nestedAddresses`, `personalColumns`, `statusWords`), `methods` (`both` default, `get`, `post`).
 * - Throttling (no published signal, research `?`): past `limitPerMinute` (default 60, hrx's
 *   budget) requests in 60 s, or by the `rateThrottle` fault: `throttleStatus` (429 default, or
 *   503) with `Retry-After: retryAfterSec` (default 1; 0 = none).
 * - Faults: latency before the answer (a slow response), 5xx, and `breakAfter(n)`: the next
 *   answer's connection is cut after `n` employees (a listing must resume without losing any).
 * - `POST /payrollapi/ctcbreakup` (`payroll.ts`: salaries with a payroll API key of its own; its
 *   switches `payroll`, `payrollEnvelope`, `payrollIdKey`, `payrollTotals`, `payrollPeriod`,
 *   `payrollBreakup`), counted against the same limit and faults.
 * No tokens: every request authenticates itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DialectSim, DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { basicOk, dialectSim, json, readBody, REVISION_NUMBERED, sameSecret as same, SimCore, Staff, unpublishedThrottle, type Reply } from '../../sim/kit';
import { darwinboxExpected, darwinboxRow, isInactive, type DarwinboxRowVariants } from './rows';
import { PAYROLL_KEY, PAYROLL_PATH, payrollExpected, payrollRoute, payrollVariants } from './payroll';

const USER = 'hrx-api-user';
const PASSWORD = 'dbx-api-password';
const API_KEY = 'dbx-api-key-7f3a';
const ACTIVE_KEY = 'dbx-dataset-active-91c2';
const INACTIVE_KEY = 'dbx-dataset-inactive-4be8';
/** Every employee's last modification before the simulator starts (fixed: data never depends on the clock). */
const BASE_MODIFIED = Date.UTC(2025, 11, 1, 4, 30);
const IST_MS = 5.5 * 3_600_000;

/** The Darwinbox simulator's own controls, beyond `DialectSim`. */
export interface DarwinboxSim extends DialectSim {
  /** Cuts the connection of the next dataset answer after `employees` rows (once). */
  breakAfter(employees: number): void;
  /** Data requests received, by dataset (`active`/`inactive`) and method. */
  calls(): { dataset: 'active' | 'inactive'; method: string; lastModified?: string; ids?: number }[];
  /** ctcbreakup requests received, with the number of ids each asked for. */
  payrollCalls(): { ids: number }[];
}

/** `dd-mm-yyyy[ HH:MM:SS]` read in `zone` as an instant (ms); undefined when malformed. */
function parseLastModified(v: unknown, zone: 'IST' | 'UTC'): number | undefined {
  const m = typeof v === 'string' ? /^(\d{2})-(\d{2})-(\d{4})(?: (\d{2}):(\d{2}):(\d{2}))?$/.exec(v.trim()) : null;
  if (!m) return undefined;
  const wall = Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  return zone === 'IST' ? wall - IST_MS : wall;
}

/** An instant as `dd-mm-yyyy HH:MM:SS` IST (`latest_modified_timestamp`). */
function istStamp(ms: number): string {
  const d = new Date(ms + IST_MS),
    p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}-${p(d.getUTCMonth() + 1)}-${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** Starts the Darwinbox simulator. */
export const startDarwinboxSim = async (options: DialectSimOptions): Promise<DarwinboxSim> => {
  const v = options.variants ?? {};
  const rowVariants: DarwinboxRowVariants = {
    dateFormat: (['mixed', 'iso', 'dmy-dash', 'dmy-slash', 'dmy-mon'] as const).find((f) => f === v.dateFormat) ?? 'mixed',
    nestedAddresses: v.nestedAddresses === true,
    personalColumns: v.personalColumns === true,
    statusWords: v.statusWords === 'plain' ? 'plain' : 'darwinbox',
  };
  const badKeyAnswer = v.badKeyAnswer === 401 || v.badKeyAnswer === '401' ? 401 : 200;
  const zone = v.lastModifiedZone === 'UTC' ? 'UTC' : 'IST';
  const methods = v.methods === 'get' ? ['GET'] : v.methods === 'post' ? ['POST'] : ['GET', 'POST'];
  const throttling = unpublishedThrottle(v, 60);
  const core = new SimCore(options, throttling.limit, [], true);
  const staff = new Staff(options.seed, options.employees, { revision: REVISION_NUMBERED, unchangedAt: () => BASE_MODIFIED });
  let breakAt: number | undefined;
  let log: ReturnType<DarwinboxSim['calls']> = [];
  const payrollSwitches = payrollVariants(v);
  const payroll = payrollRoute({
    variants: payrollSwitches,
    userOk: (user, password) => same(user, USER) && same(password, PASSWORD),
    employee: (i) => (staff.isServed(i) ? staff.employee(i) : undefined),
    authFailed: () => {
      core.counters.authFailures += 1;
    },
    badKeyAnswer,
  });

  const served = (): readonly number[] => staff.served();

  /** Writes the dataset as a stream, waiting for the socket to drain. */
  async function writeDataset(res: ServerResponse, inactive: boolean, ids: Set<string> | null, since: number | undefined): Promise<void> {
    res.writeHead(200, { 'content-type': 'application/json' });
    const write = async (s: string): Promise<boolean> => {
      if (res.destroyed) return false;
      if (!res.write(s)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
      return !res.destroyed;
    };
    await write('{"status":1,"message":"Successfully loaded all employees data","employee_data":[');
    let n = 0;
    let buf = '';
    const cut = breakAt;
    breakAt = undefined;
    for (const i of served()) {
      const e = staff.employee(i);
      if (isInactive(e) !== inactive || (ids && !ids.has(e.employee_code))) continue;
      const modified = staff.modifiedAt(i);
      if (since !== undefined && modified < since) continue;
      if (cut !== undefined && n === cut) {
        if (buf) await write(buf);
        res.destroy();
        return;
      }
      buf += `${n > 0 ? ',' : ''}${JSON.stringify(darwinboxRow(e, i, istStamp(modified), rowVariants))}`;
      n += 1;
      if (buf.length > 32_768) {
        if (!(await write(buf))) return;
        buf = '';
      }
    }
    await write(`${buf}]}`);
    res.end();
  }

  const throttled = (): Reply => core.throttled(throttling.reply({ status: 0, message: 'Too many requests' }));
  const failed = (): Reply => json(500, { status: 0, message: 'Internal server error' });

  async function handle(req: IncomingMessage, url: URL, res: ServerResponse): Promise<Reply | void> {
    const inWindow = core.window.hit();
    const path = url.pathname;
    if (path === PAYROLL_PATH) return payroll.handle(req, () => core.gate(inWindow, throttled, failed));
    if (path !== '/masterapi/employee') return json(404, { status: 0, message: 'Not found' });
    if (!methods.includes(req.method ?? '')) return json(405, { status: 0, message: 'Method not allowed' });
    const stop = await core.gate(inWindow, throttled, failed);
    if (stop) return stop;
    if (!basicOk(core, req.headers.authorization, USER, PASSWORD)) return json(401, { status: 0, message: 'Unauthorized' });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse((await readBody(req)) ?? '') as Record<string, unknown>;
    } catch {
      return json(400, { status: 0, message: 'Invalid JSON body' });
    }
    const key = typeof body.datasetKey === 'string' ? body.datasetKey : undefined;
    const inactive = same(key, INACTIVE_KEY);
    if (!same(typeof body.api_key === 'string' ? body.api_key : undefined, API_KEY) || !(inactive || same(key, ACTIVE_KEY))) {
      core.counters.authFailures += 1;
      return json(badKeyAnswer, { status: 0, message: 'Invalid API key or dataset key' });
    }
    const ids = Array.isArray(body.employee_ids) && body.employee_ids.length > 0 ? new Set(body.employee_ids.map(String)) : null;
    const since = body.last_modified !== undefined ? parseLastModified(body.last_modified, zone) : undefined;
    if (body.last_modified !== undefined && since === undefined) return json(200, { status: 0, message: 'Invalid last_modified format' });
    log.push({
      dataset: inactive ? 'inactive' : 'active',
      method: req.method ?? '',
      ...(typeof body.last_modified === 'string' ? { lastModified: body.last_modified } : {}),
      ...(ids ? { ids: ids.size } : {}),
    });
    await writeDataset(res, inactive, ids, since);
  }

  const listener = await core.listen(handle);
  const dataset = (api_id: string, api_key: string) => ({ api_id, access_credentials: { hrms_host: listener.url, grant_type: 'basic', api_key } });
  return dialectSim(
    {
      hrmsId: 'darwinbox',
      url: listener.url,
      core,
      staff,
      issuesTokens: false,
      secret: PASSWORD,
      setupWith: (password) => ({
        access_credentials: { hrms_host: listener.url, grant_type: 'basic', client_id: USER, client_secret: password, api_key: API_KEY },
        api_configs: [
          dataset('employees_active', ACTIVE_KEY),
          dataset('employees_inactive', INACTIVE_KEY),
          ...(payrollSwitches.enabled ? [dataset('payroll', PAYROLL_KEY)] : []),
        ],
      }),
      expected: (i) => {
        const salaryDetails = payrollExpected(staff.employee(i), payrollSwitches);
        return { ...darwinboxExpected(staff.employee(i), rowVariants), ...(salaryDetails ? { salaryDetails } : {}) };
      },
      resetStats: () => {
        log = [];
        payroll.reset();
      },
    },
    {
      breakAfter(employees: number) {
        breakAt = employees;
      },
      calls: () => [...log],
      payrollCalls: payroll.calls,
    },
  );
};

/** `startDarwinboxSim` as a `DialectSimFactory` (`DIALECT_SIMS`). */
export const startDarwinboxDialect: DialectSimFactory = startDarwinboxSim;
