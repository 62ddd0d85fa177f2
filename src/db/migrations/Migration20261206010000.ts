import { Migration } from '@mikro-orm/migrations';

/** Every event type there was before `employee.pay_recorded`. */
const EVERY_TYPE_BEFORE =
  'connection.approved,connection.rejected,connection.terminated,sync.completed,sync.failed,employee.updated,employee.removed,consent.expired,consent.revoked,sync.degraded,connection.needs_reauth,connection.failing,connection.healthy';

/**
 * Pay history (docs/pay-history.md): one pay month per employee per (`year`, `month`), its value
 * an AES-256-GCM envelope bound to the row (employees/pay-months.ts), with a keyed digest of the
 * value so that a rewrite of the same month is told apart from a correction in the write itself.
 * Rows go with their employee (`on delete cascade`): erasure and the retention purge delete the
 * employee row and its months with it. The primary key serves the read (newest first, backward).
 * An event endpoint subscribed to every type there was subscribes to `employee.pay_recorded` too
 * (docs/events.md), as one created now would.
 */
export class Migration20261206010000 extends Migration {
  override up(): void {
    this.addSql(`create table "pay_months" (
      "employee_row_id" uuid not null references "employees" ("id") on delete cascade,
      "org_id" int not null,
      "year" smallint not null,
      "month" smallint not null check ("month" between 1 and 12),
      "value_enc" text not null,
      "value_digest" text not null,
      "recorded_at" timestamptz(3) not null default now(),
      primary key ("employee_row_id", "year", "month"));`);
    this.addSql(`update "event_endpoints" set "event_types" = "event_types" || '{employee.pay_recorded}'::text[]
      where "event_types" @> '{${EVERY_TYPE_BEFORE}}'::text[] and not ('employee.pay_recorded' = any("event_types"));`);
  }

  override down(): void {
    this.addSql(`update "event_endpoints" set "event_types" = array_remove("event_types", 'employee.pay_recorded');`);
    this.addSql(`drop table if exists "pay_months";`);
  }
}
