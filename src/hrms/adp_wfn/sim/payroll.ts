/**
 * The ADP Workforce Now simulator's payroll (src/hrms/adp_wfn/README.md "Pay history"): payroll
 * runs and their `level=pay` answers as ADP's Payroll Output samples show them
 * (`../openapi/rules.yaml`, `A:`/`P:` lines), and the ground truth of what hrx must read from them.
 *
 * `payHistoryMonths` (default 36) months up to the simulator's payroll month (`SIM_TODAY`), each
 * with a regular run (run number 1) paid on the month's last day; every third month (the one
 * before the latest among them) also an off-cycle bonus run (run number 2) paid on the 15th to
 * every other worker, which hrx must sum into the month; every fourth month a rejected run
 * (`PR-EDL`, run number 3) that hrx must not read. The listing is oldest first, as hrx must not
 * rely on its order. A worker is paid in a month from joining to exit, when they have a salary.
 */
import { createHash } from 'node:crypto';
import type { PayMonthEntry } from '../../connector';
import { SIM_TODAY, type NativeEmployee } from '../../sim/data';
import { dmy, Variants } from '../../sim/kit';

const pad = (n: number): string => String(n).padStart(2, '0');
const round2 = (n: number): number => Math.round(n * 100) / 100;
const lastDay = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();
/** The week of the year a day falls in (1..53), as the samples' `payrollWeekNumber` (A:17) counts pay weeks. */
const weekOf = (y: number, m: number, d: number): number => Math.floor((Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 1)) / 86_400_000 / 7) + 1;

/** One simulated payroll run. */
export interface SimRun {
  itemID: string;
  year: number;
  month: number;
  day: number;
  runNumber: 1 | 2 | 3;
  status: 'PR-PRC' | 'PR-EDL';
}

/** One payment of a run: gross of this payroll and the net paid. */
interface SimPayment {
  gross: number;
  net: number;
}

/** The simulated company's payroll runs. */
export class AdpSimPayroll {
  readonly history: number;
  readonly runs: SimRun[] = [];
  private readonly byId = new Map<string, SimRun>();

  constructor(
    private readonly seed: string | number,
    variants: Record<string, string | number | boolean> | undefined,
  ) {
    this.history = new Variants(variants).num('payHistoryMonths', 36, 0);
    for (let back = this.history - 1; back >= 0; back--) {
      const t = SIM_TODAY.year * 12 + (SIM_TODAY.month - 1) - back;
      const year = Math.floor(t / 12);
      const month = (t % 12) + 1;
      this.add({ year, month, day: lastDay(year, month), runNumber: 1, status: 'PR-PRC' });
      if (back % 3 === 1) this.add({ year, month, day: 15, runNumber: 2, status: 'PR-PRC' });
      if (back % 4 === 2) this.add({ year, month, day: lastDay(year, month), runNumber: 3, status: 'PR-EDL' });
    }
  }

  private add(r: Omit<SimRun, 'itemID'>): void {
    // An item id as ADP writes them (`u6aOv+DYaoG7DaNLN-I2rw==`, A:4): base64 with `+`, `/` and `=`.
    const itemID = createHash('sha256').update(`${this.seed}|run|${r.year}-${r.month}|${r.runNumber}`).digest().subarray(0, 16).toString('base64');
    const run = { itemID, ...r };
    this.runs.push(run);
    this.byId.set(itemID, run);
  }

  run(itemID: string): SimRun | undefined {
    return this.byId.get(itemID);
  }

  /** Whether worker `i` (employee `e`) is paid by `run`, and how much. */
  payment(i: number, e: NativeEmployee, run: SimRun): SimPayment | undefined {
    if (!e.compensation) return undefined;
    const joined = dmy(e.date_of_joining);
    const left = dmy(e.exit_date);
    const ym = run.year * 12 + run.month;
    if (!joined || joined.y * 12 + joined.m > ym || (left && left.y * 12 + left.m < ym)) return undefined;
    const back = SIM_TODAY.year * 12 + SIM_TODAY.month - ym;
    if (run.runNumber === 2) {
      if (i % 2 !== 0) return undefined;
      const bonus = 1000 + (i % 7) * 250;
      return { gross: bonus, net: round2(bonus * 0.75) };
    }
    const monthly = e.compensation.monthly?.gross_salary ?? e.compensation.annual.gross_salary / 12;
    // A rejected run's figures differ from the regular run's: reading one would show in the sums.
    const gross = round2(monthly * (1 - back * 0.004) * (run.status === 'PR-EDL' ? 1.5 : 1));
    return { gross, net: round2(gross * 0.82) };
  }

  /** One `payrollOutputs` element (A:3-24) of `run`, without payments. */
  renderRun(run: SimRun): Record<string, unknown> {
    return {
      itemID: run.itemID,
      payrollProcessingJobID: createHash('md5').update(`${this.seed}|job|${run.itemID}`).digest('hex'),
      payrollRegionCode: { codeValue: 'PA03' },
      payrollGroupCode: { codeValue: 'SIM', shortName: 'SIMULATED PAYROLL' },
      payrollScheduleReference: {
        payrollYear: String(run.year),
        payrollWeekNumber: pad(weekOf(run.year, run.month, run.day)),
        payrollRunNumber: String(run.runNumber),
      },
      payrollProcessingJobStatusCode:
        run.status === 'PR-PRC' ? { codeValue: 'PR-PRC', shortName: 'Payroll Complete' } : { codeValue: 'PR-EDL', shortName: 'Rejected' },
    };
  }

  /** The `level=pay` answer's payments of worker `aoid` in `run` (P:1), as ADP writes one payment. */
  renderPayment(aoid: string, run: SimRun, p: SimPayment): Record<string, unknown> {
    const amount = (amountValue: number) => ({ amountValue });
    const acc = (unit: string, name: string, value: number) => ({
      accumulatorCode: { codeValue: 'GRS', shortName: 'Gross' },
      accumulatorDescription: name,
      accumulatorTimeUnitCode: { codeValue: unit, shortName: unit === 'P' ? 'This Payroll' : 'Quarter to Date' },
      accumulatedAmount: amount(value),
    });
    return {
      associateOID: aoid,
      payments: [
        {
          paymentDate: `${run.year}-${pad(run.month)}-${pad(run.day)}`,
          payPeriodStartDate: `${run.year}-${pad(run.month)}-01`,
          payPeriodEndDate: `${run.year}-${pad(run.month)}-${pad(lastDay(run.year, run.month))}`,
          paymentAmount: amount(p.net),
          // The quarter's gross is listed first, as in the samples: hrx must pick "This Payroll".
          paymentSummary: { earnings: { payrollAccumulations: [acc('QTD', 'Gross Pay', round2(p.gross * 3)), acc('P', 'Gross This Payroll', p.gross)] } },
        },
      ],
    };
  }

  /**
   * Ground truth: the pay months of the newest `months` months for `served` workers, each month's
   * completed runs summed; amounts only when `inr` (the `payroll_inr` declaration).
   */
  expected(served: readonly number[], employee: (i: number) => NativeEmployee, aoidOf: (i: number) => string, months: number, inr: boolean): PayMonthEntry[] {
    const sums = new Map<string, { employeeId: string; year: number; month: number; paidOn: string; gross: number; net: number }>();
    const newest = [...new Set(this.runs.map((r) => r.year * 12 + r.month))].sort((a, b) => b - a).slice(0, months);
    for (const run of this.runs) {
      if (run.status !== 'PR-PRC' || !newest.includes(run.year * 12 + run.month)) continue;
      for (const i of served) {
        const p = this.payment(i, employee(i), run);
        if (!p) continue;
        const key = `${aoidOf(i)}|${run.year}-${run.month}`;
        const day = `${run.year}-${pad(run.month)}-${pad(run.day)}`;
        const was = sums.get(key) ?? { employeeId: aoidOf(i), year: run.year, month: run.month, paidOn: day, gross: 0, net: 0 };
        sums.set(key, { ...was, paidOn: was.paidOn > day ? was.paidOn : day, gross: round2(was.gross + p.gross), net: round2(was.net + p.net) });
      }
    }
    return [...sums.values()].map((s) => ({
      employeeId: s.employeeId,
      month: { year: s.year, month: s.month, paidOn: s.paidOn, ...(inr ? { grossPay: s.gross, netPay: s.net } : {}) },
    }));
  }

  /** Data requests a backfill of `months` months costs: the listing, then each completed run of those months and one of the month before (the run that shows the oldest complete). */
  requestsFor(months: number): number {
    const completed = this.runs.filter((r) => r.status === 'PR-PRC');
    const newest = [...new Set(completed.map((r) => r.year * 12 + r.month))].sort((a, b) => b - a);
    const inWindow = completed.filter((r) => newest.slice(0, months).includes(r.year * 12 + r.month)).length;
    return 1 + inWindow + (newest.length > months ? 1 : 0);
  }
}
