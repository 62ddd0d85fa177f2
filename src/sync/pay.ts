/**
 * A sync's part in pay history (docs/pay-history.md "Where months come from"): each written page
 * records the month its records' `monthly` carries, and, where the product publishes a payroll
 * API (`HrmsConnectorDefinition.payroll`), the run backfills pay months through
 * `connector.listPayMonths`: `FIRST_BACKFILL_MONTHS` on the first full sync of the org,
 * `LATER_BACKFILL_MONTHS` on every later one. Payroll pages stream through like employee pages
 * (one held at a time, each written in its own transaction as it comes), through the tenant's
 * budget, the stall watch and the run's cancellation. New and corrected months are announced
 * (`employee.pay_recorded`) in the transaction that records them.
 */
import type { Transactor, Tx } from '../db/tx';
import type { EmployeeRecord } from '../domain/record';
import type { ErasureStore } from '../employees/erasure-store';
import type { PayMonthStore, PayMonthWrite, PayWriteGuard } from '../employees/pay-months';
import type { EmployeeStore } from '../employees/store';
import { payRecordedEvents } from '../events/catalog';
import type { EventService } from '../events/service';
import type { Written } from '../events/types';
import type { HrmsConnector, PayMonthsPage } from '../hrms/connector';
import { canonicalEmployeeId } from '../domain/ids';
import { untilAnswer, type StallWatch } from './stall';

/** Months a first full sync of an org backfills. */
export const FIRST_BACKFILL_MONTHS = 24;
/** Months every later sync re-reads (late payroll corrections). */
export const LATER_BACKFILL_MONTHS = 2;

/** What the sync's pay history part needs. */
export interface SyncPayDeps {
  transactor: Transactor;
  payMonths: Pick<PayMonthStore, 'record'>;
  employees: Pick<EmployeeStore, 'idsFor' | 'writeMark'>;
  erasures: Pick<ErasureStore, 'lockForSync'>;
  events: Pick<EventService, 'writeIn' | 'dispatch'>;
}

/** The pay months a page's records carry: each record whose `monthly` has a `month` and a `year`. */
export function payMonthsOfRecords(records: readonly EmployeeRecord[]): PayMonthWrite[] {
  const out: PayMonthWrite[] = [];
  for (const r of records) {
    const m = r.salaryDetails.monthly;
    if (m.month !== null && m.year !== null) out.push({ employeeRowId: r.id, employeeId: r.employeeId, month: { ...m, month: m.month, year: m.year } });
  }
  return out;
}

/**
 * Records a sync page's `writes` of `orgId` in `tx` and writes their `employee.pay_recorded`
 * events there (the events' deliveries are for the caller to dispatch after commit). `guard`: the
 * write mark taken before the page was asked for; a month the update webhook recorded after it
 * keeps the webhook's value (docs/pay-history.md "A sync never reverts the webhook"). Returns the
 * events written and how many months were recorded (new or corrected).
 */
export async function recordPayMonths(
  deps: Pick<SyncPayDeps, 'payMonths' | 'events'>,
  orgId: number,
  writes: PayMonthWrite[],
  tx: Tx,
  guard: PayWriteGuard,
): Promise<{ written: Written | undefined; recorded: number }> {
  const recorded = await deps.payMonths.record(orgId, writes, tx, guard);
  return { written: recorded.length ? await deps.events.writeIn(tx, payRecordedEvents(orgId, recorded)) : undefined, recorded: recorded.length };
}

/**
 * How many months a run backfills (docs/pay-history.md "Where months come from"): none where the
 * product has no payroll API, `FIRST_BACKFILL_MONTHS` while the org has no succeeded full sync,
 * `LATER_BACKFILL_MONTHS` after.
 */
export function backfillMonths(connector: HrmsConnector, hasPayroll: boolean, lastFull: Date | null): number {
  if (!hasPayroll || !connector.listPayMonths) return 0;
  return lastFull ? LATER_BACKFILL_MONTHS : FIRST_BACKFILL_MONTHS;
}

/**
 * Backfills `months` pay months of `orgId` from `connector` (which must have `listPayMonths`).
 * Entries for employees hrx does not hold (never synced, or erased: their rows are gone, and the
 * erasure lock keeps them so while a page is written) are skipped. Returns the pay months
 * recorded (new or corrected). Throws what the connector or `untilAnswer` throws.
 */
export async function backfillPayMonths(
  deps: SyncPayDeps,
  run: { orgId: number; connector: HrmsConnector; months: number; stallMs: number; aborter: AbortController; watch: StallWatch },
): Promise<number> {
  const { orgId } = run;
  const pages = run.connector.listPayMonths!({ months: run.months })[Symbol.asyncIterator]();
  let recorded = 0;
  for (;;) {
    // Noted before the page is asked for: what the webhook records meanwhile is newer than the page.
    const guard = { writtenUpTo: await deps.employees.writeMark() };
    const next: IteratorResult<PayMonthsPage> = await untilAnswer(pages.next(), run.stallMs, run.aborter, run.watch);
    if (next.done) return recorded;
    const entries = next.value.entries.map((e) => ({ ...e, employeeId: canonicalEmployeeId(e.employeeId) })).filter((e) => e.employeeId);
    if (entries.length === 0) continue;
    const written = await deps.transactor.transaction(async (tx) => {
      await deps.erasures.lockForSync(orgId, tx);
      const ids = await deps.employees.idsFor(orgId, [...new Set(entries.map((e) => e.employeeId))], tx);
      const writes: PayMonthWrite[] = [];
      for (const e of entries) {
        const id = ids.get(e.employeeId);
        if (id) writes.push({ employeeRowId: id, employeeId: e.employeeId, month: e.month });
      }
      const out = await recordPayMonths(deps, orgId, writes, tx, guard);
      recorded += out.recorded;
      return out.written;
    });
    await deps.events.dispatch(written);
  }
}
