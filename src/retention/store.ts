/**
 * The retention purge's deletes (docs/erasure-and-retention.md "Retention"), each in batches of at most `batch`
 * rows a statement (short row locks; a large backlog goes in many small transactions). Ages are
 * measured against the database's clock (`now()`), in whole days. Every method takes an
 * optional `Tx` (db/tx.ts), last, to run in a caller's transaction.
 */
import type pg from 'pg';
import { queryableOf, type Tx } from '../db/tx';
import { PURGE_ENDED_EVENTS_SQL, scrubEmployeeEventsCtes } from '../events/outbox-retention';

export interface RetentionStore {
  /** Deletes up to `batch` audit entries (`audit_log`) older than `days`; returns how many. */
  purgeAuditEntries(this: void, days: number, batch: number, tx?: Tx): Promise<number>;
  /** Deletes up to `batch` Connect proof audit entries (`connect_proof_audit`) older than `days`. */
  purgeProofAuditEntries(this: void, days: number, batch: number, tx?: Tx): Promise<number>;
  /**
   * Deletes up to `batch` consent records that ended (expired, or revoked) more than `days` ago
   * and whose employee is no longer held (no `employees` row: erased or purged), since consent
   * records are kept while the employee's data is (docs/api.md "Employee details").
   */
  purgeConsents(this: void, days: number, batch: number, tx?: Tx): Promise<number>;
  /**
   * Deletes up to `batch` employees a full sync marked removed more than `days` ago and, in the
   * same statement, every outbox event naming them (deleted, or rewritten without them; an
   * `employee.removed` still being delivered is left to `purgeEvents`) and the employee id of
   * every credential issued about them (blanked, the credential revoked). Returns the employees.
   */
  purgeRemovedEmployees(this: void, days: number, batch: number, tx?: Tx): Promise<number>;
  /**
   * Deletes up to `batch` outbox events whose deliveries all ended (delivered, failed, cancelled)
   * that are older than `days`, or are `employee.removed` (any age); their deliveries and
   * attempts go with them.
   */
  purgeEvents(this: void, days: number, batch: number, tx?: Tx): Promise<number>;
  /** Idempotency keys and their answers older than `hours` (docs/api.md "Idempotency": 24). */
  purgeIdempotencyKeys(this: void, hours: number, batch: number, tx?: Tx): Promise<number>;
}

const cutoff = `now() - make_interval(days => $1::int)`;

/** One batched delete: the rows of `table` whose key `key` the `due` query (params $1 days, $2 batch) selects. */
const batchedDelete = (table: string, key: string, due: string): string =>
  `with due as (${due} limit $2::int) delete from ${table} x using due where x.${key} = due.${key}`;

const AUDIT = batchedDelete('audit_log', 'id', `select id from audit_log where at < ${cutoff}`);
const PROOF_AUDIT = batchedDelete('connect_proof_audit', 'id', `select id from connect_proof_audit where at < ${cutoff}`);
// Ended: expired, or revoked before it expired (the earlier of the two).
const CONSENTS = batchedDelete(
  'consents',
  'id',
  `select k.id from consents k
   where (k.consent_expiry < ${cutoff} or k.revoked_at < ${cutoff})
     and not exists (select 1 from employees e where e.org_id = k.client_org_id and e.employee_id = k.employee_id)`,
);
// One statement: the rows, the events naming them and the credentials issued about them go
// together (data-modifying CTEs). A credential row keeps its place and is revoked (the reason the
// sweep gives a removed employee, an earlier revocation kept), its employee id blanked as an
// erasure does: the status list keeps showing the bit, and nothing names the employee
// (docs/erasure-and-retention.md "Retention").
const REMOVED = `${scrubEmployeeEventsCtes(
  `delete from employees x where x.id in (select id from employees where removed_at < ${cutoff} limit $2::int) returning x.org_id, x.employee_id`,
  true,
)},
  forgotten as (
    update credentials c set employee_id = '', revoked_at = coalesce(c.revoked_at, now()),
                             revoked_reason = coalesce(c.revoked_reason, 'employee_not_active')
      from gone g where c.client_org_id = g.org_id and c.employee_id = g.employee_id and g.employee_id <> '')
  select count(*)::int as n from gone`;

const IDEMPOTENCY_KEYS = `with due as (select scope, idem_key from idempotency_keys where created_at < now() - make_interval(hours => $1::int) limit $2::int)
  delete from idempotency_keys x using due where x.scope = due.scope and x.idem_key = due.idem_key`;

/** Builds the store over `pool` (a background pool: no request-path statement limit in a worker). */
export function createRetentionStore(pool: pg.Pool): RetentionStore {
  const run = async (sql: string, days: number, batch: number, tx?: Tx): Promise<number> =>
    (await (await queryableOf(pool, tx)).query(sql, [days, batch])).rowCount ?? 0;
  const counted = async (sql: string, days: number, batch: number, tx?: Tx): Promise<number> =>
    ((await (await queryableOf(pool, tx)).query(sql, [days, batch])).rows[0] as { n: number }).n;
  return {
    purgeAuditEntries: (days, batch, tx) => run(AUDIT, days, batch, tx),
    purgeProofAuditEntries: (days, batch, tx) => run(PROOF_AUDIT, days, batch, tx),
    purgeConsents: (days, batch, tx) => run(CONSENTS, days, batch, tx),
    purgeRemovedEmployees: (days, batch, tx) => counted(REMOVED, days, batch, tx),
    purgeEvents: (days, batch, tx) => run(PURGE_ENDED_EVENTS_SQL, days, batch, tx),
    purgeIdempotencyKeys: (hours, batch, tx) => run(IDEMPOTENCY_KEYS, hours, batch, tx),
  };
}
