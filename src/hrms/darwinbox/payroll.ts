/**
 * Darwinbox salary (docs/hrms/connectors.md; the sources in src/hrms/darwinbox/README.md, source strength S: a
 * public client, no vendor page). Salary is not on the Employee Master dataset: it comes from
 * `POST /payrollapi/ctcbreakup` with its own payroll API key (setup-config: the `api_configs`
 * entry `api_id: "payroll"`, its `access_credentials.api_key`), Basic auth like the other calls:
 *
 *     {api_key, employee_no: [≤ 500 employee ids], last_modified: "dd-mm-yyyy", proration_type: "monthly"}
 *
 * The answer's envelope is not known for certain, so every plausible one is read: records under
 * `data`, `employee_data`, `ctc_data` or `result`, or a bare array; an envelope `status` other
 * than 1 is a refusal (as on the Employee Master API). `last_modified` is sent as `01-01-1990`:
 * the client in the research sends `01-01-2020`, but a filter "modified since" would then miss a
 * CTC unchanged since 2019; an earlier date in the same format asks for at least as much.
 *
 * The mapping table (the sources in src/hrms/darwinbox/README.md; [I] = inferred here, not seen):
 * | record data point | Darwinbox CTC record (first present wins) | source |
 * |---|---|---|
 * | (the employee) | employee_no, employee_id, employee_code | [S], [I] |
 * | salaryDetails.ctc.fixedPay (INR per year) | fixed_ctc, fixed_pay, total_fixed_ctc; else ctc_total − variable_pay | [S], [I] |
 * | salaryDetails.ctc.bonus.performance (INR per year) | variable_pay, variable_ctc, total_variable_pay | [S], [I] |
 * | ctc total (only to derive fixedPay) | ctc_total, total_ctc, annual_ctc, ctc | [S], [I] |
 * | salaryDetails.{ctc or monthly}.basic, dearnessAllowance, hra, medicalAllowance, travelAllowance, specialAllowance, flexiBasketAllowance, otherAllowance, gratuity, deductions.pf | `ctc_break_up.{component}` ("Basic", "Dearness Allowance", "HRA", "Medical Allowance", "Leave Travel Allowance", "Special Allowance", "Flexi Benefits", "Other Allowance", "Gratuity", "Provident Fund"; nested object or dot keys) | [S] names "Provident Fund", "Gratuity"; others [I] |
 *
 * Annual vs monthly: CTC totals are annual figures in Indian payroll, read as INR per year.
 * Whether `proration_type: "monthly"` turns the `ctc_break_up` amounts into a month's share is not
 * known (research `?`), so it is decided per record: the components of a CTC breakup add up to
 * the fixed CTC; when their sum is that total (±1 %) they are annual (`salaryDetails.ctc`), when
 * it is a twelfth of it they are one month's (`salaryDetails.monthly`, month and year unknown:
 * null); otherwise (or with no total to compare) they are left empty and `ctc_break_up` is
 * reported. "Provident Fund" is the employer's contribution in the CTC; at the statutory 12 % of
 * basic it equals the employee's PF deduction, where hrx's record keeps PF.
 *
 * A total present but unreadable (`"****"`, text) leaves its data point empty and reports the
 * field's name, never its value. An employee with no CTC record has no salary (no warning).
 */
import { HrmsError } from '../connector';
import type { FieldWarner } from '../decode';
import type { PartialEmployeeRecord } from '../../domain/record';
import { money, text } from '../decode';
import { flatten } from './mapping';

type Row = Record<string, unknown>;
type Salary = NonNullable<PartialEmployeeRecord['salaryDetails']>;

/** At most this many `employee_no` per ctcbreakup request (the sources in src/hrms/darwinbox/README.md). */
export const PAYROLL_BATCH = 500;
/** The `last_modified` sent: "modified since" a date before any CTC (see the module comment). */
export const PAYROLL_SINCE = '01-01-1990';

const isObj = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const isList = (v: unknown): v is unknown[] => Array.isArray(v);
const ENVELOPES = ['data', 'employee_data', 'ctc_data', 'result', 'results'];
const ID_KEYS = ['employee_no', 'employee_id', 'employee_code'];
const TOTAL_KEYS = ['ctc_total', 'total_ctc', 'annual_ctc', 'ctc'];
const FIXED_KEYS = ['fixed_ctc', 'fixed_pay', 'total_fixed_ctc'];
const VARIABLE_KEYS = ['variable_pay', 'variable_ctc', 'total_variable_pay'];

/** `ctc_break_up` component names (lower case, spaces collapsed) -> the record's component. */
const COMPONENTS: Readonly<
  Record<
    string,
    | 'basic'
    | 'dearnessAllowance'
    | 'hra'
    | 'medicalAllowance'
    | 'travelAllowance'
    | 'specialAllowance'
    | 'flexiBasketAllowance'
    | 'otherAllowance'
    | 'gratuity'
    | 'pf'
  >
> = {
  basic: 'basic',
  'basic salary': 'basic',
  'dearness allowance': 'dearnessAllowance',
  da: 'dearnessAllowance',
  hra: 'hra',
  'house rent allowance': 'hra',
  'medical allowance': 'medicalAllowance',
  'leave travel allowance': 'travelAllowance',
  lta: 'travelAllowance',
  'special allowance': 'specialAllowance',
  'flexi benefits': 'flexiBasketAllowance',
  'flexible benefit plan': 'flexiBasketAllowance',
  'other allowance': 'otherAllowance',
  gratuity: 'gratuity',
  'provident fund': 'pf',
  'pf employer contribution': 'pf',
};

/** Whether the envelope says Darwinbox refused the request (`status` present and not 1). */
export function payrollRefused(body: unknown): boolean {
  return isObj(body) && body.status !== undefined && body.status !== 1 && body.status !== '1';
}

/** The CTC records of an answer (any envelope of the module comment); undefined when none is recognised. */
export function payrollRecords(body: unknown): unknown[] | undefined {
  if (isList(body)) return body;
  if (!isObj(body)) return undefined;
  for (const k of ENVELOPES) {
    const v = body[k];
    if (isList(v)) return v;
    // `data: {employee_data: [...]}` or a map keyed by employee id
    if (isObj(v)) return payrollRecords(v) ?? Object.values(v).filter(isObj);
  }
  return undefined;
}

/** The first of `keys` present in `row` (blank counts as absent): its name and value. */
function present(row: Row, keys: string[]): { key: string; value: unknown } | undefined {
  for (const key of keys) if (text(row[key]) !== undefined) return { key, value: row[key] };
  return undefined;
}

/** A present total as a number; an unreadable one is reported by name and gives undefined. */
function amount(row: Row, keys: string[], warn: FieldWarner): number | undefined {
  const hit = present(row, keys);
  if (!hit) return undefined;
  const n = money(hit.value);
  if (n === undefined) warn(hit.key);
  return n;
}

/**
 * One CTC record -> its employee id and salary data points; undefined when it is not an object or
 * names no employee. `warn` hears of totals it cannot read and of a breakup it cannot place.
 */
export function mapCtcRecord(native: unknown, warn: FieldWarner): { employeeId: string; salary: Salary } | undefined {
  if (!isObj(native)) return undefined;
  const row = flatten(native);
  const employeeId = text(present(row, ID_KEYS)?.value);
  if (employeeId === undefined) return undefined;
  const total = amount(row, TOTAL_KEYS, warn);
  const variable = amount(row, VARIABLE_KEYS, warn);
  const fixed =
    amount(row, FIXED_KEYS, warn) ?? (present(row, FIXED_KEYS) === undefined && total !== undefined && variable !== undefined ? total - variable : undefined);
  const parts: Partial<Record<(typeof COMPONENTS)[string], number>> = {};
  let sum = 0;
  for (const [k, v] of Object.entries(row)) {
    const name = /^ctc_break_up\.(.+)$/.exec(k)?.[1]?.toLowerCase().replace(/\s+/g, ' ').trim();
    const target = name === undefined ? undefined : COMPONENTS[name];
    const n = money(v);
    if (name === undefined) continue;
    if (n !== undefined) sum += n;
    if (target && n !== undefined) parts[target] = n;
  }
  const { pf, ...allowances } = parts;
  const breakup = { ...allowances, ...(pf !== undefined ? { deductions: { pf } } : {}) };
  const base = fixed ?? total;
  const near = (a: number, b: number): boolean => Math.abs(a - b) <= Math.max(1, b * 0.01);
  let period: 'ctc' | 'monthly' | undefined;
  if (Object.keys(parts).length > 0) {
    if (base !== undefined && base > 0 && near(sum, base)) period = 'ctc';
    else if (base !== undefined && base > 0 && near(sum, base / 12)) period = 'monthly';
    else warn('ctc_break_up');
  }
  const ctc = {
    ...(period === 'ctc' ? breakup : {}),
    ...(fixed !== undefined ? { fixedPay: fixed } : {}),
    ...(variable !== undefined ? { bonus: { performance: variable } } : {}),
  };
  const salary: Salary = {
    ...(Object.keys(ctc).length ? { ctc } : {}),
    ...(period === 'monthly' ? { monthly: breakup } : {}),
  };
  return { employeeId, salary };
}

/**
 * The salaries of one ctcbreakup answer, by employee id (only ids of `asked`: a record for
 * another employee is ignored). Throws `HrmsError('auth')` on a refusal (`status` not 1), and
 * `bad_response` when no records are found in any known envelope (a bare `{status: 1}` is none).
 */
export function readPayrollAnswer(body: unknown, asked: ReadonlySet<string>, warn: FieldWarner): Map<string, Salary> {
  if (payrollRefused(body)) throw new HrmsError('auth', 'Darwinbox refused the payroll API key');
  const records = payrollRecords(body);
  // `{status: 1, message}` and nothing else: none of these employees has a CTC record.
  if (!records && isObj(body) && (body.status === 1 || body.status === '1')) return new Map();
  if (!records) throw new HrmsError('bad_response', 'Darwinbox sent an unexpected shape for the CTC breakup');
  const out = new Map<string, Salary>();
  for (const r of records) {
    const hit = mapCtcRecord(r, warn);
    if (hit && asked.has(hit.employeeId) && Object.keys(hit.salary).length > 0) out.set(hit.employeeId, hit.salary);
  }
  return out;
}
