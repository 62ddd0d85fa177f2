import { Migration } from '@mikro-orm/migrations';

/**
 * Pay history (docs/pay-history.md): one pay month per employee per (`year`, `month`), its value
 * an AES-256-GCM envelope bound to the row (employees/pay-months.ts), with a keyed digest of the
 * value so that a rewrite of the same month is told apart from a correction in the write itself.
 * Rows go with their employee (`on delete cascade`): erasure and the retention purge delete the
 * employee row and its months with it. The primary key serves the read (newest first, backward).
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
  }

  override down(): void {
    this.addSql(`drop table if exists "pay_months";`);
  }
}
