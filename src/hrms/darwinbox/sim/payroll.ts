/**
 * The Darwinbox simulator's payroll API (the sources in src/hrms/darwinbox/README.md, source strength
 * S): `POST /payrollapi/ctcbreakup` with Basic auth (the API user, as on the Employee Master API)
 * and `{api_key, employee_no: [≤ 500], last_modified: "dd-mm-yyyy", proration_type}` in the body;
 * the payroll API key is its own. A wrong key: HTTP 200 `{status: 0}` or 401 (the simulator's
 * `badKeyAnswer` switch); more than 500 ids: 400 `{status: 0}`. Salaries are the canonical
 * employee's compensation (`sim/data.ts`); an employee without one has no CTC record.
 *
 * The answer's shape is not known for certain (research `?`), so each guess is a switch
 * (`DialectSimOptions.variants`):
 * - `payrollEnvelope`: `data` (default: `{status: 1, message, data: [...]}`), `employee_data`, `bare` (an array)
 * - `payrollIdKey`: `employee_no` (default) or `employee_id`
 * - `payrollTotals`: `standard` (default: `ctc_total`, `fixed_ctc`, `variable_pay` as numbers),
 *   `alt` (`total_ctc`, `fixed_pay`, `variable_ctc` as Indian-grouped text `"12,34,567.00"`),
 *   `derive` (`ctc_total` and `variable_pay` only), `masked` (`ctc_total` and `fixed_ctc` `"****"`)
 * - `payrollPeriod`: `ctc_break_up` amounts per `monthly` (default: a twelfth, to the paisa) or `annual`
 * - `payrollBreakup`: `nested` (default: `ctc_break_up: {"Basic": …}`) or `dotted` (`"ctc_break_up.Basic": …`)
 * - `payroll: false`: `setup()` carries no payroll entry (and the ground truth no salary)
 */
import type { IncomingMessage } from 'node:http';
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeIndex, type NativeEmployee } from '../../sim/data';
import type { DialectSimOptions } from '../../sim/dialect';
import { basicCredentials, json, readBody, sameSecret, type Reply } from '../../sim/kit';

/** The route the payroll API answers. */
export const PAYROLL_PATH = '/payrollapi/ctcbreakup';
/** The simulated tenant's payroll API key. */
export const PAYROLL_KEY = 'dbx-payroll-key-5d17';

/** The payroll switches (module comment). */
export interface PayrollVariants {
  enabled: boolean;
  envelope: 'data' | 'employee_data' | 'bare';
  idKey: 'employee_no' | 'employee_id';
  totals: 'standard' | 'alt' | 'derive' | 'masked';
  period: 'monthly' | 'annual';
  breakup: 'nested' | 'dotted';
}

/** The switches from `DialectSimOptions.variants`, defaults for absent or unknown values. */
export function payrollVariants(v: NonNullable<DialectSimOptions['variants']>): PayrollVariants {
  const one = <T extends string>(value: unknown, allowed: readonly T[]): T => allowed.find((a) => a === value) ?? allowed[0]!;
  return {
    enabled: v.payroll !== false && v.payroll !== 'false',
    envelope: one(v.payrollEnvelope, ['data', 'employee_data', 'bare'] as const),
    idKey: one(v.payrollIdKey, ['employee_no', 'employee_id'] as const),
    totals: one(v.payrollTotals, ['standard', 'alt', 'derive', 'masked'] as const),
    period: one(v.payrollPeriod, ['monthly', 'annual'] as const),
    breakup: one(v.payrollBreakup, ['nested', 'dotted'] as const),
  };
}

/** What the payroll route needs of the simulator around it. */
export interface PayrollHost {
  variants: PayrollVariants;
  /** Whether the Basic credentials are the API user's. */
  userOk(user: string, password: string): boolean;
  /** Canonical employee `i` (with changes), or undefined when not served (removed, past the count). */
  employee(i: number): NativeEmployee | undefined;
  authFailed(): void;
  /** 200 (default) or 401: how a wrong key is answered. */
  badKeyAnswer: 200 | 401;
}

type Component =
  'basic' | 'dearnessAllowance' | 'hra' | 'medicalAllowance' | 'travelAllowance' | 'specialAllowance' | 'flexiBasketAllowance' | 'otherAllowance' | 'gratuity';
/** `ctc_break_up` names -> (annual amount of the canonical compensation, the record's component). */
const COMPONENTS: [string, (a: NonNullable<NativeEmployee['compensation']>['annual']) => number, Component | 'pf'][] = [
  ['Basic', (a) => a.basic, 'basic'],
  ['Dearness Allowance', (a) => a.da, 'dearnessAllowance'],
  ['HRA', (a) => a.hra, 'hra'],
  ['Medical Allowance', (a) => a.medical_allowance, 'medicalAllowance'],
  ['Leave Travel Allowance', (a) => a.lta, 'travelAllowance'],
  ['Special Allowance', (a) => a.special_allowance, 'specialAllowance'],
  ['Flexi Benefits', (a) => a.flexi_benefits, 'flexiBasketAllowance'],
  ['Other Allowance', (a) => a.other_allowance, 'otherAllowance'],
  ['Gratuity', (a) => a.gratuity, 'gratuity'],
  ['Provident Fund', (a) => a.deductions.pf_employee, 'pf'],
];
const perPeriod = (n: number, v: PayrollVariants): number => (v.period === 'annual' ? n : Math.round((n / 12) * 100) / 100);
const grouped = (n: number): string => {
  const [int, dec] = n.toFixed(2).split('.') as [string, string];
  const head = int.slice(0, -3),
    tail = int.slice(-3);
  return `${head ? `${head.replace(/\B(?=(\d{2})+(?!\d))/g, ',')},` : ''}${tail}.${dec}`;
};

/** Employee `e`'s CTC record as the switches render it; undefined without compensation. */
export function ctcRecord(e: NativeEmployee, v: PayrollVariants): Record<string, unknown> | undefined {
  const a = e.compensation?.annual;
  if (!a) return undefined;
  const parts = Object.fromEntries(COMPONENTS.filter(([, get]) => get(a) !== 0).map(([name, get]) => [name, perPeriod(get(a), v)]));
  const breakup = v.breakup === 'nested' ? { ctc_break_up: parts } : Object.fromEntries(Object.entries(parts).map(([k, x]) => [`ctc_break_up.${k}`, x]));
  const variable = a.bonus.performance;
  const totals =
    v.totals === 'alt'
      ? { total_ctc: grouped(a.ctc), fixed_pay: grouped(a.fixed_ctc), variable_ctc: grouped(variable) }
      : v.totals === 'derive'
        ? { ctc_total: a.ctc, variable_pay: variable }
        : v.totals === 'masked'
          ? { ctc_total: '****', fixed_ctc: '****', variable_pay: variable }
          : { ctc_total: a.ctc, fixed_ctc: a.fixed_ctc, variable_pay: variable };
  return { [v.idKey]: e.employee_code, employee_name: `${e.first_name} ${e.last_name}`, currency: 'INR', ...breakup, ...totals };
}

/** The salary hrx must store for `e` (the mapping table of darwinbox/payroll.ts). */
export function payrollExpected(e: NativeEmployee, v: PayrollVariants): PartialEmployeeRecord['salaryDetails'] {
  const a = e.compensation?.annual;
  if (!a || !v.enabled) return undefined;
  const parts: Record<string, unknown> = {};
  for (const [, get, target] of COMPONENTS) {
    if (get(a) === 0) continue;
    if (target === 'pf') parts.deductions = { pf: perPeriod(get(a), v) };
    else parts[target] = perPeriod(get(a), v);
  }
  // Masked totals leave nothing to compare the breakup with: it is not placed.
  const placed = v.totals !== 'masked';
  return {
    ctc: {
      ...(placed && v.period === 'annual' ? parts : {}),
      ...(v.totals !== 'masked' ? { fixedPay: a.fixed_ctc } : {}),
      bonus: { performance: a.bonus.performance },
    },
    ...(placed && v.period === 'monthly' ? { monthly: parts } : {}),
  };
}

/** The request's JSON object body, or undefined when it is none. */
async function jsonObject(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  try {
    const v: unknown = JSON.parse((await readBody(req)) ?? '');
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the route handler and its request log (ids asked per request). */
export function payrollRoute(host: PayrollHost) {
  let log: { ids: number }[] = [];
  /** Answers one request; `gate` is the dataset route's limit and fault check (one budget for both). */
  async function handle(req: IncomingMessage, gate: () => Promise<Reply | undefined>): Promise<Reply> {
    if (req.method !== 'POST') return json(405, { status: 0, message: 'Method not allowed' });
    const stop = await gate();
    if (stop) return stop;
    // The body is read before the credentials are judged: a refused request is still drained.
    const body = await jsonObject(req);
    const auth = basicCredentials(req.headers.authorization);
    if (!auth || !host.userOk(auth.user, auth.password)) {
      host.authFailed();
      return json(401, { status: 0, message: 'Unauthorized' });
    }
    if (!body) return json(400, { status: 0, message: 'Invalid JSON body' });
    if (!sameSecret(body.api_key, PAYROLL_KEY)) {
      host.authFailed();
      return json(host.badKeyAnswer, { status: 0, message: 'Invalid API key' });
    }
    const ids = body.employee_no;
    if (!Array.isArray(ids) || typeof body.last_modified !== 'string' || !/^\d{2}-\d{2}-\d{4}$/.test(body.last_modified))
      return json(400, { status: 0, message: 'employee_no and last_modified (dd-mm-yyyy) are required' });
    if (ids.length > 500) return json(400, { status: 0, message: 'employee_no can have at most 500 employees' });
    log.push({ ids: ids.length });
    const records: Record<string, unknown>[] = [];
    for (const id of ids) {
      const i = employeeIndex(String(id));
      const e = i === undefined ? undefined : host.employee(i);
      const r = e && ctcRecord(e, host.variants);
      if (r) records.push(r);
    }
    const v = host.variants;
    return json(200, v.envelope === 'bare' ? records : { status: 1, message: 'CTC breakup fetched', [v.envelope]: records });
  }
  return {
    handle,
    calls: () => [...log],
    reset(): void {
      log = [];
    },
  };
}
