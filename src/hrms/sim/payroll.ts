/**
 * The reference simulator's payroll (docs/pay-history.md "Where months come from"): a
 * deterministic pay history per employee, consistent with its record. The newest month is the
 * record's `compensation.monthly` itself (`SIM_TODAY`'s month); each earlier one has the same
 * components, no bonus, a reimbursement that varies by month, its own net pay and pay day; none
 * before the month the employee joined. An employee whose record has no `monthly` has no payroll.
 */
import { employeeCode, generateEmployee, netPayOf, payDay, type NativeMonth } from './data';

/** Most months one payroll request may ask for (the 36 hrx keeps). */
export const MAX_PAY_MONTHS = 36;

/** One entry of `GET /api/v1/payroll/months`: the employee's code and regime, and one month. */
export type NativePayEntry = NativeMonth & { employee_code: string; tax_regime: string };

const REIMBURSEMENTS = [0, 1000, 1500, 2500];

/** The `months` newest pay months of employee `i` of `seed`, newest first. */
export function payHistory(seed: string | number, i: number, months: number): NativePayEntry[] {
  const e = generateEmployee(seed, i);
  const latest = e.compensation?.monthly;
  if (!latest) return [];
  const [, jm, jy] = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(e.date_of_joining) ?? [];
  const joined = jy && jm ? Number(jy) * 12 + Number(jm) - 1 : -Infinity;
  const head = { employee_code: employeeCode(i), tax_regime: e.compensation!.tax_regime };
  const out: NativePayEntry[] = [];
  for (let k = 0; k < months; k++) {
    const at = latest.year * 12 + latest.month - 1 - k;
    if (at < joined) break;
    if (k === 0) {
      out.push({ ...head, ...latest });
      continue;
    }
    const year = Math.floor(at / 12);
    const month = (at % 12) + 1;
    const noBonus = { joining: 0, referral: 0, retention: 0, performance: 0, relocation: 0, other: 0 };
    const base = { ...latest, month, year, bonus: noBonus, reimbursements: REIMBURSEMENTS[(i + k) % REIMBURSEMENTS.length]! };
    out.push({ ...head, ...base, net_pay: netPayOf(base), paid_on: payDay(year, month) });
  }
  return out;
}
