/**
 * ADP Workforce Now's payroll results as pay months (src/hrms/adp_wfn/README.md "Pay history";
 * docs/pay-history.md "Where months come from"), from ADP's Payroll Output API v2 as its samples
 * show it (github `adpllc/marketplace-sample-payloads`, `ADP Payroll/PayrollOutput/`; the rules,
 * each with its sample file and line, in `openapi/rules.yaml`):
 *
 * - `GET /payroll/v2/payroll-output` (R:964-1000, A): every payroll run of the company in one
 *   answer, `{payrollOutputs: [{itemID, payrollScheduleReference: {payrollYear,
 *   payrollWeekNumber, payrollRunNumber}, payrollProcessingJobStatusCode}]}`; only runs whose
 *   status is `PR-PRC` ("Payroll Complete", A:20-23) are read: rejected and bad payrolls
 *   (`PR-EDL`, `PR-BAD`) and open ones paid nobody.
 * - `GET /payroll/v2/payroll-output?level=pay&$filter=itemID eq <itemID>` (R:1176-1245, P): every
 *   associate's payments of that run: `associatePayments[].associateOID`, `payments[].paymentDate`,
 *   `paymentAmount.amountValue` (net) and the gross of this run (`paymentSummary.earnings.
 *   payrollAccumulations[]` with accumulator `GRS`, time unit `P` "This Payroll").
 *
 * Runs are read newest first (payroll year, week number, run number); a payment belongs to the
 * month of its `paymentDate`, and every run of a month is summed into one pay month per worker.
 * A month is yielded once a run of an older month is reached (its runs are all read); a payment
 * of a month already yielded (an off-cycle run numbered before a later pay date) is left out with
 * a warning, never yielded as a partial month. Amounts are read only when the employer declares
 * the payroll paid in rupees (`api_configs` entry `payroll_inr`): ADP's answers carry no currency.
 */
import { z } from 'zod';
import { HrmsError, type PayMonthEntry, type PayMonthsOptions, type PayMonthsPage } from '../connector';
import { jsonCursor } from '../cursor';
import { isObj, isoDate, obj, text, type FieldWarner, type Obj } from '../decode';

/** The Payroll Output API's path (R:1222). */
export const PAYROLL_OUTPUT = 'payroll/v2/payroll-output';
/** `payrollProcessingJobStatusCode.codeValue` of a completed payroll (A:20-23 "Payroll Complete"). */
export const PAYROLL_COMPLETE = 'PR-PRC';

/** What the pay month listing needs of the ADP connector. */
export interface AdpPayrollIo {
  /** GET `url` (bearer, budget, retries); the parsed JSON of a 200, `undefined` for 204; `HrmsError` for another status. */
  json(url: URL, what: string): Promise<unknown>;
  /** A path under the API address. */
  url(path: string): URL;
  /** Whether amounts are in rupees (the `payroll_inr` declaration). */
  inr: boolean;
  warn: FieldWarner;
}

/** One payroll run to read, ordered by its schedule reference. */
interface Run {
  id: string;
  order: number;
}

/** Where a listing resumes: the first run of a month not yielded yet, the months yielded, the oldest of them (`YYYY-MM`), and the run read when it was made. */
const CURSORS = jsonCursor<{ r: string; n: number; c: string; w: string }>(
  z.object({ r: z.string().min(1), n: z.number().int().min(0), c: z.string().regex(/^\d{4}-\d{2}$/), w: z.string().min(1) }),
  'the ADP Workforce Now connector',
);

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const round2 = (n: number): number => Math.round(n * 100) / 100;
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The completed runs of the listing, newest first by payroll year, week number and run number (A:14-18). */
export function completedRuns(answer: unknown, warn: FieldWarner): Run[] {
  if (answer === undefined) return []; // 204: no runs
  if (!isObj(answer) || !Array.isArray(answer.payrollOutputs)) throw new HrmsError('bad_response', 'ADP sent an unexpected shape for the payroll run listing');
  const runs: Run[] = [];
  for (const r of list(answer.payrollOutputs)) {
    if (obj(r.payrollProcessingJobStatusCode).codeValue !== PAYROLL_COMPLETE) continue;
    const id = text(r.itemID);
    const ref = obj(r.payrollScheduleReference);
    const [year, week, run] = [ref.payrollYear, ref.payrollWeekNumber, ref.payrollRunNumber].map((v) => Number(text(v) ?? Number.NaN));
    // The samples hold runs of year `0000` (A: 3 of 610): no pay date to place them by.
    if (id === undefined || !(year! >= 1990 && year! <= 2200) || !(week! >= 0) || !(run! >= 0)) {
      warn('payrollScheduleReference', 'payroll run without an item id or a readable year skipped');
      continue;
    }
    runs.push({ id, order: (year! * 100 + week!) * 1000 + run! });
  }
  return runs.sort((a, b) => b.order - a.order);
}

/** `YYYY-MM` of a `YYYY-MM-DD` date. */
const monthKey = (day: string): string => day.slice(0, 7);

/** A worker's month being summed: the latest pay date and the sums (absent when a payment lacked it). */
interface Sum {
  employeeId: string;
  paidOn: string;
  gross: number | undefined;
  net: number | undefined;
}

/** The gross of this run: the `GRS` accumulator of time unit `P` ("This Payroll", P:1). */
function grossOf(payment: Obj): number | undefined {
  const accs = list(obj(obj(payment.paymentSummary).earnings).payrollAccumulations);
  const gross = accs.find((a) => obj(a.accumulatorCode).codeValue === 'GRS' && obj(a.accumulatorTimeUnitCode).codeValue === 'P');
  return gross ? num(obj(gross.accumulatedAmount).amountValue) : undefined;
}

/** `sum + amount`; unknown (undefined) once any payment of the month lacked the amount. */
const plus = (sum: number | undefined, amount: number | undefined, first: boolean): number | undefined =>
  amount === undefined || (!first && sum === undefined) ? undefined : round2((sum ?? 0) + amount);

/** Months being summed: month (`YYYY-MM`) → worker → sum, the first run (index) paying in each, and the oldest month yielded. */
interface Held {
  months: Map<string, Map<string, Sum>>;
  firstRun: Map<string, number>;
  closed: string | undefined;
  /** Runs up to this index are read again after a resume: their payments of yielded months are expected, not warned. */
  replayTo: number;
}

/** Adds run `k`'s payments (its `level=pay` answer) to `held`; payments of a month yielded already are left out. Returns the run's newest month. */
function addRun(answer: unknown, k: number, held: Held, io: AdpPayrollIo): string | undefined {
  if (answer === undefined) return undefined; // 204: nobody paid
  if (!isObj(answer) || !Array.isArray(answer.payrollOutputs)) throw new HrmsError('bad_response', 'ADP sent an unexpected shape for a payroll run');
  let newest: string | undefined;
  for (const run of list(answer.payrollOutputs)) {
    for (const ap of list(run.associatePayments)) {
      const employeeId = text(ap.associateOID);
      if (employeeId === undefined) {
        io.warn('associateOID', 'payment without an associate OID skipped');
        continue;
      }
      for (const p of list(ap.payments)) {
        const day = isoDate(p.paymentDate);
        if (day === undefined) {
          io.warn('paymentDate', 'payment without a readable date skipped');
          continue;
        }
        const key = monthKey(day);
        if (held.closed !== undefined && key >= held.closed) {
          if (k > held.replayTo) io.warn('paymentDate', 'payment of a month already read left out');
          continue;
        }
        if (newest === undefined || key > newest) newest = key;
        const byWorker = held.months.get(key) ?? new Map<string, Sum>();
        held.months.set(key, byWorker);
        if (!held.firstRun.has(key)) held.firstRun.set(key, k);
        const gross = grossOf(p);
        const net = num(obj(p.paymentAmount).amountValue);
        const was = byWorker.get(employeeId);
        byWorker.set(employeeId, {
          employeeId,
          paidOn: was && was.paidOn > day ? was.paidOn : day,
          gross: plus(was?.gross, gross, !was),
          net: plus(was?.net, net, !was),
        });
      }
    }
  }
  return newest;
}

/** A summed month as pay month entries: amounts only when in rupees and every payment carried them. */
function entriesOf(key: string, byWorker: Map<string, Sum>, io: AdpPayrollIo): PayMonthEntry[] {
  const [year, month] = key.split('-').map(Number) as [number, number];
  return [...byWorker.values()].map((s) => {
    const amounts: { grossPay?: number; netPay?: number } = {};
    if (!io.inr) io.warn('paymentAmount', 'amounts left empty: the payroll is not declared paid in rupees (api_configs entry payroll_inr)');
    else {
      if (s.gross !== undefined) amounts.grossPay = s.gross;
      else io.warn('payrollAccumulations', 'gross of this payroll missing: left empty');
      if (s.net !== undefined) amounts.netPay = s.net;
      else io.warn('paymentAmount', 'net payment missing: left empty');
    }
    return { employeeId: s.employeeId, month: { year, month, paidOn: s.paidOn, ...amounts } };
  });
}

/**
 * The pay months of the newest `options.months` months paid by completed payroll runs, one page
 * per month (newest first). `next` resumes at the first run of the next month; a cursor whose run
 * ADP no longer lists as completed is `bad_response`. Throws `HrmsError` as the connector's
 * listing does.
 */
export async function* adpPayMonths(io: AdpPayrollIo, options: PayMonthsOptions): AsyncGenerator<PayMonthsPage> {
  const want = Math.floor(options.months);
  if (!(want > 0)) return;
  const start = options.cursor === undefined ? undefined : CURSORS.decode(options.cursor);
  const runs = completedRuns(await io.json(io.url(PAYROLL_OUTPUT), 'payroll run listing'), io.warn);
  let from = 0;
  if (start) {
    from = runs.findIndex((r) => r.id === start.r);
    if (from < 0) throw new HrmsError('bad_response', 'ADP no longer lists the payroll run the cursor resumes at');
  }
  let done = start?.n ?? 0;
  const held: Held = { months: new Map(), firstRun: new Map(), closed: start?.c, replayTo: start ? runs.findIndex((r) => r.id === start.w) : -1 };
  /** Yields month `key` and closes it; the cursor resumes at the first run of a month still held. */
  const take = (key: string, k: number): PayMonthsPage => {
    const entries = entriesOf(key, held.months.get(key)!, io);
    held.months.delete(key);
    held.firstRun.delete(key);
    held.closed = key;
    done += 1;
    const resume = Math.min(k + 1, ...held.firstRun.values());
    return { entries, ...(done < want && resume < runs.length ? { next: CURSORS.encode({ r: runs[resume]!.id, n: done, c: key, w: runs[k]!.id }) } : {}) };
  };
  for (let k = from; k < runs.length && done < want; k++) {
    const url = io.url(PAYROLL_OUTPUT);
    // Spaces as %20, as the samples' request sends them (R:1222); an item id's `+`, `/` and `=` encoded.
    url.search = `level=pay&$filter=${encodeURIComponent(`itemID eq ${runs[k]!.id}`)}`;
    const newest = addRun(await io.json(url, `payroll run ${k + 1}`), k, held, io);
    if (newest === undefined) continue;
    // Every month newer than this run's newest payment is complete: yield those, newest first.
    for (const key of [...held.months.keys()]
      .filter((m) => m > newest)
      .sort()
      .reverse()) {
      if (done >= want) return;
      yield take(key, k);
    }
  }
  // The listing's end: the months still held are as complete as ADP has them.
  for (const key of [...held.months.keys()].sort().reverse()) {
    if (done >= want) return;
    yield take(key, runs.length - 1);
  }
}
