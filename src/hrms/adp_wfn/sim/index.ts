/**
 * The ADP Workforce Now simulator (`hrx hrms-sim --dialect adp_wfn`), on the shared kit
 * (src/hrms/sim/kit/), answering what ADP's samples show (`../openapi/rules.yaml`, each rule with
 * its sample file and line; where the research notes differ, the samples win):
 * - `POST /auth/oauth/v2/token`, form `grant_type=client_credentials&client_id&client_secret` →
 *   `{access_token, token_type, expires_in}`; wrong credentials 401 `{error: "invalid_client"}`.
 * - `GET /hr/v2/workers?$top=&$skip=` → `{workers: [...]}` (Bearer), every worker whatever its
 *   status (a terminated one with `workerDates.terminationDate` and status `Terminated`); past the
 *   last worker HTTP 204 with no body. `GET /hr/v2/workers/{aoid}` → `{workers: [one]}`, 204 for an
 *   unknown one. A refused token: 401 with ADP's `response` body (the samples' 401).
 * - `GET /payroll/v2/payroll-output` → every payroll run (`payrollOutputs`); with `level=pay` and
 *   `$filter=itemID eq <id>` → that run with every worker's payments (`./payroll.ts`: a
 *   `payHistoryMonths` variant, default 36; an unknown item id is 400 `confirmMessage`, as ADP's).
 * - Masked birth dates (`0000-01-01`, the samples' default masking) for every 53rd worker.
 * - Switches: `tokenAnswer: html` (the token endpoint answers an HTML page, as a proxy or a login
 *   page would), `workersStatus: <4xx>` (the listing answers ADP's `confirmMessage` with that status).
 * - Mutual TLS: with `DialectSimOptions.tls` (a server certificate and `clientCa`) it serves HTTPS
 *   and the handshake requires a client certificate signed by `clientCa`, as ADP's production hosts do.
 * - Throttling (no published numbers): past `limitPerMinute` (default 60, hrx's budget) requests a
 *   minute, or the `rateThrottle` fault: 429 `confirmMessage` with `Retry-After: retryAfterSec`
 *   (default 1). Faults: latency, 5xx (500 `confirmMessage`), token expiry after N calls.
 */
import type { IncomingMessage } from 'node:http';
import type { PartialEmployeeRecord } from '../../../domain/record';
import type { PayMonthEntry } from '../../connector';
import { employeeCode, type NativeEmployee } from '../../sim/data';
import type { DialectSim, DialectSimOptions } from '../../sim/dialect';
import {
  bearerToken,
  credentialsOk,
  dialectSim,
  formParams,
  fullNameOf,
  GENDER_WORD,
  hasLeft,
  hasNoBirthDate,
  isoOf,
  isWorking,
  json,
  orNone,
  Reply,
  SimCore,
  Staff,
  tenDigits,
  tokenOk,
  Tokens,
  unpublishedThrottle,
} from '../../sim/kit';
import { ADP_PAYROLL_INR, ADP_WFN_MAX_PAGE } from '../connector';
import { AdpSimPayroll } from './payroll';

const CLIENT_ID = 'adp-wfn-sim-client';
const CLIENT_SECRET = 'adp-wfn-sim-secret-7c21';
const TOKEN_TTL_S = 3_600;

/** Worker `i`'s associate OID: `G3` and its number in base 36, 16 characters as ADP writes them. */
export const aoidOf = (i: number): string => `G3${i.toString(36).toUpperCase().padStart(14, '0')}`;
/** The employee code of an associate OID (`undefined` for another id). */
const codeOfAoid = (id: string): string | undefined => (/^G3[0-9A-Z]{14}$/.test(id) ? employeeCode(parseInt(id.slice(2), 36)) : undefined);

/** ADP's `confirmMessage` error body (`wfn/hr/Worker-read/errors/…-http-400-response.json`). */
function confirmMessage(status: number, messageTxt: string): Reply {
  return json(status, {
    confirmMessage: {
      protocolStatusCode: { codeValue: String(status), shortName: String(status) },
      requestStatusCode: { codeValue: 'failed' },
      requestMethodCode: { codeValue: 'GET' },
      resourceMessages: [{ processMessages: [{ messageTypeCode: { codeValue: 'error' }, userMessage: { messageTxt } }] }],
    },
  });
}

const MARITAL: Readonly<Record<string, [string, string]>> = {
  MARRIED: ['M', 'Married'],
  DIVORCED: ['D', 'Divorced'],
  SINGLE: ['S', 'Single'],
  WIDOWED: ['W', 'Widowed'],
};
const GENDER: Readonly<Record<string, [string, string]>> = { M: ['M', 'Male'], F: ['F', 'Female'], O: ['N', 'Not Specified'] };
const code = (pair: [string, string] | undefined) => (pair ? { codeValue: pair[0], shortName: pair[1] } : undefined);

/** Worker `i` (employee `e`) as ADP answers it (the samples' shape, W:<line> in rules.yaml). */
function worker(e: NativeEmployee, i: number): Record<string, unknown> {
  const left = hasLeft(e);
  const digits = tenDigits(e.mobile);
  const manager = e.reporting_manager;
  return {
    associateOID: aoidOf(i),
    workerID: { idValue: e.employee_code },
    person: {
      birthDate: hasNoBirthDate(i) ? '0000-01-01' : isoOf(e.date_of_birth),
      genderCode: code(GENDER[e.gender]),
      maritalStatusCode: code(MARITAL[e.marital_status]),
      legalName: {
        givenName: e.first_name,
        ...(e.middle_name ? { middleName: e.middle_name } : {}),
        familyName1: e.last_name,
        formattedName: `${e.last_name}, ${e.first_name}`,
      },
      ...(e.personal_email
        ? { communication: { emails: [{ nameCode: { codeValue: 'Personal E-mail', shortName: 'Personal E-mail' }, emailUri: e.personal_email }] } }
        : {}),
    },
    workerDates: { originalHireDate: isoOf(e.date_of_joining), ...(left && e.exit_date ? { terminationDate: isoOf(e.exit_date) } : {}) },
    workerStatus: { statusCode: { codeValue: left ? 'Terminated' : isWorking(e) ? 'Active' : 'Inactive' } },
    businessCommunication: {
      ...(digits
        ? {
            mobiles: [
              {
                nameCode: { codeValue: 'Work Cell', shortName: 'Work Cell' },
                countryDialing: '91',
                areaDialing: digits.slice(0, 5),
                dialNumber: digits.slice(5),
              },
            ],
          }
        : {}),
      ...(e.official_email ? { emails: [{ nameCode: { codeValue: 'Work E-mail', shortName: 'Work E-mail' }, emailUri: e.official_email }] } : {}),
    },
    workAssignments: [
      {
        primaryIndicator: true,
        hireDate: isoOf(e.date_of_joining),
        ...(left && e.exit_date ? { terminationDate: isoOf(e.exit_date) } : {}),
        assignmentStatus: { statusCode: left ? { codeValue: 'T', shortName: 'Terminated' } : { codeValue: 'A', shortName: 'Active' } },
        ...(e.designation ? { jobTitle: e.designation } : {}),
        ...(e.department
          ? {
              homeOrganizationalUnits: [
                {
                  nameCode: { codeValue: e.department.slice(0, 6).toUpperCase(), shortName: e.department },
                  typeCode: { codeValue: 'Department', shortName: 'Department' },
                },
              ],
            }
          : {}),
        ...(manager ? { reportsTo: [{ reportsToWorkerName: { formattedName: manager.name } }] } : {}),
      },
    ],
  };
}

/** Ground truth of worker `i` (employee `e`), computed from the canonical employee (never through the connector's rows). */
function expected(e: NativeEmployee, i: number): PartialEmployeeRecord {
  const left = hasLeft(e);
  return {
    employeeId: aoidOf(i),
    name: fullNameOf(e),
    email: orNone(e.official_email),
    personalEmail: orNone(e.personal_email),
    mobileNumber: tenDigits(e.mobile),
    doj: isoOf(e.date_of_joining),
    dob: hasNoBirthDate(i) ? undefined : isoOf(e.date_of_birth),
    terminationDate: left ? isoOf(e.exit_date) : undefined,
    status: left ? 'Terminated' : isWorking(e) ? 'Active' : 'Inactive',
    // ADP's N (Not Specified) and its single and widowed codes are not in the samples' words for hrx.
    gender: e.gender === 'O' ? undefined : GENDER_WORD[e.gender],
    maritalStatus: e.marital_status === 'MARRIED' ? 'Married' : e.marital_status === 'DIVORCED' ? 'Divorced' : undefined,
    designation: orNone(e.designation),
    department: orNone(e.department),
    manager: orNone(e.reporting_manager?.name),
  };
}

/** The ADP Workforce Now simulator: a dialect simulator with its payroll's ground truth. */
export interface AdpWfnSim extends DialectSim {
  /** The pay months a backfill of `months` months must yield (amounts only when `inr`: the `payroll_inr` declaration). */
  payMonths(months: number, inr: boolean): PayMonthEntry[];
  /** Data requests a backfill of `months` months costs: the run listing and each run read. */
  payrollRequests(months: number): number;
  /** The setup with the employer's declaration that the payroll is paid in rupees (`api_configs` entry `payroll_inr`). */
  setupInr(): ReturnType<DialectSim['setup']>;
}

/** Starts the ADP Workforce Now simulator. */
export async function startAdpWfnSim(options: DialectSimOptions): Promise<AdpWfnSim> {
  const v = options.variants ?? {};
  const throttling = unpublishedThrottle(v, 60);
  const tokens = new Tokens();
  const core = new SimCore(options, throttling.limit, [tokens]);
  const staff = new Staff(options.seed, options.employees);
  const workersStatus = Number(v.workersStatus ?? 0);
  const payroll = new AdpSimPayroll(options.seed, options.variants);

  /** The Payroll Output API: the run listing, or one run's payments (`level=pay`, `$filter=itemID eq <id>`). */
  function payrollOutput(url: URL): Reply {
    const params = [...url.searchParams.keys()];
    if (params.length === 0) return json(200, { payrollOutputs: payroll.runs.map((r) => payroll.renderRun(r)) });
    const filter = /^itemID eq (\S+)$/.exec(url.searchParams.get('$filter') ?? '');
    if (url.searchParams.get('level') !== 'pay' || !filter || params.some((k) => k !== 'level' && k !== '$filter')) {
      return confirmMessage(400, 'queryParameter is invalid.');
    }
    const run = payroll.run(filter[1]!);
    if (!run) return confirmMessage(400, 'INFO: Invalid Item ID.');
    const associatePayments = staff.served().flatMap((i) => {
      const p = payroll.payment(i, staff.employee(i), run);
      return p ? [payroll.renderPayment(aoidOf(i), run, p)] : [];
    });
    return json(200, { payrollOutputs: [{ ...payroll.renderRun(run), associatePayments }] });
  }

  async function token(req: IncomingMessage, url: URL): Promise<Reply> {
    core.counters.tokenRequests += 1;
    if (v.tokenAnswer === 'html') return new Reply(200, '<html><body>Sign in to ADP</body></html>', { 'content-type': 'text/html' });
    const form = await formParams(req, url);
    if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
    if (!credentialsOk(core, form, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET })) {
      return json(401, { error: 'invalid_client', error_description: 'The given client credentials were not valid' });
    }
    return json(200, { access_token: tokens.issue(TOKEN_TTL_S * 1000), token_type: 'Bearer', expires_in: TOKEN_TTL_S, scope: 'api' });
  }

  async function handle(req: IncomingMessage, url: URL): Promise<Reply> {
    if (url.pathname === '/auth/oauth/v2/token' && req.method === 'POST') return token(req, url);
    const inWindow = core.window.hit();
    const m = /^\/hr\/v2\/workers(?:\/([^/]+))?$/.exec(url.pathname);
    const isPayroll = url.pathname === '/payroll/v2/payroll-output';
    if ((!m && !isPayroll) || req.method !== 'GET') return confirmMessage(404, 'Resource not found');
    const stop = await core.gate(
      inWindow,
      () => core.throttled(throttling.reply({ confirmMessage: { protocolStatusCode: { codeValue: '429' }, requestStatusCode: { codeValue: 'failed' } } })),
      () => confirmMessage(500, 'Internal server error'),
    );
    if (stop) return stop;
    if (!tokenOk(core, tokens, bearerToken(req.headers.authorization))) {
      return json(401, {
        response: {
          responseCode: 401,
          methodCode: 'GET',
          resourceUri: { href: url.pathname },
          applicationCode: { code: 401, typeCode: 'error', message: 'Unauthorized' },
        },
      });
    }
    if (isPayroll || !m) return payrollOutput(url);
    if (m[1] !== undefined) {
      const c = codeOfAoid(decodeURIComponent(m[1]));
      const i = c === undefined ? undefined : staff.indexOf(c);
      return i === undefined ? new Reply(204, '') : json(200, { workers: [worker(staff.employee(i), i)] });
    }
    if (workersStatus >= 400) return confirmMessage(workersStatus, 'queryParameter is invalid.');
    for (const [k] of url.searchParams) if (k !== '$top' && k !== '$skip') return confirmMessage(400, 'queryParameter is invalid.');
    const top = Math.min(ADP_WFN_MAX_PAGE, Math.max(1, Number(url.searchParams.get('$top') ?? ADP_WFN_MAX_PAGE) || ADP_WFN_MAX_PAGE));
    const skip = Math.max(0, Number(url.searchParams.get('$skip') ?? 0) || 0);
    const slice = staff.served().slice(skip, skip + top);
    if (slice.length === 0) return new Reply(204, '');
    return json(200, { workers: slice.map((i) => worker(staff.employee(i), i)) });
  }

  const { url } = await core.listen(handle);
  const sim = dialectSim(
    {
      hrmsId: 'adp_wfn',
      url,
      core,
      staff,
      issuesTokens: true,
      secret: CLIENT_SECRET,
      setupWith: (secret) => ({
        access_credentials: { hrms_host: url, grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: secret },
        api_configs: [],
      }),
      expected: (i) => expected(staff.employee(i), i),
      idOf: aoidOf,
      codeOf: (id) => codeOfAoid(id) ?? id,
    },
    {
      payMonths: (months: number, inr: boolean) => payroll.expected(staff.served(), (i) => staff.employee(i), aoidOf, months, inr),
      payrollRequests: (months: number) => payroll.requestsFor(months),
      setupInr: () => {
        const s = sim.setup();
        return { ...s, api_configs: [...s.api_configs, { api_id: ADP_PAYROLL_INR, access_credentials: { hrms_host: url, grant_type: 'client_credentials' } }] };
      },
    },
  );
  return sim;
}
