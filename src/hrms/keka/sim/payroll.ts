/**
 * The Keka simulator's payroll (src/hrms/keka/README.md "Pay history"): pay groups, pay cycles and
 * pay registers as Keka's description defines them (`APIPayGroupView` K:5450-5473,
 * `APIPayCycleView` K:5341-5363, `APIPayRegisterView` K:5560-5800), with `history` months of
 * finalized cycles ending at the simulator's payroll month (`SIM_TODAY`) plus the next month's
 * cycle still pending, and the ground truth of what hrx must read from them.
 *
 * Pay is deterministic per employee and consistent with the current salary (`data.ts`): the
 * latest month's gross is the canonical monthly gross; each earlier appraisal year (April to
 * March, India's) is one raise (5 to 12 %, per employee) lower. An employee is paid in a month
 * from joining to exit. Switches: `payGroups` (1: employees spread over that many groups),
 * `payHistoryMonths` (36), `cycleOrder` (`oldest` first, or `newest`), `cycleMonthName` (true;
 * false: `null`, which hrx must not guess around).
 */
import type { PayMonthEntry } from '../../connector';
import { employeeCode, SIM_TODAY, type NativeEmployee } from '../../sim/data';
import { dmy, isWorking, type Variants } from '../../sim/kit';
import { uuidOf, type KekaSimLabels } from './render';

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** The simulated tenant's `PayrollRunStatus` numbers (K:11387-11393 defines 0, 1, 2 without names). */
const RUN_STATUS = { Pending: 0, Finalized: 1, Partial: 2 } as const;
/** One defined `EmployeePayrollCycleRunStatus` (K:8658-8676) and `RemunerationType` (K:11813-11820) number. */
const ROW_STATUS = 1;
const REMUNERATION = 0;

const round2 = (n: number): number => Math.round(n * 100) / 100;
const pad = (n: number): string => String(n).padStart(2, '0');
const daysIn = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();
/** A small deterministic number 0..n-1 from `key`. */
function hashOf(key: string, n: number): number {
  let h = 2166136261;
  for (let k = 0; k < key.length; k++) h = Math.imul(h ^ key.charCodeAt(k), 16777619);
  return (h >>> 0) % n;
}

/** One pay cycle of the simulated payroll. */
export interface SimPayCycle {
  group: number;
  id: string;
  year: number;
  month: number;
  status: keyof typeof RUN_STATUS;
}

/** The simulated tenant's payroll. */
export class KekaSimPayroll {
  readonly groups: number;
  readonly history: number;
  private readonly order: 'oldest' | 'newest';
  private readonly monthNames: boolean;

  constructor(
    private readonly seed: string | number,
    variants: Variants,
    private readonly labels: KekaSimLabels,
  ) {
    this.groups = variants.num('payGroups', 1, 1);
    this.history = variants.num('payHistoryMonths', 36, 0);
    this.order = variants.oneOf('cycleOrder', ['oldest', 'newest'], 'oldest');
    this.monthNames = variants.bool('cycleMonthName', true);
  }

  private readonly itemIds = new Map<string, string>();

  /** The stable id of a pay component (`PayItemView.id`, K:11346-11348), hashed once. */
  private itemId(key: string): string {
    let id = this.itemIds.get(key);
    if (id === undefined) this.itemIds.set(key, (id = uuidOf(this.seed, key)));
    return id;
  }

  groupId(g: number): string {
    return uuidOf(this.seed, `paygroup|${g}`);
  }

  /** `APIPayGroupView` of every group. */
  payGroups(): Record<string, unknown>[] {
    return Array.from({ length: this.groups }, (_, g) => ({
      identifier: this.groupId(g),
      name: g === 0 ? 'Monthly payroll' : `Monthly payroll ${g + 1}`,
      description: null,
      legalEntityId: uuidOf(this.seed, 'legal-entity'),
      legalEntityName: 'Simulated Pvt Ltd',
    }));
  }

  /** Group `g`'s cycles: `history` finalized months up to `SIM_TODAY`, then the next month pending; in `cycleOrder`. */
  cycles(g: number): SimPayCycle[] {
    const out: SimPayCycle[] = [];
    for (let back = -1; back < this.history; back++) {
      const t = SIM_TODAY.year * 12 + (SIM_TODAY.month - 1) - back;
      const year = Math.floor(t / 12),
        month = (t % 12) + 1;
      out.push({ group: g, id: uuidOf(this.seed, `paycycle|${g}|${year}-${month}`), year, month, status: back < 0 ? 'Pending' : 'Finalized' });
    }
    return this.order === 'newest' ? out : out.reverse();
  }

  /** `APIPayCycleView` of a cycle. */
  renderCycle(c: SimPayCycle): Record<string, unknown> {
    return {
      identifier: c.id,
      month: `${MONTH_NAMES[c.month - 1]} ${c.year}`,
      startDate: `${c.year}-${pad(c.month)}-01T00:00:00+05:30`,
      endDate: `${c.year}-${pad(c.month)}-${pad(daysIn(c.year, c.month))}T00:00:00+05:30`,
      runStatus: RUN_STATUS[c.status],
    };
  }

  /** Whether employee `i` (with canonical `e`) is paid in cycle `c`: in its group, employed that month, with a salary. */
  paid(i: number, e: NativeEmployee, c: SimPayCycle): boolean {
    if (i % this.groups !== c.group || !e.compensation) return false;
    const joined = dmy(e.date_of_joining);
    const left = dmy(e.exit_date);
    const ym = c.year * 12 + c.month;
    if (!joined || joined.y * 12 + joined.m > ym) return false;
    return !left || left.y * 12 + left.m >= ym;
  }

  /** The pay of employee `i` in a month: gross (split into earnings), deductions, reimbursements and net, INR. */
  pay(i: number, e: NativeEmployee, year: number, month: number) {
    const comp = e.compensation!;
    const currentGross = comp.monthly?.gross_salary ?? round2(comp.annual.gross_salary / 12);
    const raise = 0.05 + hashOf(`${this.seed}|raise|${i}`, 8) / 100;
    const appraisalYear = month >= 4 ? year : year - 1;
    const todayAppraisal = SIM_TODAY.month >= 4 ? SIM_TODAY.year : SIM_TODAY.year - 1;
    const factor = (1 + raise) ** -(todayAppraisal - appraisalYear);
    const gross = round2(currentGross * factor);
    const basic = round2(gross * (comp.annual.basic / Math.max(1, comp.annual.gross_salary)));
    const hra = round2(gross * (comp.annual.hra / Math.max(1, comp.annual.gross_salary)));
    const earnings = { Basic: basic, 'House Rent Allowance': hra, 'Special Allowance': round2(gross - basic - hra) };
    const pf = round2(Math.min(basic, 15_000) * 0.12);
    const deductions = {
      'PF Employee': pf,
      'Professional Tax': round2(comp.annual.deductions.professional_tax / 12),
      'Income Tax': round2((comp.monthly?.deductions.tds ?? 0) * factor),
    };
    const isLatest = year === SIM_TODAY.year && month === SIM_TODAY.month;
    const reimbursements = isLatest && comp.monthly ? comp.monthly.reimbursements : hashOf(`${this.seed}|reimb|${i}|${year}-${month}`, 4) === 0 ? 1500 : 0;
    const totalDeductions = round2(Object.values(deductions).reduce((a, b) => a + b, 0));
    return { gross, earnings, deductions, pf, totalDeductions, reimbursements, net: round2(gross - totalDeductions + reimbursements) };
  }

  /** `APIPayRegisterView` of employee `i` in cycle `c` (only the properties the description defines). */
  renderRow(i: number, e: NativeEmployee, c: SimPayCycle): Record<string, unknown> {
    const p = this.pay(i, e, c.year, c.month);
    const items = (kind: string, parts: Record<string, number>) =>
      Object.entries(parts).map(([title, amount]) => ({
        id: this.itemId(`${kind}|${title}`),
        componentIdentifier: title.toUpperCase().replace(/\W+/g, '_'),
        componentTitle: title,
        amount,
        accountingCode: null,
      }));
    const days = daysIn(c.year, c.month);
    const at = (v: string | null) => {
      const d = dmy(v);
      return d ? `${d.y}-${pad(d.m)}-${pad(d.d)}T00:00:00+05:30` : null;
    };
    const kind = e.employment_type === 'CONTRACT' ? 'contingent' : e.employment_type === 'INTERN' ? 'intern' : 'permanent';
    return {
      identifier: uuidOf(this.seed, `payrow|${c.id}|${i}`),
      employeeNumber: employeeCode(i),
      employeeName: [e.first_name, e.last_name].filter(Boolean).join(' '),
      panNumber: null,
      dateJoined: at(e.date_of_joining),
      jobTitle: e.designation || null,
      department: e.department || null,
      location: e.work_location.city || null,
      payGroup: c.group === 0 ? 'Monthly payroll' : `Monthly payroll ${c.group + 1}`,
      employmentStatus: this.labels.employmentStatus[isWorking(e) ? 'working' : 'relieved'],
      workerType: this.labels.workerType[kind],
      costCenter: e.cost_center || null,
      businessUnit: e.business_unit || null,
      remunerationType: REMUNERATION,
      gender: this.labels.gender[e.gender as 'M' | 'F' | 'O'] ?? 0,
      dateOfBirth: null,
      exitDate: at(e.exit_date),
      cycleIdentifier: c.id,
      cycleFrom: `${c.year}-${pad(c.month)}-01T00:00:00+05:30`,
      cycleTo: `${c.year}-${pad(c.month)}-${pad(days)}T00:00:00+05:30`,
      cycleMonthName: this.monthNames ? MONTH_NAMES[c.month - 1] : null,
      cycleMonth: c.month,
      cycleYear: c.year,
      cyclePayDays: days,
      workingDays: days,
      lossOfPayDays: 0,
      noOfPayDays: days,
      renumerationAmount: null,
      status: ROW_STATUS,
      statusDescription: null,
      earnings: items('earning', p.earnings),
      contributions: items('contribution', { 'PF Employer': p.pf }),
      deductions: items('deduction', p.deductions),
      reimbursements: p.reimbursements > 0 ? items('reimbursement', { Reimbursement: p.reimbursements }) : [],
      outsideGrossPayables: [],
      grossAmount: p.gross,
      totalOutsideGrossAmount: 0,
      total: p.gross,
      totalContributions: p.pf,
      totalDeductions: p.totalDeductions,
      totalReimbursements: p.reimbursements,
      cashAdvanceAmount: 0,
      cashAdvanceSettlementAmount: 0,
      netAmount: p.net,
    };
  }

  /**
   * Ground truth: the pay months hrx must read for `served` employees from the newest `months`
   * finalized cycles of every group (README mapping: gross, net, reimbursements).
   */
  expected(served: readonly number[], employee: (i: number) => NativeEmployee, months: number): PayMonthEntry[] {
    const out: PayMonthEntry[] = [];
    for (let g = 0; g < this.groups; g++) {
      const newest = this.cycles(g)
        .filter((c) => c.status === 'Finalized')
        .sort((a, b) => b.year * 12 + b.month - (a.year * 12 + a.month))
        .slice(0, months);
      for (const c of newest) {
        for (const i of served) {
          const e = employee(i);
          if (!this.paid(i, e, c)) continue;
          const p = this.pay(i, e, c.year, c.month);
          // `netPay` is a pay month key `MonthlyDetails` does not carry yet (docs/sync.md "Pay history").
          const fields = { month: c.month, year: c.year, grossPay: p.gross, netPay: p.net, reimbursements: p.reimbursements };
          const month: PayMonthEntry['month'] = fields;
          out.push({ employeeId: employeeCode(i), month });
        }
      }
    }
    return out;
  }
}
