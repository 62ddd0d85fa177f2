import { Migration } from '@mikro-orm/migrations';

/**
 * Each employee's pay history in its served form (employees/pay-envelope.ts, docs/pay-history.md
 * "What is kept"): one AES-256-GCM envelope per employee row, derived from its `pay_months` and
 * rewritten with them, so the pay history read is one row fetched with the employee lookup.
 * `value_enc` null: not built yet (the read takes the months from `pay_months`). Storage
 * `external`: ciphertext does not compress, so PostgreSQL is not asked to try. Rows go with their
 * employee row, as the months do.
 */
export class Migration20261206090000 extends Migration {
  override up(): void {
    this.addSql(`create table "pay_envelopes" (
      "employee_row_id" uuid not null primary key references "employees" ("id") on delete cascade,
      "org_id" int not null,
      "value_enc" text null,
      "built_at" timestamptz(3) null);`);
    this.addSql(`alter table "pay_envelopes" alter column "value_enc" set storage external;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "pay_envelopes";`);
  }
}
