import { Migration } from '@mikro-orm/migrations';

/**
 * A write sequence number on each employee row: every write (sync upsert, update webhook) takes
 * the next value of `employee_write_seq`. A sync notes the sequence before it asks the HRMS for a
 * page and overwrites only rows not written since, so an update webhook landing while the page
 * was in flight is not replaced by the older HRMS answer (employees/store.ts `upsertBatch`).
 */
export class Migration20261121060000 extends Migration {
  override up(): void {
    this.addSql(`create sequence "employee_write_seq";`);
    this.addSql(`alter table "employees" add column "write_seq" bigint not null default nextval('employee_write_seq');`);
  }

  override down(): void {
    this.addSql(`alter table "employees" drop column "write_seq";`);
    this.addSql(`drop sequence "employee_write_seq";`);
  }
}
