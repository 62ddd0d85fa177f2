/**
 * The outbox's share of erasure and retention (docs/erasure-and-retention.md "Every copy"): the
 * SQL that deletes or rewrites the events naming erased or purged employees, and the purge of
 * ended events. The erasure store (employees/erasure-store.ts) and the retention store
 * (retention/store.ts) run it on their own connections, inside their own transactions.
 */
import type { Queryable } from '../db/tx';

/**
 * Every copy of erased or purged employees in the outbox (docs/erasure-and-retention.md "Every
 * copy"): events name employees by `employeeId`, as `data.employee_id` (consent events),
 * `data.employeeId` (`employee.pay_recorded`) or in `data.employees[].employee_id`
 * (`employee.updated`, `employee.removed`). The CTEs (a `with`
 * list; the caller appends its final `select`) that delete or rewrite the events naming the
 * employees of `gone` (a query giving `org_id`, the client org, and `employee_id`, canonical): an
 * event that names only those employees is deleted (its deliveries and their attempts go with it,
 * `on delete cascade`); one that lists others too keeps them, without those employees.
 * `keepPendingRemovals`: leave an `employee.removed` event that still has a delivery pending (the
 * removal notice of a purged employee goes out first; `PURGE_ENDED_EVENTS_SQL` takes it once
 * delivered); false rewrites or deletes it too (an erasure writes its own notice afterwards).
 * `byText` (for a few ids): only events whose stored text holds one of the ids as a JSON string
 * are parsed (the writers and `jsonb` escape alike), instead of every event of the orgs.
 */
export function scrubEmployeeEventsCtes(gone: string, keepPendingRemovals: boolean, opts: { byText?: boolean } = {}): string {
  const pending = keepPendingRemovals
    ? `and not (e.type = 'employee.removed' and exists (select 1 from event_deliveries d where d.event_id = e.id and d.status = 'pending'))`
    : '';
  // A few ids (an erasure): only events whose text holds one of them, JSON-quoted, are parsed.
  const byText = opts.byText
    ? `and exists (select 1 from gone g where g.org_id = e.client_org_id and strpos(e.payload::text, to_json(g.employee_id)::text) > 0)`
    : '';
  return `with gone as (${gone}),
  candidates as materialized (
    select e.id, e.client_org_id as org_id, e.payload::jsonb as p from events e
     where e.client_org_id in (select org_id from gone) ${byText} ${pending}),
  hits as (
    select distinct c.id from candidates c
     cross join lateral (select c.p #>> '{data,employee_id}' as employee_id
                         union all
                         select c.p #>> '{data,employeeId}'
                         union all
                         select x ->> 'employee_id' from jsonb_array_elements(
                           case when jsonb_typeof(c.p #> '{data,employees}') = 'array' then c.p #> '{data,employees}' else '[]'::jsonb end) x) named_id
     join gone g on g.org_id = c.org_id and g.employee_id = named_id.employee_id),
  -- Locked, and read again as they are now (a concurrent scrub of the same event committed first).
  named as (
    select e.id, e.client_org_id as org_id, e.payload::jsonb as p from events e where e.id in (select id from hits) for update of e),
  rest as (
    select n.id, n.p, (select coalesce(jsonb_agg(x order by i), '[]'::jsonb)
                         from jsonb_array_elements(n.p #> '{data,employees}') with ordinality as a(x, i)
                        where not exists (select 1 from gone g where g.org_id = n.org_id and g.employee_id = x ->> 'employee_id')) as employees
      from named n where jsonb_typeof(n.p #> '{data,employees}') = 'array'),
  scrubbed as (
    update events e set payload = jsonb_set(r.p, '{data,employees}', r.employees)::json
      from rest r where e.id = r.id and jsonb_array_length(r.employees) > 0 returning e.id),
  deleted as (
    delete from events e using named n where e.id = n.id and not exists (select 1 from scrubbed s where s.id = n.id) returning e.id)`;
}

const SCRUB_LISTED_SQL = `${scrubEmployeeEventsCtes('select * from unnest($1::int[], $2::text[]) as g(org_id, employee_id)', false, { byText: true })}
  select (select count(*) from scrubbed)::int + (select count(*) from deleted)::int as n`;

/**
 * Deletes or rewrites every outbox row naming `employees` (client org id and canonical
 * `employeeId` of each), pending `employee.removed` events included (see
 * `scrubEmployeeEventsCtes`), on `db`: the erasure runs it in its own transaction, before it
 * writes its own `employee.removed`. Returns how many events were deleted or rewritten.
 */
export async function scrubEmployeeEvents(db: Queryable, employees: readonly { orgId: number; employeeId: string }[]): Promise<number> {
  if (employees.length === 0) return 0;
  const res = await db.query(SCRUB_LISTED_SQL, [employees.map((e) => e.orgId), employees.map((e) => e.employeeId)]);
  return (res.rows[0] as { n: number } | undefined)?.n ?? 0;
}

/**
 * Retention of the outbox (docs/erasure-and-retention.md "Retention"): up to `$2` events none of
 * whose deliveries is still pending (every one delivered, failed or cancelled; or none) that are
 * older than `$1` days (`HRX_EVENT_RETENTION_DAYS`), or are `employee.removed` of any age: the
 * employees such an event names are erased or on their way out, so the notice is not kept once
 * it went out. Their deliveries and attempts go with them (`on delete cascade`).
 */
export const PURGE_ENDED_EVENTS_SQL = `with due as (
    select e.id from events e
     where (e.created_at < now() - make_interval(days => $1::int) or e.type = 'employee.removed')
       and not exists (select 1 from event_deliveries d where d.event_id = e.id and d.status = 'pending')
     limit $2::int)
  delete from events x using due where x.id = due.id`;
